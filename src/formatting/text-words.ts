// The words of one text value with their offsets and whether (and how far) each matches the query.
import { normalizeWord } from '../analysis/normalize.js';
import { ASCII_CLASSES, CharClass, defaultClassifier, scanAsciiSeparators } from '../analysis/separators.js';
import { isIndexableWord, MAX_WORD_BYTES, segment } from '../analysis/tokenizer.js';
import { charCount, type WordMatcher } from './query-matcher.js';

export interface TextWord {
  /** UTF-16 offsets of the word in the text. */
  start: number;
  end: number;
  /** End of the highlighted part (== end for whole-word matches, less for a prefix); start when unmatched. */
  matchEnd: number;
  /** Query term matched, -1 when none. */
  term: number;
  /** A hard separator (sentence boundary) lies between the previous word and this one. */
  hardBefore: boolean;
}

export function wordsOfText(text: string, matcher: WordMatcher): TextWord[] {
  if (matcher.classify === undefined || matcher.classify === defaultClassifier) {
    const words = asciiWordsOfText(text, matcher);
    if (words !== null) return words;
  }
  const words: TextWord[] = [];
  let hard = false;
  for (const piece of segment(text, matcher.classify)) {
    if (piece.kind !== 'word') {
      if (piece.kind === 'hard') hard = true;
      continue;
    }
    const normalized = normalizeWord(piece.text);
    const match = isIndexableWord(normalized) ? matcher(normalized) : null;
    const whole = match !== null && match.length >= charCount(normalized);
    const matchEnd = match === null ? piece.start : whole ? piece.end : piece.start + originalLength(piece.text, match.length);
    words.push({ start: piece.start, end: piece.end, matchEnd, term: match ? match.term : -1, hardBefore: hard });
    hard = false;
  }
  return words;
}

/**
 * wordsOfText of an ASCII text with the default character classes, in one scan with no segment
 * objects (the separators' texts were never read); null at the first character that is not ASCII
 * (wordsOfText then takes the general path). An ASCII word's normal form is its lowercase, one
 * character per character, so a prefix match ends that many characters in, and its UTF-8 length is
 * its length. Most of the highlighter's time went to segmenting and normalizing word by word.
 */
function asciiWordsOfText(text: string, matcher: WordMatcher): TextWord[] | null {
  const words: TextWord[] = [];
  const length = text.length;
  let hard = false;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code >= 128) return null;
    const charClass = ASCII_CLASSES[code]!;
    if (charClass !== CharClass.Word) {
      const scanned = scanAsciiSeparators(text, index + 1, charClass === CharClass.Hard);
      if (scanned < 0) return null;
      if ((scanned & 1) === 1) hard = true;
      index = scanned >>> 1;
      continue;
    }
    const start = index;
    for (index++; index < length; index++) {
      const next = text.charCodeAt(index);
      if (next >= 128) return null;
      if (ASCII_CLASSES[next] !== CharClass.Word) break;
    }
    const normalized = text.slice(start, index).toLowerCase();
    const match = normalized.length <= MAX_WORD_BYTES ? matcher(normalized) : null;
    const matchEnd = match === null ? start : match.length >= normalized.length ? index : start + match.length;
    words.push({ start, end: index, matchEnd, term: match === null ? -1 : match.term, hardBefore: hard });
    hard = false;
  }
  return words;
}

/** UTF-16 length of the shortest start of `original` whose normalized form has `normalizedChars` characters. */
export function originalLength(original: string, normalizedChars: number): number {
  let count = 0;
  let offset = 0;
  for (const char of original) {
    if (count >= normalizedChars) break;
    count += [...normalizeWord(char)].length;
    offset += char.length;
  }
  // Combining marks right after the last counted character belong to it.
  while (offset < original.length && /\p{Mn}/u.test(original[offset]!)) offset++;
  return offset;
}
