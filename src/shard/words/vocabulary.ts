// Words of one shard: interned ids, posting lists (word -> documents) and the sorted lexicon.
// Additions are buffered as (word, document) pairs in one typed array and applied by word, with one
// addMany of a typed array per word, when a list is read, a document removed, or the buffer full:
// one native call per token was most of the cost of indexing.
import roaring from 'roaring';
import type { WordInterner } from '../../analysis/tokenize-ids.js';
import { Lexicon } from './lexicon.js';
import { finishSteps, SLICE_POLICY, stepEndsEvery } from '../sliced-jobs.js';
import { WordTable } from './word-table.js';
import type { SerializedBitmaps } from '../snapshot/bitmap-list-codec.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const EMPTY = new RoaringBitmap32();
const INITIAL_PENDING = 1 << 12;
/** Buffer bound (in pair entries: 32 MiB), so a bulk load of a whole index never holds every pair at once. */
const MAX_PENDING = 1 << 23;
/** Below this many pairs a flush adds one by one (a sort by word would cost more). */
const FEW_PAIRS = 1 << 10;

export class Vocabulary implements WordInterner {
  /** word <-> id; the indexing tokenizer looks words up in it without making strings (word-table.ts). */
  private readonly table = new WordTable();
  private readonly words: readonly string[] = this.table.words;
  /** undefined: not decoded yet from `serialized` (a restored snapshot); see posting(). */
  private readonly postings: (RoaringBitmap32 | undefined)[] = [];
  private serialized: SerializedBitmaps | null = null;
  /** Buffered additions: (wordId, docId) pairs. */
  private pending = new Uint32Array(INITIAL_PENDING);
  private pendingLength = 0;
  readonly lexicon = new Lexicon();
  /** Told of each word whose posting list gets its first document (or a first one again), as additions are applied (the shard's caches). */
  onFirstDocument: ((wordId: number) => void) | null = null;

  idOf(word: string): number | undefined {
    return this.table.get(word);
  }

  wordOf(id: number): string {
    return this.words[id]!;
  }

  /** Documents holding the word; an empty bitmap for an unknown id. Do not mutate. */
  docs(id: number): RoaringBitmap32 {
    if (this.pendingLength > 0) this.flush();
    return id < this.words.length ? this.posting(id) : EMPTY;
  }

  /** The word's posting list, decoded from the snapshot on first use. */
  private posting(id: number): RoaringBitmap32 {
    let posting = this.postings[id];
    if (posting === undefined) {
      posting = this.serialized!.at(id);
      this.postings[id] = posting;
    }
    return posting;
  }

  docsOfWord(word: string): RoaringBitmap32 {
    const id = this.table.get(word);
    return id === undefined ? EMPTY : this.docs(id);
  }

  intern(word: string): number {
    return this.table.get(word) ?? this.addWord(word, undefined);
  }

  findAsciiLower(text: string, start: number, end: number, hash: number, low: number, high: number): number {
    return this.table.findAsciiLower(text, start, end, hash, low, high);
  }

  internAsciiLower(text: string, start: number, end: number, hash: number, low: number, high: number): number {
    const id = this.table.findAsciiLower(text, start, end, hash, low, high);
    return id >= 0 ? id : this.addWord(text.slice(start, end).toLowerCase(), hash);
  }

  private addWord(word: string, hash: number | undefined): number {
    const id = this.table.add(word, hash);
    this.postings.push(new RoaringBitmap32());
    this.lexicon.add(word);
    return id;
  }

  addDocument(id: number, docId: number): void {
    if (this.pendingLength === this.pending.length) {
      if (this.pendingLength >= MAX_PENDING) this.flush();
      else {
        const grown = new Uint32Array(this.pending.length * 2);
        grown.set(this.pending);
        this.pending = grown;
      }
    }
    this.pending[this.pendingLength++] = id;
    this.pending[this.pendingLength++] = docId;
  }

  /** Words whose posting list empties stay interned (ids are referenced by the forward index); derivations skip them. */
  removeDocument(id: number, docId: number): void {
    if (this.pendingLength > 0) this.flush();
    if (id < this.words.length) this.posting(id).remove(docId);
  }

