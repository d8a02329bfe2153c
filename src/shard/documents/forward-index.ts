// Per document, what ranking needs beyond posting lists: every indexed word with its field and
// position. Stored in one growing Uint32Array arena (a few objects instead of millions) as
//   [fieldCount, tokenCount, rank_0 .. rank_{fieldCount-1}, (wordId, field << 16 | position) * tokenCount]
// Deleted documents leave holes that are compacted away once they are half of the arena.

import { DocOffsetTable, type DocOffsetTableState } from './doc-offset-table.js';

const HEADER = 2;
const MIN_COMPACT_WORDS = 1 << 20;

export interface DocumentTokens {
  /** Rank of each field (by field ordinal within the document). */
  fieldRanks: readonly number[];
  wordIds: readonly number[];
  fields: readonly number[];
  positions: readonly number[];
}

export class ForwardIndex {
  private data = new Uint32Array(1 << 12);
  private used = 0;
  private garbage = 0;
  private readonly offsets = new DocOffsetTable();
  /**
   * The highest field rank ever put (deleted documents' included: an upper bound), -1 when none;
   * null after a restore until asked (worked out from the arena then, not stored in snapshots).
   */
  private fieldRankMax: number | null = -1;
  /** Puts and removes so far (what offsetsOfAll's memo is checked against). */
  private writes = 0;
  /** offsetsOfAll's last answer, until the next write. */
  private allOffsets: { documents: Uint32Array; offsets: Int32Array } | null = null;

  has(docId: number): boolean {
    return this.offsets.has(docId);
  }

  get documentCount(): number {
    return this.offsets.size;
  }

  put(docId: number, tokens: DocumentTokens): void {
    this.remove(docId);
    this.noteWrite();
    const fieldCount = tokens.fieldRanks.length;
    const tokenCount = tokens.wordIds.length;
    const size = HEADER + fieldCount + tokenCount * 2;
    this.reserve(size);
    const data = this.data;
    const offset = this.used;
    data[offset] = fieldCount;
    data[offset + 1] = tokenCount;
    for (let f = 0; f < fieldCount; f++) data[offset + HEADER + f] = tokens.fieldRanks[f]!;
    if (this.fieldRankMax !== null) for (let f = 0; f < fieldCount; f++) this.fieldRankMax = Math.max(this.fieldRankMax, tokens.fieldRanks[f]!);
    let cursor = offset + HEADER + fieldCount;
    for (let k = 0; k < tokenCount; k++) {
      data[cursor++] = tokens.wordIds[k]!;
      data[cursor++] = ((tokens.fields[k]! & 0xffff) << 16 | (tokens.positions[k]! & 0xffff)) >>> 0;
    }
    this.used += size;
    this.offsets.set(docId, offset);
  }

  remove(docId: number): void {
    const offset = this.offsets.get(docId);
    if (offset < 0) return;
    this.noteWrite();
    this.garbage += HEADER + this.data[offset]! + this.data[offset + 1]! * 2;
    this.offsets.delete(docId);
    if (this.garbage >= MIN_COMPACT_WORDS && this.garbage * 2 >= this.used) this.compact();
  }

  private noteWrite(): void {
    this.writes++;
    this.allOffsets = null;
  }

  /** Puts and removes so far: offsetsOfAll's answer holds while this is unchanged. */
  get writeCount(): number {
    return this.writes;
  }

  /**
   * The arena offsets of `documents`, every document held in ascending order (the shard's documents'
   * toUint32Array), by index; memoized until the next write (writeCount). A full build's passes read
   * them in order instead of looking each document up (a cache miss in the offset table's hash, per
   * document and pass: a fifth of the derived builds' time at 1M documents, eight passes over them).
   * Null when `documents` is not every document held.
   */
  offsetsOfAll(documents: Uint32Array): Int32Array | null {
    if (documents.length !== this.offsets.size) return null;
    const memo = this.allOffsets;
    if (memo !== null && (memo.documents === documents || sameIds(memo.documents, documents))) return memo.offsets;
    const offsets = new Int32Array(documents.length);
    for (let index = 0; index < documents.length; index++) {
      const offset = this.offsets.get(documents[index]!);
      if (offset < 0) return null;
      offsets[index] = offset;
    }
    this.allOffsets = { documents, offsets };
    return offsets;
  }

  /** The arena; with offsetOf, valid until the next write. */
  get arena(): Uint32Array {
    return this.data;
  }

  /** A copy of the arena's used part (offsets as offsetOf gives them): a build in another thread reads it. */
  arenaCopy(): Uint32Array {
    return this.data.slice(0, this.used);
  }

  /** The document's offset in the arena, -1 when absent. */
  offsetOf(docId: number): number {
    return this.offsets.get(docId);
  }

