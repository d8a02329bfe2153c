// Reading a document's forward-index entry against the query: where each term occurs (the
// DocMatchProfile the per-document ranking rules score), and whether a phrase occurs at all.
import type roaring from 'roaring';
import { addOccurrence, packOccurrence, type DocMatchProfile } from '../../ranking/match-profile.js';
import type { WordLookupTables } from '../../ranking/search-scratch.js';
import { fieldRankAt, tokenCountAt, tokensStartAt, type ForwardIndex } from './forward-index.js';

/**
 * The tables a WordLookup reuses from one search to the next (in the search's scratch,
 * SearchScratch.wordLookup): allocating and filling a vocabulary-sized array per query showed in profiles.
 */
export type { WordLookupTables };

export function emptyWordLookupTables(): WordLookupTables {
  return { entries: new Uint8Array(0), members: new Int32Array(0), touched: new Int32Array(1024), inUse: false };
}

/**
 * Terms a lookup tells apart: a word's entry is one byte (a query has at most MAX_QUERY_TERMS = 10
 * terms). Bytes, not 32-bit entries: filling a short prefix's thousands of words wrote all over a
 * table four times as large (200 KiB per 50,000 words), missing the caches.
 */
export const MAX_LOOKUP_TERMS = 32;

/** A word's entry: term * 8 + typos * 2 + (exact ? 0 : 1). */
function entryOf(term: number, typos: number, exact: boolean): number {
  return term * 8 + typos * 2 + (exact ? 0 : 1);
}

function checkTerm(term: number): void {
  if (term >= MAX_LOOKUP_TERMS) throw new RangeError(`a word lookup holds at most ${MAX_LOOKUP_TERMS} terms (term ${term})`);
}

/**
 * Which terms each word stands for, read once per token of every scored document, so it is a
 * typed table indexed by word id rather than a Map. Most tokens of a document are no query word: a
 * bit set over the vocabulary (6 KiB per 50,000 words; the entry table takes 50 KiB, and took 200
 * KiB with 32-bit entries, missing the cache) tells those apart first.
 */
export class WordLookup {
  /** Bit wordId of the set: the word stands for some term. */
  readonly members: Int32Array;
  /**
   * entries[wordId], valid only for members: the word's first term (entryOf). Entries of other words
   * are left over from other lookups (only the member bits are cleared on release).
   */
  readonly entries: Uint8Array;
  /** The other terms' entries of the rare words standing for several terms; null while there is none. */
  more: Map<number, number[]> | null = null;
  /** Word ids with their bit set (touched[0, touchedCount)), to clear the shared set on release. */
  private touched: Int32Array;
  private touchedCount = 0;
  /** The reused tables this lookup holds (null: its own). */
  private readonly shared: WordLookupTables | null;

  /**
   * The tables are `tables` when given and free (the search's scratch), else the lookup's own. Call release().
   */
  constructor(vocabularySize: number, tables: WordLookupTables | null = null) {
    this.shared = tables !== null && !tables.inUse ? tables : null;
    const shared = this.shared;
    if (shared !== null) {
      if (shared.entries.length < vocabularySize) {
        shared.entries = new Uint8Array(Math.max(vocabularySize, shared.entries.length * 2));
        shared.members = new Int32Array((shared.entries.length >>> 5) + 1);
      }
      shared.inUse = true;
      this.entries = shared.entries;
      this.members = shared.members;
      this.touched = shared.touched;
    } else {
      this.entries = new Uint8Array(vocabularySize);
      this.members = new Int32Array((vocabularySize >>> 5) + 1);
      this.touched = new Int32Array(16);
    }
  }

  add(wordId: number, term: number, typos: number, exact: boolean): void {
    checkTerm(term);
    const entry = entryOf(term, typos, exact);
    if (this.has(wordId)) {
      const more = (this.more ??= new Map());
      const others = more.get(wordId);
      if (others === undefined) more.set(wordId, [entry]);
      else others.push(entry);
      return;
    }
    if (this.touchedCount === this.touched.length) this.grow(this.touchedCount + 1);
    this.members[wordId >>> 5] |= 1 << (wordId & 31);
    this.entries[wordId] = entry;
    this.touched[this.touchedCount++] = wordId;
  }

