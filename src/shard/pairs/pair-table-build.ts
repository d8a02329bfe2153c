// Building pair tables (PairTable, pair-table.ts), apart from the class that answers lookups: two
// passes over the occurrences a visitor emits (count per key, then fill), or one pass recorded and
// replayed, and the compaction, all on typed arrays. No roaring here: the build helper thread runs
// this module (src/build-helper/), and a thread that loads roaring must not be terminated while it
// loads it (roaring's module registration aborts the process then; /tmp probe, session 37).

/** A table's arrays (PairTable.state, PairTable.fromState; what buildPairTablesSteps makes). */
export interface PairTableState {
  keys: Uint32Array;
  starts: Uint32Array;
  docIds: Uint32Array;
  tags: Uint16Array | null;
}

/**
 * `tableCount` tables at once, in steps (a quiet-time build between searches), the occurrences handed over a document
 * at a time (PairSink: one call per document, not per occurrence, in the build's hottest loop):
 * `visit` yields between its pieces of work. `keySpace` may differ per table (an array, one per table).
 * `replay`: pass 1 records the occurrences and the fill replays them, the documents `replay.keep`
 * still accepts (those the visitor's second call would emit), instead of calling `visit` again
 * (`PairRecording`); null: `visit` runs twice.
 */
export function* buildPairTablesSteps(tableCount: number, keySpace: number | readonly number[], visit: (sink: PairSink) => Generator<void, void, unknown>,
  tagged: readonly boolean[] = [], replay: PairReplay | null = null): Generator<void, PairTableState[], unknown> {
  const spaceOf = (table: number) => (typeof keySpace === 'number' ? keySpace : keySpace[table]!);
  // Pass 1 over-counts a pair repeated in one document, which only leaves slack at a run's end.
  const counts = Array.from({ length: tableCount }, (_, table) => new Uint32Array(spaceOf(table) + 1));
  let recording = replay !== null && tableCount <= MAX_RECORDED_TABLES ? new PairRecording(replay.maxBytes ?? RECORDING_MAX_BYTES) : null;
  yield* visit(recording === null ? new CountingSink(counts) : new RecordingSink(counts, recording));
  // Over its bound: dropped, and the fill visits the documents again.
  if (recording?.overBound) recording = null;
  // A step per table (a gap table's key space is its slots squared: millions of keys).
  for (const tableCounts of counts) {
    for (let key = 0; key + 1 < tableCounts.length; key++) tableCounts[key + 1]! += tableCounts[key]!;
    yield;
  }
  const docIds = counts.map((tableCounts) => new Uint32Array(tableCounts[tableCounts.length - 1]!));
  const tags = docIds.map((tableDocIds, table) => (tagged[table] === true ? new Uint16Array(tableDocIds.length) : null));
  const ends = counts.map((tableCounts) => tableCounts.slice(0, tableCounts.length - 1));
  const filling = new FillingSink(counts, ends, docIds, tags);
  if (recording === null) yield* visit(filling);
  else yield* recording.replaySteps(filling, replay!);
  const tables: PairTableState[] = [];
  for (let table = 0; table < tableCount; table++) {
    const compacted = compactTable(counts[table]!, ends[table]!, docIds[table]!, tags[table]!, spaceOf(table));
    if (compacted.tags !== null) yield* sortRunsByTag(compacted);
    tables.push(compacted);
    yield;
  }
  return tables;
}

/** Drops the slack and the empty keys of a filled table. */
function compactTable(counts: Uint32Array, ends: Uint32Array, docIds: Uint32Array, tags: Uint16Array | null, keySpace: number): PairTableState {
  let keyCount = 0;
  for (let key = 0; key < keySpace; key++) if (ends[key]! > counts[key]!) keyCount++;
  const keys = new Uint32Array(keyCount);
  const starts = new Uint32Array(keyCount + 1);
  // Runs move left in place (a run never lands past where it was read), then one exact-size copy.
  let written = 0;
  let index = 0;
  for (let key = 0; key < keySpace; key++) {
    const from = counts[key]!;
    const to = ends[key]!;
    if (to === from) continue;
    keys[index] = key;
    starts[index++] = written;
    docIds.copyWithin(written, from, to);
    tags?.copyWithin(written, from, to);
    written += to - from;
  }
  starts[keyCount] = written;
  return { keys, starts, docIds: docIds.slice(0, written), tags: tags === null ? null : tags.slice(0, written) };
}

/**
 * Orders each run by tag, then document (after the build; yields between slices of ~64k entries):
 * a counting sort by tag, stable, so documents stay ascending within a tag.
 */
