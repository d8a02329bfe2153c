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
// leaves, so no remaining word of it keeps one). A prefix's lists are made when a search first needs
// them, from its words' lists (the union it would have made anyway), then kept: a full build over the
// documents cost 570 ms CPU at 100k npm rows (+62% on the pre-commit build, bench/npm-scale/build-ab.mjs),
// and only the prefixes searched need them. Kept in snapshots. ShardIndex.prefixUnions false: none kept (tests, A/B).
import roaring from 'roaring';
import type { DerivedSnapshotPart, DerivedStructure } from '../derived-structure.js';
import { tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import type { Vocabulary } from '../words/vocabulary.js';
import { EXACT_ATTRIBUTE_MARK } from '../words/derivations.js';
import type { TokenKey, TokenKeyPostings } from './token-key-postings.js';
import type { TermDerivations } from '../words/derivations.js';
import { NO_DOCUMENTS } from '../../ranking/scores/score-layers.js';
import { mapPacked } from '../../ranking/packed-arrays.js';
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

/**
 * Lists by (short prefix, key): the documents holding a word starting with the prefix in a token of
 * that key (`keyOf`, below `limit`; null: one key, every token), for the prefixes made so far. Lists
 * are indexed by prefix number * limit + key. Owner: the ShardIndex (ShardIndex.derived); size: at
 * most the postings of the prefixes' words (~10 MB for all three at 100k npm rows, all prefixes made).
 */
export class PrefixPostings implements DerivedStructure {
  /** Lists by slot (undefined: no document; an emptied list stays, empty), for the prefixes made. */
  private lists: (RoaringBitmap32 | undefined)[] = [];
  /** [prefix number]: 1 when its lists are made (and kept). */
  private made = new Uint8Array(0);
  private madeCount = 0;
  /** A document's slots of made prefixes, each once (reused: one thread, no reentrancy), and per slot the last document count that took it (slotsOf). */
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

  constructor(private readonly prefixes: ShortPrefixes, private readonly forward: ForwardIndex,
    private readonly keyOf: TokenKey | null, readonly limit: number) {}

  /** False: every list is dropped and none kept (answers are undefined); true again: made anew as searches need them. */
  get enabled(): boolean {
    return this.on;
  }

  set enabled(on: boolean) {
    this.on = on;
    if (!on) {
      this.lists = [];
      this.made = new Uint8Array(0);
      this.madeCount = 0;
      this.pending = [];
      this.pendingCount = 0;
    }
  }

  /** Never: a prefix's lists are made when first needed, then follow the writes. */
  get needsBuild(): boolean {
    return false;
  }

  *buildSteps(): Generator<void, void, unknown> {}

  /** Nothing to defer: nothing is built. */
  deferBuilds(): void {}

  /**
   * The documents holding a word that starts with `prefix` (or its marked spelling) in a token of
   * `key` (NO_DOCUMENTS when none): the structure's own list, updated in place by later writes
   * (read-only; what holds it is dropped by any write to one of the prefix's words, as what holds a
   * word's own posting list is). Undefined when not kept: switched off, another length, or not made
   * yet and no `make` (the prefix's lists by key, made now from its words' lists: new bitmaps, given
   * to this structure).
   */
  listOf(prefix: string, key = 0, make?: () => (RoaringBitmap32 | undefined)[]): RoaringBitmap32 | undefined {
    if (!this.on || !PREFIX_POSTING_LENGTHS.includes(prefix.length)) return undefined;
    this.prefixes.table();
    const number = this.prefixes.numberOf(prefix);
    if (number === undefined) return undefined;
    if (this.made[number] !== 1) {
      if (make === undefined) return undefined;
      const lists = make();
      if (this.made.length <= number) {
        const grown = new Uint8Array(Math.max(this.prefixes.count, this.made.length * 2));
        grown.set(this.made);
        this.made = grown;
      }
      this.made[number] = 1;
      this.madeCount++;
      for (let k = 0; k < this.limit; k++) this.lists[number * this.limit + k] = lists[k];
    }
    const slot = number * this.limit + key;
    this.applyPending(slot);
    return this.lists[slot] ?? NO_DOCUMENTS;
  }

  /** listOf by key, for keys below the limit (a KeyedLists, ranking/keyed-lists.ts); `make` as listOf's. */
  keyedLists(prefix: string, make?: () => (RoaringBitmap32 | undefined)[]): RoaringBitmap32[] | undefined {
    if (this.listOf(prefix, 0, make) === undefined) return undefined;
    return Array.from({ length: this.limit }, (_, key) => this.listOf(prefix, key)!);
  }

  /**
   * The rank / position lists (`postings`' keys) of a short prefix term whose zero-typo level is this
   * shard's kept prefix list and who stands for those words alone (TermDerivations.keptPrefix), made
   * from `postings` when first asked; undefined otherwise.
   */
  listsOfTerm(derivations: TermDerivations, postings: TokenKeyPostings): RoaringBitmap32[] | undefined {
    const kept = derivations.keptPrefix;
    if (kept === undefined || kept.words !== derivations.words.length || postings.limit !== this.limit) return undefined;
    return this.keyedLists(kept.prefix, () => {
      const made: RoaringBitmap32[] = [];
      const byKey = postings.keyedUnions(mapPacked(derivations.words, (word) => word.wordId), this.limit, made);
      // A key's one list is a word's own: copied (these lists change in place with the writes).
      return Array.from({ length: this.limit }, (_, key) => {
        const list = byKey.at(key)!;
        return list.isEmpty ? undefined : made.includes(list) ? list : list.clone();
      });
    });
  }

  /** Adds the slot's pending documents to its list. */
  private applyPending(slot: number): void {
    const docIds = this.pending[slot];
    if (docIds === undefined) return;
    this.pending[slot] = undefined;
    this.pendingCount -= docIds.length;
    const list = this.lists[slot];
    if (list === undefined) this.lists[slot] = new RoaringBitmap32(docIds);
    else list.addMany(docIds);
  }

  private applyAllPending(): void {
    for (let slot = 0; slot < this.pending.length; slot++) this.applyPending(slot);
    this.pending = [];
  }

  /** The slots of made prefixes of the document's tokens (it is in the forward index), each once (this.slots, reused). */
  private slotsOf(docId: number): readonly number[] {
    const { keyOf, limit, slots, made } = this;
    slots.length = 0;
    const offset = this.forward.offsetOf(docId);
    if (offset < 0) return slots;
    const data = this.forward.arena;
    const table = this.prefixes.table();
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
      const at = data[k]! * PREFIXES_PER_WORD;
      for (let p = 0; p < PREFIXES_PER_WORD; p++) {
        const number = table[at + p]!;
        if (number < 0 || made[number] !== 1) continue;
        const key = keyOf === null ? 0 : keyOf(data, offset, data[k + 1]!);
        if (key >= limit) continue;
        const slot = number * limit + key;
        if (marks[slot] === mark) continue;
        marks[slot] = mark;
        slots.push(slot);
      }
    }
    return slots;
  }

  noteWrite(docId: number, added: boolean): void {
    if (this.madeCount === 0) return;
    const slots = this.slotsOf(docId);
    const lists = this.lists;
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

  /** Bytes held (bitmaps by their portable size, ~24 bytes a slot besides). */
  get byteLength(): number {
    let bytes = this.marks.byteLength + this.made.byteLength + 8 * this.pendingCount + 8 * this.pending.length;
    for (const list of this.lists) if (list !== undefined) bytes += 24 + list.getSerializationSizeInBytes('portable');
    return bytes;
  }

  /** Prefixes made so far (tests, memory reports). */
  get prefixesMade(): number {
    return this.madeCount;
  }

  *saveSnapshotSteps(writer: SnapshotWriter): Generator<void, DerivedSnapshotPart, unknown> {
    if (this.madeCount === 0) return null;
    this.applyAllPending();
    const lists = this.lists;
    // Every list taken now: later writes change them in place, but a write cancels the save (derived-structure.ts).
    const madePrefixes: string[] = [];
    const slots: number[] = [];
    const kept: RoaringBitmap32[] = [];
    for (let number = 0; number < this.made.length; number++) {
      if (this.made[number] !== 1) continue;
      for (let key = 0; key < this.limit; key++) {
        const list = lists[number * this.limit + key];
        if (list === undefined || list.isEmpty) continue;
        slots.push(madePrefixes.length * this.limit + key);
        kept.push(list);
      }
      madePrefixes.push(this.prefixes.textOf(number));
    }
    const encoded = yield* encodeBitmapsSteps(kept);
    return { prefixes: writer.addJson(madePrefixes), limit: this.limit, slots: writer.add(Uint32Array.from(slots)),
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
    // The saved prefixes, numbered as this shard numbers them.
    const numbers = (prefixes as string[]).map((prefix) => this.prefixes.intern(prefix));
    this.made = new Uint8Array(Math.max(1, this.prefixes.count));
    for (const number of numbers) this.made[number] = 1;
    this.madeCount = numbers.length;
    for (let k = 0; k < slots.length; k++) {
      const saved = Math.floor(slots[k]! / this.limit);
      if (saved >= numbers.length) throw new SnapshotFormatError('prefix postings slot');
      this.lists[numbers[saved]! * this.limit + (slots[k]! % this.limit)] = decoded[k];
    }
  }
}
