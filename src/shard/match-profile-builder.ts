// Reading a document's forward-index entry against the query: where each term occurs (the
// DocMatchProfile the per-document ranking rules score), and whether a phrase occurs at all.
import { addOccurrence, packOccurrence, type DocMatchProfile } from '../ranking/match-profile.js';
import { fieldRankAt, tokenCountAt, tokensStartAt, type ForwardIndex } from './forward-index.js';

let sharedSlots = new Int32Array(0);
let sharedMembers = new Int32Array(0);
let sharedSlotsInUse = false;
/** The shared lookup's per-slot arrays, kept with their capacity (a short prefix adds thousands of words: growing them per query was most of a search's garbage). */
let sharedFirstEntries = new Int32Array(1024);
const sharedMoreEntries: (number[] | undefined)[] = [];
let sharedTouched = new Int32Array(1024);

/**
 * Which terms each word stands for, read once per token of every scored document, so it is a
 * typed table indexed by word id (slot, -1 = no term) rather than a Map. Most tokens of a document
 * are no query word: a bit set over the vocabulary (6 KiB per 50,000 words, where the slot table
 * takes 200 KiB and missed the cache) tells those apart first.
 */
export class WordLookup {
  private readonly slots: Int32Array;
  /** Bit wordId of the set: the word has a slot. */
  readonly members: Int32Array;
  /**
   * firstEntries[slot]: packed term * 8 + typos * 2 + (exact ? 0 : 1); moreEntries[slot]: the others,
   * for the rare word standing for several terms (an array per word was most of a query's garbage).
   * Entries from slotCount on are left over from other lookups.
   */
  firstEntries: Int32Array;
  readonly moreEntries: (number[] | undefined)[];
  private slotCount = 0;
  /** Word ids with a slot (touched[0, slotCount)), to clear the shared table on release. */
  private touched: Int32Array;
  private readonly shared: boolean;

  /**
   * The slot table is the thread's shared one when free (searches of a thread run one at a time):
   * allocating and filling a vocabulary-sized array per query showed in profiles. Call release().
   */
  constructor(vocabularySize: number) {
    this.shared = !sharedSlotsInUse;
    if (this.shared) {
      if (sharedSlots.length < vocabularySize) {
        sharedSlots = new Int32Array(Math.max(vocabularySize, sharedSlots.length * 2)).fill(-1);
        sharedMembers = new Int32Array((sharedSlots.length >>> 5) + 1);
      }
      sharedSlotsInUse = true;
      this.slots = sharedSlots;
      this.members = sharedMembers;
      this.firstEntries = sharedFirstEntries;
      this.moreEntries = sharedMoreEntries;
      this.touched = sharedTouched;
    } else {
      this.slots = new Int32Array(vocabularySize).fill(-1);
      this.members = new Int32Array((vocabularySize >>> 5) + 1);
      this.firstEntries = new Int32Array(16);
      this.moreEntries = [];
      this.touched = new Int32Array(16);
    }
  }

  add(wordId: number, term: number, typos: number, exact: boolean): void {
    let slot = this.slots[wordId]!;
    if (slot < 0) {
      slot = this.slotCount++;
      if (slot === this.firstEntries.length) this.grow();
      this.slots[wordId] = slot;
      this.members[wordId >>> 5] |= 1 << (wordId & 31);
      this.firstEntries[slot] = term * 8 + typos * 2 + (exact ? 0 : 1);
      this.moreEntries[slot] = undefined;
      this.touched[slot] = wordId;
      return;
    }
    (this.moreEntries[slot] ??= []).push(term * 8 + typos * 2 + (exact ? 0 : 1));
  }

  private grow(): void {
    const firstEntries = new Int32Array(this.firstEntries.length * 2);
    firstEntries.set(this.firstEntries);
    const touched = new Int32Array(this.touched.length * 2);
    touched.set(this.touched);
    this.firstEntries = firstEntries;
    this.touched = touched;
    if (this.shared) {
      sharedFirstEntries = firstEntries;
      sharedTouched = touched;
    }
  }

  /** Gives the shared table back (cleared); the lookup must not be used afterwards. */
  release(): void {
    if (!this.shared) return;
    for (let slot = 0; slot < this.slotCount; slot++) {
      const wordId = this.touched[slot]!;
      this.slots[wordId] = -1;
      this.members[wordId >>> 5] = 0;
      // Other lookups' arrays of several terms are not kept alive.
      if (this.moreEntries[slot] !== undefined) this.moreEntries[slot] = undefined;
    }
    this.slotCount = 0;
    sharedSlotsInUse = false;
  }

  slotOf(wordId: number): number {
    return wordId < this.slots.length ? this.slots[wordId]! : -1;
  }

