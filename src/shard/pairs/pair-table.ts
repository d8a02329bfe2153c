// An immutable table of document runs per pair key: distinct keys sorted in one Uint32Array, each
// with a run of ascending doc ids in another, a few bytes per (pair, document) instead of one bitmap
// object per pair. Built in two passes over the occurrences (count per key, then fill), so building
// needs no more memory than the tables themselves plus one counter per possible key. A table may tag
// each (key, document) with 16 bits (a prefix table: which rare words' split made it), which a lookup
// can filter on; its counters stay one per key (one per key and tag made the build a third slower).
// A tagged run is ordered by tag, then document: a range of tags is a slice of it, found by binary
// search (filtering a run entry by entry cost a lookup the whole run, up to ~10^5 entries at 1M
// documents, for each frequent word of the other term).
import roaring from 'roaring';
import { finishSteps } from '../sliced-jobs.js';
import { buildPairTablesSteps, firstAtLeast, type PairReplay, type PairSink, type PairTableState } from './pair-table-build.js';

export { firstAtLeast, PairSink, type PairReplay, type PairTableState } from './pair-table-build.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * Runs this long are also handed out as bitmaps, made on first use and kept: OR-ing a bitmap's
 * containers costs far less than adding a long run's ids one by one (that addition was most of a
 * multi-word query's pair lookups at 500,000 documents a shard).
 */
const BITMAP_MIN_RUN = 4096;

export class PairTable {
  /** Bitmaps of the long runs handed out so far, by key index. */
  private readonly bitmaps = new Map<number, RoaringBitmap32>();

  private constructor(private readonly keys: Uint32Array, private readonly starts: Uint32Array, private readonly docIds: Uint32Array,
    private readonly tags: Uint16Array | null) {}

  /**
   * `tableCount` tables at once, from one visitor (one pass over the documents per build pass):
   * `visit(emit)` must emit every (table, key, docId) occurrence, documents in ascending order, and
   * the same occurrences when called twice (else the documents that differ must be ignored by the
   * table's users: it stays well-formed). Keys are below `keySpace`. The tables listed in `tagged`
   * keep each occurrence's tag (0-65535; a document comes once per key and tag in a row), their
   * runs ordered by tag, then document.
   */
  static buildMany(tableCount: number, keySpace: number, visit: (emit: (table: number, key: number, docId: number, tag?: number) => void) => void,
    tagged: readonly boolean[] = []): PairTable[] {
    return finishSteps(PairTable.buildManySteps(tableCount, keySpace, function* (sink) {
      visit((table, key, docId, tag = 0) => {
        const entries = sink.reserve(1);
        entries[0] = table;
        entries[1] = key;
        entries[2] = tag;
        sink.end(docId, 3);
      });
    }, tagged));
  }

  /**
   * buildMany in steps (buildPairTablesSteps, pair-table-build.ts), the tables made into PairTables.
   */
  static *buildManySteps(tableCount: number, keySpace: number | readonly number[], visit: (sink: PairSink) => Generator<void, void, unknown>,
    tagged: readonly boolean[] = [], replay: PairReplay | null = null): Generator<void, PairTable[], unknown> {
    const states = yield* buildPairTablesSteps(tableCount, keySpace, visit, tagged, replay);
    return states.map((state) => PairTable.ofBuilt(state));
  }

  /** A table as buildPairTablesSteps made it (well-formed by construction: not checked again). */
  static ofBuilt(state: PairTableState): PairTable {
    return new PairTable(state.keys, state.starts, state.docIds, state.tags);
  }

  /** The arrays as they are (a snapshot's sections; do not mutate). */
  get state(): PairTableState {
    return { keys: this.keys, starts: this.starts, docIds: this.docIds, tags: this.tags };
  }

  /** A table from a snapshot's arrays; null when they do not form one (the caller rebuilds). */
  static fromState(state: PairTableState): PairTable | null {
    const { keys, starts, docIds, tags } = state;
    if (starts.length !== keys.length + 1 || starts[0] !== 0 || starts[keys.length] !== docIds.length) return null;
    if (tags !== null && tags.length !== docIds.length) return null;
    for (let k = 0; k < keys.length; k++) {
      if (starts[k]! > starts[k + 1]! || (k > 0 && keys[k - 1]! >= keys[k]!)) return null;
    }
    return new PairTable(keys, starts, docIds, tags);
  }

  static empty(): PairTable {
    return new PairTable(new Uint32Array(0), new Uint32Array(1), new Uint32Array(0), null);
  }

  /** The documents of the key (ascending; in a tagged table by tag, then ascending; a view, valid while the table lives), or null when it has none. */
  docsOf(key: number): Uint32Array | null {
    const index = this.indexOf(key);
    return index < 0 ? null : this.docIds.subarray(this.starts[index]!, this.starts[index + 1]!);
  }

  /** The documents of the key: a long run as a bitmap (read-only, kept), else as docsOf gives them; null when none. */
  docsOrBitmapOf(key: number): Uint32Array | RoaringBitmap32 | null {
    const index = this.indexOf(key);
    if (index < 0) return null;
    const run = this.docIds.subarray(this.starts[index]!, this.starts[index + 1]!);
    if (run.length < BITMAP_MIN_RUN) return run;
    let bitmap = this.bitmaps.get(index);
    if (bitmap === undefined) {
      bitmap = new RoaringBitmap32(run);
      bitmap.runOptimize();
      bitmap.shrinkToFit();
      this.bitmaps.set(index, bitmap);
    }
    return bitmap;
  }

  /**
   * The documents of the key whose tag is from `firstTag` to `lastTag` (by tag, then ascending: a
   * document once per tag, so possibly repeated; a view), or null when none; an untagged table's run
   * has tag 0.
   */
  docsTaggedWithin(key: number, firstTag: number, lastTag: number): Uint32Array | null {
    const index = this.indexOf(key);
    if (index < 0) return null;
    const start = this.starts[index]!;
    const end = this.starts[index + 1]!;
    const tags = this.tags;
    if (tags === null) return firstTag <= 0 && lastTag >= 0 ? this.docIds.subarray(start, end) : null;
    const from = firstAtLeast(tags, start, end, firstTag);
    const to = firstAtLeast(tags, from, end, lastTag + 1);
    return from === to ? null : this.docIds.subarray(from, to);
  }

  private indexOf(key: number): number {
    let low = 0;
    let high = this.keys.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.keys[middle]!;
      if (found === key) return middle;
      if (found < key) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** Bytes held (for memory reports). */
  get byteLength(): number {
    let bitmaps = 0;
    for (const bitmap of this.bitmaps.values()) bitmaps += bitmap.getSerializationSizeInBytes('portable');
    return this.keys.byteLength + this.starts.byteLength + this.docIds.byteLength + (this.tags?.byteLength ?? 0) + bitmaps;
  }
}