  /**
   * add() for every word of a term's derivations (`flags`: typos * 2 + (exact ? 0 : 1) per word), in
   * one loop over typed arrays: a short prefix adds thousands of words, one add() call and one slot
   * object each cost a prefix query a tenth of its time.
   */
  addTerm(wordIds: Int32Array, flags: Uint8Array, term: number): void {
    checkTerm(term);
    if (this.touchedCount + wordIds.length > this.touched.length) this.grow(this.touchedCount + wordIds.length);
    const { members, entries, touched } = this;
    let count = this.touchedCount;
    const base = term * 8;
    for (let k = 0; k < wordIds.length; k++) {
      const wordId = wordIds[k]!;
      const bit = 1 << (wordId & 31);
      const word = wordId >>> 5;
      if ((members[word]! & bit) !== 0) {
        this.touchedCount = count;
        this.add(wordId, term, flags[k]! >> 1, (flags[k]! & 1) === 0);
        count = this.touchedCount;
        continue;
      }
      members[word] = members[word]! | bit;
      entries[wordId] = base + flags[k]!;
      touched[count++] = wordId;
    }
    this.touchedCount = count;
  }

  private grow(needed: number): void {
    const touched = new Int32Array(Math.max(needed, this.touched.length * 2));
    touched.set(this.touched);
    this.touched = touched;
    if (this.shared !== null) this.shared.touched = touched;
  }

  /** Gives the shared tables back (cleared); the lookup must not be used afterwards. */
  release(): void {
    if (this.shared === null) return;
    const { members, touched } = this;
    for (let k = 0; k < this.touchedCount; k++) members[touched[k]! >>> 5] = 0;
    this.touchedCount = 0;
    this.more = null;
    this.shared.inUse = false;
  }

  /** Whether the word stands for some term (false for ids past the vocabulary the lookup was made for). */
  has(wordId: number): boolean {
    const word = wordId >>> 5;
    return word < this.members.length && (this.members[word]! & (1 << (wordId & 31))) !== 0;
  }
}

/** A term's derivations as addTerm takes them: word ids, and typos * 2 + (exact ? 0 : 1) per word. */
export function lookupArrays(words: readonly { wordId: number; typos: number; exact: boolean }[]): { wordIds: Int32Array; flags: Uint8Array } {
  const wordIds = new Int32Array(words.length);
  const flags = new Uint8Array(words.length);
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!;
    wordIds[k] = word.wordId;
    flags[k] = word.typos * 2 + (word.exact ? 0 : 1);
  }
  return { wordIds, flags };
}

export interface PhraseOfTerm {
  term: number;
  /** Word ids of the phrase; null = stop word gap. */
  wordIds: (number | null)[];
  /**
   * Set for a run of words standing for a word term (a split, a multi-word synonym: a
   * PhraseAlternative): the documents holding it (the others are not read for it), and each
   * occurrence's typos, not exact, spanning the run. Absent for a quoted phrase (the term itself:
   * every document of the term holds it; its occurrences exact, its length the term's).
   */
  alternative?: { docs: roaring.RoaringBitmap32; typos: number };
}

/**
 * Fills `into` (reused between documents to spare the garbage collector) with the document's
 * occurrences of each term, and returns it.
 */
export function buildProfile(forward: ForwardIndex, docId: number, words: WordLookup, phrases: readonly PhraseOfTerm[],
  into: DocMatchProfile): DocMatchProfile {
  return buildProfileAt(forward.arena, forward.offsetOf(docId), docId, words, phrases, into);
}

/**
 * The arena offsets of the documents (-1 when absent), in one loop of independent loads: the CPU
 * overlaps their cache misses (the offset table is far bigger than the caches).
 */
