// Splitting text into words with positions. Positions count words within one attribute; a run of
// separators advances by the largest distance in it (soft 1, hard 8), as charabia/milli do.
import { normalizeWord } from './normalize.js';
import { ASCII_CLASSES, CharClass, defaultClassifier, HARD_DISTANCE, scanAsciiSeparators, SOFT_DISTANCE, type CharClassifier } from './separators.js';

/** Meilisearch's MAX_WORD_LENGTH (500 / 2 bytes): longer words are neither indexed nor searched. */
export const MAX_WORD_BYTES = 250;
/** Meilisearch's MAX_POSITION_PER_ATTRIBUTE: words at or past this position are ignored. */
export const MAX_POSITION = 65_536;

export interface Segment {
  /** Word, or a run of separators (hard when any of its characters is hard). */
  kind: 'word' | 'soft' | 'hard';
  /** Original text of the segment. */
  text: string;
  /** UTF-16 offsets in the original text. */
  start: number;
  end: number;
}

export interface Token {
  /** Normalized word. */
  word: string;
  position: number;
  start: number;
  end: number;
}

export function* segment(text: string, classify: CharClassifier = defaultClassifier): Generator<Segment> {
  let index = 0;
  while (index < text.length) {
    const start = index;
    const firstClass = classOfCharAt(text, index, classify);
    const entry = firstClass === CharClass.Word && classify.dictionary ? dictionaryEntryAt(text, index, classify) : null;
    if (entry !== null) {
      index += entry.length;
      yield { kind: 'word', text: entry, start, end: index };
    } else if (firstClass === CharClass.Word) {
      index += charLength(text, index);
      while (index < text.length && classOfCharAt(text, index, classify) === CharClass.Word) index += charLength(text, index);
      yield { kind: 'word', text: text.slice(start, index), start, end: index };
    } else {
      let hard = firstClass === CharClass.Hard;
      index += charLength(text, index);
      while (index < text.length) {
        const charClass = classOfCharAt(text, index, classify);
        if (charClass === CharClass.Word) break;
        if (charClass === CharClass.Hard) hard = true;
        index += charLength(text, index);
      }
      yield { kind: hard ? 'hard' : 'soft', text: text.slice(start, index), start, end: index };
    }
  }
}

/**
 * The text of the longest dictionary entry (compared case-insensitively) starting at a word start and
 * ending at a word boundary, else null.
 */
function dictionaryEntryAt(text: string, index: number, classify: CharClassifier): string | null {
  let best: string | null = null;
  for (const entry of classify.dictionary!) {
    if (entry.length <= (best?.length ?? 0)) continue;
    const candidate = text.slice(index, index + entry.length);
    if (candidate.length !== entry.length || candidate.toLowerCase() !== entry.toLowerCase()) continue;
    const end = index + entry.length;
    if (end < text.length && classOfCharAt(text, end, classify) === CharClass.Word && classOfCharAt(text, end - 1, classify) === CharClass.Word) continue;
    best = candidate;
  }
  return best;
}

function charLength(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
}

function classOfCharAt(text: string, index: number, classify: CharClassifier): CharClass {
  const code = text.charCodeAt(index);
  if (code < 128) return classify(code, '');
  const char = String.fromCodePoint(text.codePointAt(index)!);
  return classify(code, char);
}

export function isIndexableWord(word: string): boolean {
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes (surrogate pairs: 4 bytes for 2 units).
  return word.length * 3 <= MAX_WORD_BYTES || Buffer.byteLength(word, 'utf8') <= MAX_WORD_BYTES;
}

export interface TokenizeResult {
  tokens: Token[];
  /** Position the next value of the same attribute starts at (after a hard separator). */
  nextPosition: number;
}

/**
 * Normalized words of one text with their positions, starting at `firstPosition`. Words over
 * MAX_WORD_BYTES are skipped but still take their position, so neighbours keep their distances.
 */
