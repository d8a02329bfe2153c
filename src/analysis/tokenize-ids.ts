// The indexing tokenizer when the shard wants word ids rather than words: tokenizeInto's words and
// positions (a unit test holds them equal), each word turned into its id by a WordInterner. An
// ASCII text with the default classes is scanned once, each word lowercased and hashed on the way,
// so a word the shard already knows is found without a string made for it (most of a document's
// words: the per-word string and its Map lookup were the largest cost of indexing). Other texts,
// and indexes with stop words, go through tokenizeInto.
import { ASCII_CLASSES, CharClass, defaultClassifier, HARD_DISTANCE, scanAsciiSeparators, SOFT_DISTANCE, type CharClassifier } from './separators.js';
import { MAX_POSITION, MAX_WORD_BYTES, tokenizeInto } from './tokenizer.js';
import { asciiLower, extendWordHash, PREFIX_UNITS, WORD_HASH_SEED } from './word-hash.js';

export interface WordInterner {
  /** The word's id, interning it when new. */
  intern(word: string): number;
  /**
   * The id of the lowercase of text[start, end) (ASCII), -1 when unknown; `hash` and `low`/`high` are
   * that lowercase's wordHash and wordPrefix (word-hash.ts).
   */
  findAsciiLower(text: string, start: number, end: number, hash: number, low: number, high: number): number;
  /** findAsciiLower, interning the word when new. */
  internAsciiLower(text: string, start: number, end: number, hash: number, low: number, high: number): number;
}

/**
 * tokenizeIdsInto's scratch, reused text after text. Owner: whoever tokenizes (a shard's
 * DocumentTokenScratch, document-tokens.ts), one call at a time. Size: the largest text's words seen
 * so far (the fallback's strings are let go at the end of each call; the unknown words' table grows
 * by doubling, six int32 a word).
 */
export class TokenizeScratch {
  /** tokenizeInto's words of the fallback path, emptied after each call. */
  readonly words: string[] = [];
  /** The ASCII scan's unknown words, as (token index, start, end, hash, low, high): interned once the text proved ASCII. */
  unknown = new Int32Array(96);
}

const UNKNOWN_FIELDS = 6;

/** Appends the ids of the text's words and their positions; returns the next free position (as tokenizeInto). */
export function tokenizeIdsInto(text: string, firstPosition: number, classify: CharClassifier, interner: WordInterner,
  ids: number[], positions: number[], scratch: TokenizeScratch, skip?: ReadonlySet<string>): number {
  if (classify === defaultClassifier && (skip === undefined || skip.size === 0)) {
    const next = asciiTokenizeIdsInto(text, firstPosition, interner, ids, positions, scratch);
    if (next >= 0) return next;
  }
  const words = scratch.words;
  words.length = 0;
  const next = tokenizeInto(text, firstPosition, classify, words, positions, skip);
  for (let k = 0; k < words.length; k++) ids.push(interner.intern(words[k]!));
  words.length = 0;
  return next;
}

/**
 * asciiTokenizeInto (tokenizer.ts) producing ids: -1 (nothing appended, nothing interned) at the
 * text's first non-ASCII character. Unknown words are interned only at the end, so an abandoned
 * text leaves no word behind.
 */
function asciiTokenizeIdsInto(text: string, firstPosition: number, interner: WordInterner, ids: number[], positions: number[], scratch: TokenizeScratch): number {
  let unknown = scratch.unknown;
  const idsBefore = ids.length;
  const positionsBefore = positions.length;
  const abandon = () => {
    ids.length = idsBefore;
    positions.length = positionsBefore;
    return -1;
  };
  let unknownCount = 0;
  const length = text.length;
  let position = firstPosition;
  let seenWord = false;
  let pendingDistance = 0;
  let index = 0;
  while (index < length) {
    const start = index;
    const firstCode = text.charCodeAt(index);
    if (firstCode >= 128) return abandon();
    const firstClass = ASCII_CLASSES[firstCode]!;
    index++;
    if (firstClass !== CharClass.Word) {
      const scanned = scanAsciiSeparators(text, index, firstClass === CharClass.Hard);
      if (scanned < 0) return abandon();
      index = scanned >>> 1;
      const distance = (scanned & 1) === 1 ? HARD_DISTANCE : SOFT_DISTANCE;
      if (distance > pendingDistance) pendingDistance = distance;
      continue;
    }
    // wordHash and wordPrefix of the lowercase word, folded as it is scanned.
    const firstLower = asciiLower(firstCode);
    let hash = extendWordHash(WORD_HASH_SEED, firstLower);
    let low = firstLower;
    let high = 0;
    for (; index < length; index++) {
      const code = text.charCodeAt(index);
      if (code >= 128) return abandon();
      if (ASCII_CLASSES[code] !== CharClass.Word) break;
      const lower = asciiLower(code);
      hash = extendWordHash(hash, lower);
      const k = index - start;
      if (k < 4) low = (low << 8) | lower;
      else if (k < PREFIX_UNITS) high = (high << 8) | lower;
    }
    high |= Math.min(index - start, 255) << 24;
    if (seenWord) position += pendingDistance;
    seenWord = true;
    pendingDistance = 0;
    if (position >= MAX_POSITION) break;
    // An ASCII word's UTF-8 length is its length.
    if (index - start > MAX_WORD_BYTES) continue;
    const id = interner.findAsciiLower(text, start, index, hash, low, high);
    if (id < 0) {
      const at = unknownCount++ * UNKNOWN_FIELDS;
      if (at + UNKNOWN_FIELDS > unknown.length) {
        const grown = new Int32Array(unknown.length * 2);
        grown.set(unknown);
        scratch.unknown = unknown = grown;
      }
      unknown[at] = ids.length;
      unknown[at + 1] = start;
      unknown[at + 2] = index;
      unknown[at + 3] = hash;
      unknown[at + 4] = low;
      unknown[at + 5] = high;
    }
    ids.push(id);
    positions.push(position);
  }
  // In text order: a word met twice is interned by its first occurrence and found by the second.
  for (let k = 0; k < unknownCount; k++) {
    const at = k * UNKNOWN_FIELDS;
    ids[unknown[at]!] = interner.internAsciiLower(text, unknown[at + 1]!, unknown[at + 2]!, unknown[at + 3]!, unknown[at + 4]!, unknown[at + 5]!);
  }
  return seenWord ? position + HARD_DISTANCE : firstPosition;
}