export function documentOffsets(forward: ForwardIndex, docIds: Uint32Array, into?: Int32Array): Int32Array {
  // `into` when long enough (a reader's array reused run after run): entries past docIds.length are left as they were.
  const offsets = into !== undefined && into.length >= docIds.length ? into : new Int32Array(docIds.length);
  for (let i = 0; i < docIds.length; i++) offsets[i] = forward.offsetOf(docIds[i]!);
  return offsets;
}

/** Documents whose entries touchEntries loads ahead at once: their lines stay in the caches until read. */
export const TOUCH_AHEAD = 256;

/**
 * Loads every cache line of the entries of offsets[from, to) before their profiles are built: first
 * each header (where the entry ends), then each line, in loops whose loads do not depend on each
 * other, so the CPU overlaps the misses, where building one profile after the other waits for each
 * in turn (the arena is far bigger than the caches). One loop doing all three for each document in
 * turn saved half as much: its loads wait on each other (offset, then header, then the rest).
 */
export function touchEntries(data: Uint32Array, offsets: Int32Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const offset = offsets[i]!;
    if (offset >= 0) sum += data[offset + 1]!;
  }
  for (let i = from; i < to; i++) {
    const offset = offsets[i]!;
    if (offset < 0) continue;
    // The entry holds 2 + fieldCount + 2 * tokenCount words; 16 words are a 64-byte line.
    const end = tokensStartAt(data, offset) + tokenCountAt(data, offset) * 2;
    for (let at = offset + 16; at < end; at += 16) sum += data[at]!;
  }
  // The sum of what was loaded: the caller keeps it (SearchScratch.touchSink), so no load is dead code.
  return sum;
}

/** buildProfile with the document's arena offset already known (-1: absent). */
export function buildProfileAt(data: Uint32Array, offset: number, docId: number, words: WordLookup, phrases: readonly PhraseOfTerm[],
  into: DocMatchProfile): DocMatchProfile {
  into.docId = docId;
  const counts = into.counts;
  // A loop, not fill(): a profile has a handful of terms, and the builtin's call cost more than that.
  for (let term = 0; term < counts.length; term++) counts[term] = 0;
  if (offset < 0) return into;
  const occurrences = into.occurrences;
  const start = tokensStartAt(data, offset);
  const end = start + tokenCountAt(data, offset) * 2;
  const members = words.members;
  const memberWords = members.length;
  const entries = words.entries;
  const more = words.more;
  // The set test inlined (this loop runs for every token of every scored document; most are no query word).
  for (let at = start; at < end; at += 2) {
    const wordId = data[at]!;
    const memberWord = wordId >>> 5;
    if (memberWord >= memberWords || (members[memberWord]! & (1 << (wordId & 31))) === 0) continue;
    const packed = data[at + 1]!;
    const field = packed >>> 16;
    const position = packed & 0xffff;
    const rank = fieldRankAt(data, offset, field);
    const entry = entries[wordId]!;
    // addOccurrence inlined.
    const term = entry >> 3;
    const list = occurrences[term]!;
    const count = counts[term]!;
    const occurrence = packOccurrence(field, position, rank, (entry >> 1) & 3, (entry & 1) === 0);
    if (count < list.length) list[count] = occurrence;
    else list.push(occurrence);
    counts[term] = count + 1;
    if (more === null) continue;
    const others = more.get(wordId);
    if (others === undefined) continue;
    for (const other of others) addOccurrence(into, other >> 3, packOccurrence(field, position, rank, (other >> 1) & 3, (other & 1) === 0));
  }
  for (let p = 0; p < phrases.length; p++) {
    const phrase = phrases[p]!;
    const alternative = phrase.alternative;
    if (alternative === undefined) {
      for (const key of phraseStarts(data, offset, phrase.wordIds)) {
        const field = key >>> 16;
        addOccurrence(into, phrase.term, packOccurrence(field, key & 0xffff, fieldRankAt(data, offset, field), 0, true));
      }
      continue;
    }
    if (!alternative.docs.has(docId)) continue;
    const before = counts[phrase.term]!;
    const span = phrase.wordIds.length - 1;
    for (const key of phraseStarts(data, offset, phrase.wordIds)) {
      const field = key >>> 16;
      addOccurrence(into, phrase.term, packOccurrence(field, key & 0xffff, fieldRankAt(data, offset, field), alternative.typos, false, span));
    }
    // The term's words' occurrences came first: the list is kept in field then position order.
    if (before > 0 && counts[phrase.term]! > before) sortOccurrences(occurrences[phrase.term]!, counts[phrase.term]!);
  }
  return into;
}