  /** Whether the word has a slot (false for ids past the vocabulary the lookup was made for). */
  has(wordId: number): boolean {
    const word = wordId >>> 5;
    return word < this.members.length && (this.members[word]! & (1 << (wordId & 31))) !== 0;
  }
}

export interface PhraseOfTerm {
  term: number;
  /** Word ids of the phrase; null = stop word gap. */
  wordIds: (number | null)[];
}

/**
 * Fills `into` (reused between documents to spare the garbage collector) with the document's
 * occurrences of each term, and returns it.
 */
export function buildProfile(forward: ForwardIndex, docId: number, words: WordLookup, phrases: readonly PhraseOfTerm[],
  into: DocMatchProfile): DocMatchProfile {
  return buildProfileAt(forward.arena, forward.offsetOf(docId), docId, words, phrases, into);
}

/** Keeps the loads of documentOffsets from being optimized away. */
let offsetsTouchSum = 0;

/**
 * The arena offsets of the documents (-1 when absent), looked up in one pass that also reads a word
 * at the start and one in the middle of each entry: the loads of different documents do not depend
 * on each other, so the CPU overlaps their cache misses (offset table and arena are far bigger than
 * the caches), where building one profile after the other waits for each miss in turn. Profiles
 * then cost about half (measured on the bench's 100k movies; touching every cache line was slower).
 */
export function documentOffsets(forward: ForwardIndex, docIds: Uint32Array, into?: Int32Array): Int32Array {
  const data = forward.arena;
  // `into` when long enough (a reader's array reused run after run): entries past docIds.length are left as they were.
  const offsets = into !== undefined && into.length >= docIds.length ? into : new Int32Array(docIds.length);
  let sum = 0;
  for (let i = 0; i < docIds.length; i++) {
    const offset = forward.offsetOf(docIds[i]!);
    offsets[i] = offset;
    if (offset < 0) continue;
    // The entry holds 2 + fieldCount + 2 * tokenCount words, so offset + 1 + tokenCount is inside it.
    const tokenCount = data[offset + 1]!;
    sum += data[offset + 1 + tokenCount]!;
  }
  offsetsTouchSum = sum;
  return offsets;
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
  const firstEntries = words.firstEntries;
  const moreEntries = words.moreEntries;
  // The set test inlined (this loop runs for every token of every scored document; most are no query word).
  for (let at = start; at < end; at += 2) {
    const wordId = data[at]!;
    const memberWord = wordId >>> 5;
    if (memberWord >= memberWords || (members[memberWord]! & (1 << (wordId & 31))) === 0) continue;
    const slot = words.slotOf(wordId);
    const packed = data[at + 1]!;
    const field = packed >>> 16;
    const position = packed & 0xffff;
    const rank = fieldRankAt(data, offset, field);
    const entry = firstEntries[slot]!;
    // addOccurrence inlined.
    const term = entry >> 3;
    const list = occurrences[term]!;
    const count = counts[term]!;
    const occurrence = packOccurrence(field, position, rank, (entry >> 1) & 3, (entry & 1) === 0);
    if (count < list.length) list[count] = occurrence;
    else list.push(occurrence);
    counts[term] = count + 1;
    const more = moreEntries[slot];
    if (more === undefined) continue;
    for (const other of more) addOccurrence(into, other >> 3, packOccurrence(field, position, rank, (other >> 1) & 3, (other & 1) === 0));
  }
  for (let p = 0; p < phrases.length; p++) {
    const phrase = phrases[p]!;
    for (const key of phraseStarts(data, offset, phrase.wordIds)) {
      const field = key >>> 16;
      addOccurrence(into, phrase.term, packOccurrence(field, key & 0xffff, fieldRankAt(data, offset, field), 0, true));
    }
  }
  return into;
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
 * Keys (field << 16 | position) where the phrase starts, ascending. Tokens are stored in field then
 * position order, so the keys of each phrase word come out sorted and a start is checked by scanning.
 */
function phraseStarts(data: Uint32Array, offset: number, wordIds: (number | null)[], firstOnly = false): number[] {
  const keysOf: number[][] = wordIds.map(() => []);
  const tokenCount = tokenCountAt(data, offset);
  const start = tokensStartAt(data, offset);
  for (let k = 0; k < tokenCount; k++) {
    const wordId = data[start + k * 2]!;
    for (let i = 0; i < wordIds.length; i++) if (wordIds[i] === wordId) keysOf[i]!.push(data[start + k * 2 + 1]!);
  }
  const found: number[] = [];
  for (const key of keysOf[0]!) {
    let matches = true;
    for (let i = 1; i < wordIds.length && matches; i++) {
      if (wordIds[i] === null) continue;
      // Same field and position + i: the key plus i, unless the position would overflow into the field.
      matches = (key & 0xffff) + i <= 0xffff && keysOf[i]!.includes(key + i);
    }
    if (matches) {
      found.push(key);
      if (firstOnly) break;
    }
  }
  return found;
}