function* sortRunsByTag(table: PairTableState): Generator<void, void, unknown> {
  const tags = table.tags!;
  const docIds = table.docIds;
  const starts = table.starts;
  let longest = 0;
  let maxTag = 0;
  for (let index = 0; index + 1 < starts.length; index++) longest = Math.max(longest, starts[index + 1]! - starts[index]!);
  for (let k = 0; k < tags.length; k++) if (tags[k]! > maxTag) maxTag = tags[k]!;
  const sortedDocs = new Uint32Array(longest);
  const sortedTags = new Uint16Array(longest);
  const counts = new Uint32Array(maxTag + 2);
  let sinceYield = 0;
  for (let index = 0; index + 1 < starts.length; index++) {
    const start = starts[index]!;
    const end = starts[index + 1]!;
    let low = 65535;
    let high = 0;
    let ordered = true;
    for (let k = start; k < end; k++) {
      const tag = tags[k]!;
      if (k > start && tag < tags[k - 1]!) ordered = false;
      if (tag < low) low = tag;
      if (tag > high) high = tag;
      counts[tag + 1]!++;
    }
    if (!ordered) {
      for (let tag = low; tag <= high; tag++) counts[tag + 1]! += counts[tag]!;
      for (let k = start; k < end; k++) {
        const at = counts[tags[k]!]!++;
        sortedDocs[at] = docIds[k]!;
        sortedTags[at] = tags[k]!;
      }
      docIds.set(sortedDocs.subarray(0, end - start), start);
      tags.set(sortedTags.subarray(0, end - start), start);
    }
    counts.fill(0, low, high + 2);
    sinceYield += end - start;
    if (sinceYield >= 1 << 16) {
      sinceYield = 0;
      yield;
    }
  }
}

/**
 * Where a visitor of PairTable.buildManySteps puts one document's occurrences: reserve(n) gives an
 * array with room for n (table, key, tag) triples from its start (tag 0 for an untagged table), end(docId, length)
 * takes the first `length` numbers written (3 a triple). Owner: one build pass; its array grows to the
 * most occurrences of one document, 12 bytes each.
 */
export abstract class PairSink {
  protected entries = new Int32Array(3 * 64);

  reserve(occurrences: number): Int32Array {
    if (3 * occurrences > this.entries.length) this.entries = new Int32Array(Math.max(3 * occurrences, 2 * this.entries.length));
    return this.entries;
  }

  abstract end(docId: number, length: number): void;
}

/** Pass 1: counts[table][key + 1] per occurrence. */
class CountingSink extends PairSink {
  constructor(private readonly counts: Uint32Array[]) {
    super();
  }

  end(_docId: number, length: number): void {
    const entries = this.entries;
    const counts = this.counts;
    for (let k = 0; k < length; k += 3) counts[entries[k]!]![entries[k + 1]! + 1]!++;
  }
}

/** buildManySteps' fill from pass 1's recording: which recorded documents to fill (those the visitor would emit again). */
export interface PairReplay {
  keep(docId: number): boolean;
  /** The recording's bound (default RECORDING_MAX_BYTES): past it, the recording is dropped and the fill visits again. */
  maxBytes?: number;
}

/** A recorded occurrence packs its table and tag in one number: tables up to this many are recorded (else `visit` runs twice). */
const MAX_RECORDED_TABLES = 1 << 15;
/** Numbers per chunk of a PairRecording (4 MiB); a document needing more gets a chunk of its own size. */
const RECORDING_CHUNK = 1 << 20;
/**
 * A recording's bound: 8 bytes an occurrence, so ~16M occurrences (1M npm rows: ~92 MiB more
 * peak RSS while the near-pair tables build); a larger shard's build visits its documents twice.
 */
const RECORDING_MAX_BYTES = 128 * 2 ** 20;
/** Documents replayed between yields: a replayed document costs less than a visited one (PAIR_DOCUMENTS_PER_STEP is 1,024). */
const REPLAY_DOCUMENTS_PER_STEP = 2048;

/**
 * Pass 1's occurrences, kept for the fill pass (which then neither reads the documents' tokens nor
 * looks their words up again): per document its id, its occurrence count and per occurrence the key
 * and (table << 16 | tag), in chunks. Owner: one buildManySteps call, from its pass 1 to the end of its
 * fill; 8 bytes per occurrence, in chunks adding up to at most `maxBytes` (RECORDING_MAX_BYTES).
 */