export function tokenize(text: string, firstPosition = 0, classify: CharClassifier = defaultClassifier): TokenizeResult {
  const tokens: Token[] = [];
  let position = firstPosition;
  let seenWord = false;
  let pendingDistance = 0;
  for (const piece of segment(text, classify)) {
    if (piece.kind !== 'word') {
      pendingDistance = Math.max(pendingDistance, piece.kind === 'hard' ? HARD_DISTANCE : SOFT_DISTANCE);
      continue;
    }
    if (seenWord) position += pendingDistance;
    seenWord = true;
    pendingDistance = 0;
    if (position >= MAX_POSITION) break;
    const word = normalizeWord(piece.text);
    if (isIndexableWord(word)) tokens.push({ word, position, start: piece.start, end: piece.end });
  }
  return { tokens, nextPosition: seenWord ? position + HARD_DISTANCE : firstPosition };
}

const PLAIN_ASCII = /^[\x00-\x7f]*$/;

/**
 * tokenize() for indexing: the same words and positions (a unit test holds them equal), appended to
 * `words` / `positions` without a segment or token object per piece; words in `skip` (stop words)
 * take their position but are not appended. An ASCII text is lowercased once, so its words are
 * slices of it (normalizeWord of an ASCII word is its lowercase). Returns the next free position.
 */
export function tokenizeInto(text: string, firstPosition: number, classify: CharClassifier, words: string[], positions: number[],
  skip?: ReadonlySet<string>): number {
  const skipping = skip !== undefined && skip.size > 0;
  if (classify === defaultClassifier) {
    const next = asciiTokenizeInto(text, firstPosition, words, positions, skipping ? skip : null);
    if (next >= 0) return next;
  }
  const lowered = PLAIN_ASCII.test(text) ? text.toLowerCase() : null;
  const length = text.length;
  let position = firstPosition;
  let seenWord = false;
  let pendingDistance = 0;
  let index = 0;
  while (index < length) {
    const start = index;
    const firstClass = classOfCharAt(text, index, classify);
    if (firstClass !== CharClass.Word) {
      let hard = firstClass === CharClass.Hard;
      index += charLength(text, index);
      while (index < length) {
        const charClass = classOfCharAt(text, index, classify);
        if (charClass === CharClass.Word) break;
        if (charClass === CharClass.Hard) hard = true;
        index += charLength(text, index);
      }
      const distance = hard ? HARD_DISTANCE : SOFT_DISTANCE;
      if (distance > pendingDistance) pendingDistance = distance;
      continue;
    }
    const entry = classify.dictionary ? dictionaryEntryAt(text, index, classify) : null;
    if (entry !== null) index += entry.length;
    else {
      index += charLength(text, index);
      while (index < length && classOfCharAt(text, index, classify) === CharClass.Word) index += charLength(text, index);
    }
    if (seenWord) position += pendingDistance;
    seenWord = true;
    pendingDistance = 0;
    if (position >= MAX_POSITION) break;
    const word = lowered !== null ? lowered.slice(start, index) : normalizeWord(text.slice(start, index));
    if (!isIndexableWord(word) || (skipping && skip.has(word))) continue;
    words.push(word);
    positions.push(position);
  }
  return seenWord ? position + HARD_DISTANCE : firstPosition;
}

/**
 * tokenizeInto for the default classes, one table read per character, as long as the text is ASCII:
 * -1 (and nothing appended) at its first other character.
 */
function asciiTokenizeInto(text: string, firstPosition: number, words: string[], positions: number[],
  skip: ReadonlySet<string> | null): number {
  const wordsBefore = words.length;
  const positionsBefore = positions.length;
  const abandon = () => {
    words.length = wordsBefore;
    positions.length = positionsBefore;
    return -1;
  };
  const lowered = text.toLowerCase();
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
    for (; index < length; index++) {
      const code = text.charCodeAt(index);
      if (code >= 128) return abandon();
      if (ASCII_CLASSES[code] !== CharClass.Word) break;
    }
    if (seenWord) position += pendingDistance;
    seenWord = true;
    pendingDistance = 0;
    if (position >= MAX_POSITION) break;
    // An ASCII word's UTF-8 length is its length.
    if (index - start > MAX_WORD_BYTES) continue;
    const word = lowered.slice(start, index);
    if (skip !== null && skip.has(word)) continue;
    words.push(word);
    positions.push(position);
  }
  return seenWord ? position + HARD_DISTANCE : firstPosition;
}