/** Sorts list[0, count) in place: an insertion sort for the usual few, a typed sort past that (a word repeated thousands of times). */
function sortOccurrences(list: number[], count: number): void {
  if (count > 32) {
    const sorted = Float64Array.from(list.slice(0, count)).sort();
    for (let k = 0; k < count; k++) list[k] = sorted[k]!;
    return;
  }
  for (let i = 1; i < count; i++) {
    const value = list[i]!;
    let j = i - 1;
    while (j >= 0 && list[j]! > value) {
      list[j + 1] = list[j]!;
      j--;
    }
    list[j + 1] = value;
  }
}

/** Tokens are stored by field, then position: a field's are one run, found by two binary searches. */
export function fieldWordCount(forward: ForwardIndex, docId: number, field: number): number {
  const data = forward.arena;
  const offset = forward.offsetOf(docId);
  if (offset < 0) return 0;
  const tokenCount = tokenCountAt(data, offset);
  const start = tokensStartAt(data, offset);
  return firstTokenOfFieldAfter(data, start, tokenCount, field) - firstTokenOfFieldAfter(data, start, tokenCount, field - 1);
}

/** Index of the first token whose field is above `field` (tokenCount when none). */
function firstTokenOfFieldAfter(data: Uint32Array, start: number, tokenCount: number, field: number): number {
  let low = 0;
  let high = tokenCount;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (data[start + middle * 2 + 1]! >>> 16 <= field) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function documentHasPhrase(forward: ForwardIndex, docId: number, wordIds: (number | null)[]): boolean {
  const offset = forward.offsetOf(docId);
  return offset >= 0 && phraseStarts(forward.arena, offset, wordIds, true).length > 0;
}

/**
 * Keys (field << 16 | position) where the phrase starts, ascending: the keys of the first word's
 * tokens such that each later word i (null: any word, a stop word's gap) has a token at key + i in
 * the same field. Tokens are stored in field then position order, so each check scans forward from
 * the start: a document costs its tokens plus, per start, the tokens up to where the phrase fails
 * (a phrase of 200 times "the" used to cost every token times every phrase word, per candidate).
 */
export function phraseStarts(data: Uint32Array, offset: number, wordIds: (number | null)[], firstOnly = false): number[] {
  const found: number[] = [];
  const first = wordIds[0];
  if (first === null || first === undefined) return found;
  const tokenCount = tokenCountAt(data, offset);
  const start = tokensStartAt(data, offset);
  for (let k = 0; k < tokenCount; k++) {
    if (data[start + k * 2]! !== first) continue;
    const key = data[start + k * 2 + 1]!;
    if (phraseFollows(data, start, tokenCount, k, key, wordIds)) {
      found.push(key);
      if (firstOnly) break;
    }
  }
  return found;
}

/** Whether every later word of the phrase has a token at key + i (tokens ascending by key from index k). */
function phraseFollows(data: Uint32Array, start: number, tokenCount: number, k: number, key: number, wordIds: (number | null)[]): boolean {
  let cursor = k + 1;
  for (let i = 1; i < wordIds.length; i++) {
    const wordId = wordIds[i];
    if (wordId === null) continue;
    // Same field and position + i: the key plus i, unless the position would overflow into the field.
    if ((key & 0xffff) + i > 0xffff) return false;
    const target = key + i;
    while (cursor < tokenCount && data[start + cursor * 2 + 1]! < target) cursor++;
    let at = cursor;
    while (at < tokenCount && data[start + at * 2 + 1]! === target && data[start + at * 2]! !== wordId) at++;
    if (at >= tokenCount || data[start + at * 2 + 1]! !== target) return false;
  }
  return true;
}
