// Per short prefix (2 or 3 characters), the documents holding a word that starts with it, in ordinary
// and in typo-disabled attributes alike (the plain and the exactAttributeKey-marked words; milli's
// word_prefix_docids), and the same by field rank and by position (word_prefix_fid_docids /
// word_prefix_position_docids): exactly the unions a prefix term's zero-typo level
// (words/derivations.ts derivationsFromWords) and its rank / position lists (TokenKeyPostings.keyedUnions)
// take over its words. A short prefix stands for hundreds to thousands of words, and those unions were
// most of deriving under writes: each write batch of more than 64 documents drops the shard's caches
// whole (shard-engine.ts), so every hot prefix was unioned again after each batch (bench mixed-engine,
// 100k npm rows, 1,000 rows a second: unionOfMany's self time 366 ms read-only -> 2,088 ms mixed, the
// rank / position unions 184 -> 1,360 ms per 20,000 searches; 2- and 3-letter prefixes most of it).
// Unlike a cache these FOLLOW the writes: an upsert adds its document to the lists of its tokens'
// (prefix, key), a delete (an upsert's old version too) removes it from them all (the whole document
// leaves, so no remaining word of it keeps one). Built once in one pass over the documents, in slices
// (never by a search: until built, the unions are made from the words' lists as before); kept in
// snapshots. ShardIndex.prefixUnions false: neither built nor kept (tests, A/B).
import roaring from 'roaring';
import type { DerivedSnapshotPart, DerivedStructure } from '../derived-structure.js';
import { PassOffsets, tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import type { Vocabulary } from '../words/vocabulary.js';
import { EXACT_ATTRIBUTE_MARK } from '../words/derivations.js';
import type { TokenKey } from './token-key-postings.js';
import { NO_DOCUMENTS } from '../../ranking/scores/score-layers.js';
import { SLICE_POLICY, stepEndsAt } from '../sliced-jobs.js';
import { encodeBitmapsSteps, decodeBitmaps } from '../snapshot/bitmap-list-codec.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Prefixes of these lengths (in UTF-16 code units, as the lexicon compares words) get their lists kept. */
export const PREFIX_POSTING_LENGTHS: readonly number[] = [2, 3];
const PREFIXES_PER_WORD = PREFIX_POSTING_LENGTHS.length;
const NOT_WORKED_OUT = -2;
/** Pending additions (documents by slot) applied all at once past this many. */
const MAX_PENDING = 1 << 18;

/**
 * The short prefixes of a shard's words, numbered (shared by its prefix postings): per word id its
 * prefixes' numbers, worked out once per word. Owner: the ShardIndex; size: a number per prefix met,
 * PREFIX_POSTING_LENGTHS.length per word.
 */
export class ShortPrefixes {
  private readonly numbers = new Map<string, number>();
  private readonly texts: string[] = [];
  /** [PREFIXES_PER_WORD * wordId + k]: the number of the word's k-th prefix, -1 when it is too short; NOT_WORKED_OUT past `filled`. */
  private byWord = new Int32Array(0);
  private filled = 0;

  constructor(private readonly vocabulary: Vocabulary) {}

  get count(): number {
    return this.texts.length;
  }

  numberOf(prefix: string): number | undefined {
    return this.numbers.get(prefix);
  }

  textOf(number: number): string {
    return this.texts[number]!;
  }

  /** The prefix's number, given now when new. */
  intern(prefix: string): number {
    let number = this.numbers.get(prefix);
    if (number === undefined) {
      number = this.texts.length;
      this.numbers.set(prefix, number);
      this.texts.push(prefix);
    }
    return number;
  }

  /** The table of every word's prefix numbers (PREFIXES_PER_WORD a word), worked out for the words interned so far; valid until the vocabulary grows. */
  table(): Int32Array {
    const words = this.vocabulary.size;
    if (this.filled >= words) return this.byWord;
    if (this.byWord.length < words * PREFIXES_PER_WORD) {
      const grown = new Int32Array(Math.max(words, this.filled * 2) * PREFIXES_PER_WORD).fill(NOT_WORKED_OUT);
      grown.set(this.byWord.subarray(0, this.filled * PREFIXES_PER_WORD));
      this.byWord = grown;
    }
    for (let wordId = this.filled; wordId < words; wordId++) {
      const word = this.vocabulary.wordOf(wordId);
      const start = word.startsWith(EXACT_ATTRIBUTE_MARK) ? EXACT_ATTRIBUTE_MARK.length : 0;
      for (let k = 0; k < PREFIXES_PER_WORD; k++) {
        const length = PREFIX_POSTING_LENGTHS[k]!;
        this.byWord[wordId * PREFIXES_PER_WORD + k] = word.length - start >= length ? this.intern(word.slice(start, start + length)) : -1;
      }
    }
    this.filled = words;
    return this.byWord;
  }
}

/** A build in progress: per document written meanwhile, the slots its versions held (settled at its end). */
interface PrefixBuild {
  touched: Map<number, Set<number>>;
}

/**
 * Lists by (short prefix, key): the documents holding a word starting with the prefix in a token of
 * that key (`keyOf`, below `limit`; null: one key, every token). Lists are indexed by
 * prefix number * limit + key.
 */
export class PrefixPostings implements DerivedStructure {
  /** Built lists by slot (undefined: none yet; an emptied list stays, empty); null: not built. */
  private lists: (RoaringBitmap32 | undefined)[] | null = null;
  private build: PrefixBuild | null = null;
  /** A document's slots, each once (reused: one thread, no reentrancy), and per slot the document count that last took it (slotsOf). */
  private readonly slots: number[] = [];
  private marks = new Uint32Array(0);
  private marked = 0;
  /**
   * Documents added since their slot's list was last read, per slot (a bitmap insertion per token and
   * prefix was most of a write's cost): applied to a list when it is read or a document leaves it, all
   * at once past MAX_PENDING or before a snapshot.
   */
  private pending: (number[] | undefined)[] = [];
  private pendingCount = 0;
  private on = true;

  constructor(private readonly prefixes: ShortPrefixes, private readonly forward: ForwardIndex, private readonly documents: RoaringBitmap32,
    private readonly keyOf: TokenKey | null, readonly limit: number) {}

  /** False: the lists are dropped and neither built nor kept (answers are undefined); true again: built at the next prepare. */
  get enabled(): boolean {
    return this.on;
  }

  set enabled(on: boolean) {
    this.on = on;
    if (!on) {
      this.lists = null;
      this.build = null;
      this.pending = [];
      this.pendingCount = 0;
    }
  }

  get needsBuild(): boolean {
    return this.on && this.lists === null;
  }

  /** Whether lists are kept for prefix terms of this word (its length; built). */
  keeps(prefix: string): boolean {
    return this.lists !== null && PREFIX_POSTING_LENGTHS.includes(prefix.length);
  }

  /**
   * The documents holding a word that starts with `prefix` (or its marked spelling) in a token of
   * `key`, when kept (NO_DOCUMENTS when none): the structure's own list, updated in place by later
   * writes (read-only; what holds it is dropped by any write to one of the prefix's words, as what
   * holds a word's own posting list is).
   */
  listOf(prefix: string, key = 0): RoaringBitmap32 | undefined {
    if (!this.keeps(prefix)) return undefined;
    const number = this.prefixes.numberOf(prefix);
    if (number === undefined) return NO_DOCUMENTS;
    const slot = number * this.limit + key;
    this.applyPending(slot);
    return this.lists![slot] ?? NO_DOCUMENTS;
  }

  /** Adds the slot's pending documents to its list. */
  private applyPending(slot: number): void {
    const docIds = this.pending[slot];
    if (docIds === undefined) return;
    this.pending[slot] = undefined;
    this.pendingCount -= docIds.length;
    const lists = this.lists!;
    const list = lists[slot];
    if (list === undefined) lists[slot] = new RoaringBitmap32(docIds);
    else list.addMany(docIds);
  }

  private applyAllPending(): void {
    for (let slot = 0; slot < this.pending.length; slot++) this.applyPending(slot);
    this.pending = [];
  }

  /** listOf by key, for keys below the limit (a KeyedLists, ranking/keyed-lists.ts); undefined when not kept. */
  keyedLists(prefix: string): RoaringBitmap32[] | undefined {
    if (!this.keeps(prefix)) return undefined;
    return Array.from({ length: this.limit }, (_, key) => this.listOf(prefix, key)!);
  }

  /** The slots of the document's tokens (it is in the forward index), each once (this.slots, reused). */
  private slotsOf(docId: number): readonly number[] {
    const offset = this.forward.offsetOf(docId);
    return offset >= 0 ? this.slotsAt(this.forward.arena, offset) : (this.slots.length = 0, this.slots);
  }

  /** The slots of the tokens of the document at `offset` in the arena, each once (this.slots, reused). */
  private slotsAt(data: Uint32Array, offset: number): readonly number[] {
    const { keyOf, limit, slots } = this;
    const table = this.prefixes.table();
    slots.length = 0;
    if (this.marks.length < this.prefixes.count * limit) {
      const grown = new Uint32Array(Math.max(this.prefixes.count * limit, this.marks.length * 2));
      grown.set(this.marks);
      this.marks = grown;
    }
    const marks = this.marks;
    const mark = ++this.marked;
    const start = tokensStartAt(data, offset);
    const end = start + tokenCountAt(data, offset) * 2;
    for (let k = start; k < end; k += 2) {
      const key = keyOf === null ? 0 : keyOf(data, offset, data[k + 1]!);
      if (key >= limit) continue;
      const at = data[k]! * PREFIXES_PER_WORD;
      for (let p = 0; p < PREFIXES_PER_WORD; p++) {
        const number = table[at + p]!;
        if (number < 0) continue;
        const slot = number * limit + key;
        if (marks[slot] === mark) continue;
        marks[slot] = mark;
        slots.push(slot);
      }
    }
    return slots;
  }

  noteWrite(docId: number, added: boolean): void {
    const lists = this.lists;
    const build = this.build;
    if (lists === null && build === null) return;
    const slots = this.slotsOf(docId);
    if (build !== null) {
      let touched = build.touched.get(docId);
      if (touched === undefined) build.touched.set(docId, touched = new Set());
      for (const slot of slots) touched.add(slot);
    }
    if (lists === null) return;
    if (!added) {
      for (const slot of slots) {
        this.applyPending(slot);
        lists[slot]?.remove(docId);
      }
      return;
    }
    const pending = this.pending;
    for (let k = 0; k < slots.length; k++) {
      const slot = slots[k]!;
      const docIds = pending[slot];
      if (docIds === undefined) pending[slot] = [docId];
      else docIds.push(docId);
    }
    this.pendingCount += slots.length;
    if (this.pendingCount > MAX_PENDING) this.applyAllPending();
  }

  /**
   * The build in slices: one pass over the documents (a document's slots gathered per slot, in
   * document order), then a bitmap per slot; a document written meanwhile is settled at its end from
   * what it holds then (whatever version the pass read).
   */
  *buildSteps(): Generator<void, void, unknown> {
    if (!this.on) return;
    const build: PrefixBuild = { touched: new Map() };
    this.build = build;
    try {
      const documents = this.documents.toUint32Array();
      // Numbers for every word's prefixes now: the documents not written since the start hold no later word.
      this.prefixes.table();
      const size = this.prefixes.count * this.limit;
      // Two passes (count per slot, then fill one array): a JS array per slot made most of the build's time in the collector.
      const starts = new Uint32Array(size + 1);
      for (const _ of this.passSteps(build, documents, (slots) => {
        for (let k = 0; k < slots.length; k++) if (slots[k]! < size) starts[slots[k]! + 1]!++;
      })) {
        yield;
        if (this.build !== build) return;
      }
      for (let slot = 0; slot < size; slot++) starts[slot + 1]! += starts[slot]!;
      const ends = starts.slice(0, size);
      const docIds = new Uint32Array(starts[size]!);
      for (const _ of this.passSteps(build, documents, (slots, docId) => {
        // A document written between the passes is skipped (settled at the end): the others hold what they held.
        for (let k = 0; k < slots.length; k++) if (slots[k]! < size) docIds[ends[slots[k]!]!++] = docId;
      })) {
        yield;
        if (this.build !== build) return;
      }
      const lists: (RoaringBitmap32 | undefined)[] = new Array(size);
      let made = 0;
      for (let slot = 0; slot < size; slot++) {
        if (ends[slot] === starts[slot]) continue;
        lists[slot] = new RoaringBitmap32(docIds.subarray(starts[slot]!, ends[slot]!));
        made += ends[slot]! - starts[slot]! + 64;
        if (made >= SLICE_POLICY.documentsPerStep * 16) {
          made = 0;
          yield;
          if (this.build !== build) return;
        }
      }
      for (const [docId, touched] of build.touched) {
        // Out of every list its versions may have been read into, then into those of what it holds now.
        for (const slot of touched) lists[slot]?.remove(docId);
        if (!this.documents.has(docId)) continue;
        for (const slot of this.slotsOf(docId)) {
          const list = lists[slot];
          if (list === undefined) lists[slot] = new RoaringBitmap32([docId]);
          else list.add(docId);
        }
      }
      for (const list of lists) list?.runOptimize();
      this.lists = lists;
    } finally {
      if (this.build === build) this.build = null;
    }
  }

  /**
   * One pass of the build over `documents` (a yield every SLICE_POLICY.documentsPerStep): `visit` gets
   * each document's slots, but for the documents written since the build started (settled at its end).
   */
  private *passSteps(build: PrefixBuild, documents: Uint32Array, visit: (slots: readonly number[], docId: number) => void): Generator<void, void, unknown> {
    const offsets = new PassOffsets(this.forward, documents);
    for (let index = 0; index < documents.length; index++) {
      if (stepEndsAt(index)) {
        yield;
        offsets.resume();
      }
      const docId = documents[index]!;
      const offset = offsets.at(index);
      if (offset < 0 || build.touched.has(docId)) continue;
      visit(this.slotsAt(this.forward.arena, offset), docId);
    }
  }

  /** Nothing to defer: searches never build it (they union the words' lists until it is built). */
  deferBuilds(): void {}

  /** Bytes held (bitmaps by their portable size, ~24 bytes a slot besides). */
  get byteLength(): number {
    if (this.lists === null) return 0;
    let bytes = this.marks.byteLength + 8 * this.pendingCount + 8 * this.pending.length;
    for (const list of this.lists) if (list !== undefined) bytes += 24 + list.getSerializationSizeInBytes('portable');
    return bytes;
  }

  *saveSnapshotSteps(writer: SnapshotWriter): Generator<void, DerivedSnapshotPart, unknown> {
    if (this.lists === null) return null;
    this.applyAllPending();
    const lists = this.lists;
    // Every list taken now: later writes change them in place, but a write cancels the save (derived-structure.ts).
    const slots: number[] = [];
    const kept: RoaringBitmap32[] = [];
    lists.forEach((list, slot) => {
      if (list !== undefined && !list.isEmpty) {
        slots.push(slot);
        kept.push(list);
      }
    });
    const prefixes = Array.from({ length: this.prefixes.count }, (_, number) => this.prefixes.textOf(number));
    const encoded = yield* encodeBitmapsSteps(kept);
    return { prefixes: writer.addJson(prefixes), limit: this.limit, slots: writer.add(Uint32Array.from(slots)),
      listBytes: writer.add(encoded.bytes), listEnds: writer.add(encoded.ends) };
  }

  restoreSnapshot(reader: SnapshotReader, part: DerivedSnapshotPart): void {
    if (part === null || !this.on) return;
    const prefixes = reader.json(part['prefixes'] as number);
    const slots = reader.uint32(part['slots'] as number);
    let decoded: RoaringBitmap32[];
    try {
      decoded = decodeBitmaps(reader.bytes(part['listBytes'] as number), reader.uint32(part['listEnds'] as number));
    } catch (cause) {
      throw new SnapshotFormatError(`prefix postings: ${(cause as Error).message}`);
    }
    if (part['limit'] !== this.limit || !Array.isArray(prefixes) || prefixes.some((prefix) => typeof prefix !== 'string')
      || slots.length !== decoded.length) throw new SnapshotFormatError('prefix postings');
    // The saved numbers, as this shard's (numbered afresh at restore: the same prefix may have another number here).
    const numbers = (prefixes as string[]).map((prefix) => this.prefixes.intern(prefix));
    const lists: (RoaringBitmap32 | undefined)[] = [];
    for (let k = 0; k < slots.length; k++) {
      const saved = Math.floor(slots[k]! / this.limit);
      if (saved >= numbers.length) throw new SnapshotFormatError('prefix postings slot');
      lists[numbers[saved]! * this.limit + (slots[k]! % this.limit)] = decoded[k];
    }
    this.lists = lists;
  }
}