  /** Distinct word ids of a document (for removing it from posting lists). */
  wordIdsOf(docId: number): number[] {
    const offset = this.offsets.get(docId);
    if (offset < 0) return [];
    const data = this.data;
    const fieldCount = data[offset]!;
    const tokenCount = data[offset + 1]!;
    const ids = new Set<number>();
    const first = offset + HEADER + fieldCount;
    for (let k = 0; k < tokenCount; k++) ids.add(data[first + k * 2]!);
    return [...ids];
  }

  private reserve(size: number): void {
    if (this.used + size <= this.data.length) return;
    // 1.5x growth: the arena is the biggest structure of a shard, so slack is costly.
    // At least the initial size: a restored or trimmed empty arena has length 0, which 1.5x never grows.
    let capacity = Math.max(1 << 12, Math.ceil(this.data.length * 1.5));
    while (capacity < this.used + size) capacity = Math.ceil(capacity * 1.5);
    const grown = new Uint32Array(capacity);
    grown.set(this.data.subarray(0, this.used));
    this.data = grown;
  }

  /** Gives back the unused end of the arena (after a bulk load). */
  trim(): void {
    if (this.data.length - this.used > 1 << 16) this.data = this.data.slice(0, this.used);
  }

  /** Snapshot hook: the used part of the arena (a view), its garbage count and the offset table. */
  exportState(): ForwardIndexState {
    return { arena: this.data.subarray(0, this.used), garbage: this.garbage, offsets: this.offsets.exportState() };
  }

  /** Snapshot hook: adopts an exported state (the arrays are not copied). */
  importState(state: ForwardIndexState): void {
    this.data = state.arena;
    this.used = state.arena.length;
    this.garbage = state.garbage;
    this.offsets.importState(state.offsets);
    this.fieldRankMax = null;
    this.noteWrite();
  }

  /**
   * No document has a field of a higher rank (an upper bound: deleted documents may count). After a
   * restore, one walk over the arena's records (their headers) when first asked.
   */
  get maxFieldRank(): number {
    if (this.fieldRankMax === null) {
      let max = -1;
      const data = this.data;
      for (let offset = 0; offset < this.used; offset += HEADER + data[offset]! + data[offset + 1]! * 2) {
        for (let f = 0; f < data[offset]!; f++) max = Math.max(max, data[offset + HEADER + f]!);
      }
      this.fieldRankMax = max;
    }
    return this.fieldRankMax;
  }

  private compact(): void {
    const live = this.used - this.garbage;
    const next = new Uint32Array(Math.max(1 << 12, live * 2));
    let cursor = 0;
    this.offsets.forEach((docId, offset) => {
      const size = HEADER + this.data[offset]! + this.data[offset + 1]! * 2;
      next.set(this.data.subarray(offset, offset + size), cursor);
      this.offsets.set(docId, cursor);
      cursor += size;
    });
    this.data = next;
    this.used = cursor;
    this.garbage = 0;
  }
}

export interface ForwardIndexState {
  arena: Uint32Array<ArrayBuffer>;
  garbage: number;
  offsets: DocOffsetTableState;
}

export function fieldCountAt(data: Uint32Array, offset: number): number {
  return data[offset]!;
}

export function tokenCountAt(data: Uint32Array, offset: number): number {
  return data[offset + 1]!;
}

export function fieldRankAt(data: Uint32Array, offset: number, field: number): number {
  return data[offset + HEADER + field]!;
}

/** Index in `data` of the first token's word id; token k is at tokensStart + 2k (word) and + 2k + 1 (field/position). */
export function tokensStartAt(data: Uint32Array, offset: number): number {
  return offset + HEADER + data[offset]!;
}

/** Same ids in the same order. */
function sameIds(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * The arena offsets of a build pass's documents (every document held, ascending), by index: read in
 * order from ForwardIndex.offsetsOfAll while no write came between the pass's steps, else looked up.
 */
export class PassOffsets {
  private offsets: Int32Array | null;
  private readonly writes: number;

  constructor(private readonly forward: ForwardIndex, private readonly documents: Uint32Array) {
    this.offsets = forward.offsetsOfAll(documents);
    this.writes = forward.writeCount;
  }

  /** After each of the pass's yields: a write meanwhile may have moved documents. */
  resume(): void {
    if (this.offsets !== null && this.forward.writeCount !== this.writes) this.offsets = null;
  }

  /** documents[index]'s offset, -1 when it is no longer held. */
  at(index: number): number {
    const offsets = this.offsets;
    return offsets !== null ? offsets[index]! : this.forward.offsetOf(this.documents[index]!);
  }
}