  /** Applies every buffered addition. */
  flush(): void {
    const pending = this.pending;
    const length = this.pendingLength;
    if (length === 0) return;
    this.pendingLength = 0;
    // Few pairs, or few next to the vocabulary (the sort's arrays are as long as the vocabulary): one by one.
    const onFirst = this.onFirstDocument;
    if (length < FEW_PAIRS || length < this.words.length / 8) {
      for (let k = 0; k < length; k += 2) {
        const posting = this.posting(pending[k]!);
        if (onFirst !== null && posting.isEmpty) onFirst(pending[k]!);
        posting.add(pending[k + 1]!);
      }
      return;
    }
    // Counting sort by word: each word's documents keep their order (ascending in a bulk load), and
    // a document's repeats of a word stay adjacent (addMany ignores them).
    const wordCount = this.words.length;
    const starts = new Uint32Array(wordCount + 1);
    for (let k = 0; k < length; k += 2) starts[pending[k]! + 1]!++;
    for (let id = 0; id < wordCount; id++) starts[id + 1]! += starts[id]!;
    const ends = starts.slice(0, wordCount);
    const byWord = new Uint32Array(length / 2);
    for (let k = 0; k < length; k += 2) byWord[ends[pending[k]!]!++] = pending[k + 1]!;
    for (let id = 0; id < wordCount; id++) {
      const start = starts[id]!;
      const end = starts[id + 1]!;
      if (end === start) continue;
      const posting = this.posting(id);
      if (onFirst !== null && posting.isEmpty) onFirst(id);
      if (end - start === 1) posting.add(byWord[start]!);
      else posting.addMany(byWord.subarray(start, end));
    }
    if (pending.length > INITIAL_PENDING * 64 && length < pending.length / 8) this.pending = new Uint32Array(INITIAL_PENDING);
  }

  /** Frees the slack capacity posting lists keep for growth (after a bulk load). */
  trim(): void {
    this.flush();
    for (const posting of this.postings) {
      if (posting === undefined) continue; // still as the snapshot stored it (optimized then)
      posting.runOptimize();
      posting.shrinkToFit();
    }
  }

  get size(): number {
    return this.words.length;
  }

  /** Snapshot hook (shard-snapshot.ts): words by id, their postings, and the lexicon's order as word ids. */
  exportState(): VocabularyState {
    return finishSteps(this.exportStateSteps());
  }

  /** exportState in steps (a quiet-time snapshot save between searches; a write cancels it, nothing else changes the vocabulary). */
  *exportStateSteps(): Generator<void, VocabularyState> {
    this.flush();
    const lists = this.lexicon.lists();
    const sortedIds = new Uint32Array(this.lexicon.size);
    let at = 0;
    // The lexicon's lists (at most three) are disjoint and each sorted: merged here so a restore needs no sort.
    const heads = lists.map(() => 0);
    for (;;) {
      let from = -1;
      for (let k = 0; k < lists.length; k++) {
        if (heads[k]! < lists[k]!.length && (from < 0 || lists[k]![heads[k]!]! < lists[from]![heads[from]!]!)) from = k;
      }
      if (from < 0) break;
      if (stepEndsEvery(at, SLICE_POLICY.wordsPerStep)) yield;
      sortedIds[at++] = this.table.get(lists[from]![heads[from]!++]!)!;
    }
    const postings = new Array<RoaringBitmap32>(this.words.length);
    for (let id = 0; id < postings.length; id++) {
      // Decoding a list a snapshot stored costs about what serializing it does.
      if (stepEndsEvery(id, SLICE_POLICY.bitmapsPerStep)) yield;
      postings[id] = this.posting(id);
    }
    return { words: this.words, postings, sortedIds };
  }

  /** Snapshot hook: fills an empty vocabulary with words and their postings (decoded when first read). */
  importState(state: RestoredVocabulary): void {
    if (this.words.length > 0) throw new Error('importState needs an empty vocabulary');
    const { words, postings, sortedIds } = state;
    if (postings.length !== words.length) throw new Error('one posting list per word');
    this.serialized = postings;
    this.table.reserve(words.length);
    for (let id = 0; id < words.length; id++) this.table.add(words[id]!);
    this.postings.length = words.length;
    // The ids are the sorted list's word ids memo too (what Lexicon.prepareSteps would make with idOf).
    this.lexicon.adoptSorted(Array.from(sortedIds, (id) => words[id]!), new Int32Array(sortedIds.buffer, sortedIds.byteOffset, sortedIds.length));
  }
}

export interface RestoredVocabulary {
  words: readonly string[];
  postings: SerializedBitmaps;
  sortedIds: Uint32Array;
}

export interface VocabularyState {
  words: readonly string[];
  postings: readonly RoaringBitmap32[];
  /** Word ids in the lexicon's (sorted) order. */
  sortedIds: Uint32Array;
}
