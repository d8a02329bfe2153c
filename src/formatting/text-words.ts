// The words of one text value with their offsets and whether (and how far) each matches the query.
import { normalizeWord } from '../analysis/normalize.js';
import { isIndexableWord, segment } from '../analysis/tokenizer.js';
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