class PairRecording {
  private readonly chunks: Int32Array[] = [];
  private chunk = new Int32Array(0);
  private position = 0;
  private lengths: number[] = [];
  private bytes = 0;
  /** Went past maxBytes: its chunks are freed and it records nothing more. */
  overBound = false;

  constructor(private readonly maxBytes: number) {}

  /** Records a document's occurrences: `entries`' first `length` numbers, (table, key, tag) triples. */
  add(docId: number, entries: Int32Array, length: number): void {
    if (this.overBound) return;
    const need = 2 + (length / 3) * 2;
    if (this.position + need > this.chunk.length) {
      const size = Math.max(RECORDING_CHUNK, need);
      if (this.bytes + 4 * size > this.maxBytes) {
        this.overBound = true;
        this.chunks.length = 0;
        this.chunk = new Int32Array(0);
        return;
      }
      if (this.chunks.length > 0) this.lengths.push(this.position);
      this.chunk = new Int32Array(size);
      this.chunks.push(this.chunk);
      this.bytes += this.chunk.byteLength;
      this.position = 0;
    }
    const chunk = this.chunk;
    let at = this.position;
    chunk[at++] = docId;
    chunk[at++] = length / 3;
    for (let k = 0; k < length; k += 3) {
      chunk[at++] = entries[k + 1]!;
      chunk[at++] = (entries[k]! << 16) | entries[k + 2]!;
    }
    this.position = at;
  }

  /** The recorded documents `replay` keeps, in order, into the fill; the chunks go as they are read. */
  *replaySteps(filling: FillingSink, replay: PairReplay): Generator<void, void, unknown> {
    if (this.chunks.length > 0) this.lengths.push(this.position);
    let documents = 0;
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      const length = this.lengths[c]!;
      for (let at = 0; at < length;) {
        const docId = chunk[at]!;
        const occurrences = chunk[at + 1]!;
        if (replay.keep(docId)) filling.fillPacked(docId, chunk, at + 2, occurrences);
        at += 2 + 2 * occurrences;
        if (++documents % REPLAY_DOCUMENTS_PER_STEP === 0) yield;
      }
      this.chunks[c] = new Int32Array(0);
    }
    this.chunks.length = 0;
    this.lengths = [];
  }
}

/** Pass 1 of a replayed build: counts as CountingSink, and records the document's occurrences. */
class RecordingSink extends CountingSink {
  constructor(counts: Uint32Array[], private readonly recording: PairRecording) {
    super(counts);
  }

  override end(docId: number, length: number): void {
    super.end(docId, length);
    if (length > 0) this.recording.add(docId, this.entries, length);
  }
}

/** Pass 2: each occurrence into its key's segment, a (document, tag) repeated in a row once, never past the segment. */
class FillingSink extends PairSink {
  constructor(private readonly counts: Uint32Array[], private readonly ends: Uint32Array[], private readonly docIds: Uint32Array[],
    private readonly tags: (Uint16Array | null)[]) {
    super();
  }

  end(docId: number, length: number): void {
    const entries = this.entries;
    for (let k = 0; k < length; k += 3) this.fill(entries[k]!, entries[k + 1]!, entries[k + 2]!, docId);
  }

  /** A PairRecording's `occurrences` of the document from `at`: (key, table << 16 | tag) each. */
  fillPacked(docId: number, packed: Int32Array, at: number, occurrences: number): void {
    const end = at + 2 * occurrences;
    for (let k = at; k < end; k += 2) {
      const tableAndTag = packed[k + 1]!;
      this.fill(tableAndTag >>> 16, packed[k]!, tableAndTag & 0xffff, docId);
    }
  }

  private fill(table: number, key: number, tag: number, docId: number): void {
    const tableEnds = this.ends[table]!;
    const tableDocIds = this.docIds[table]!;
    const tableTags = this.tags[table]!;
    const tableCounts = this.counts[table]!;
    const end = tableEnds[key]!;
    // Never past the key's segment (a visitor breaking the contract must not spoil the other keys' runs).
    if (end === tableCounts[key + 1]!) return;
    if (end > tableCounts[key]! && tableDocIds[end - 1] === docId && (tableTags === null || tableTags[end - 1] === tag)) return;
    tableDocIds[end] = docId;
    if (tableTags !== null) tableTags[end] = tag;
    tableEnds[key] = end + 1;
  }
}

/** The first index of `start`..`end` whose value is at least `value` (`end` when none; values ascend there). */
export function firstAtLeast(values: Uint16Array | Uint32Array, start: number, end: number, value: number): number {
  let low = start;
  let high = end;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
