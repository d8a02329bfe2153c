// Parsing `q` into terms (search-semantics reference §2): at most 10 terms, the last word is a
// prefix unless a separator follows it, "double quotes" make phrases (a hard separator inside
// splits one, an unclosed quote runs to the end), stop words dropped except as the last token.
import { HARD_DISTANCE, SOFT_DISTANCE, type CharClassifier } from '../analysis/separators.js';
import { isIndexableWord, segment } from '../analysis/tokenizer.js';
import { normalizeWord } from '../analysis/normalize.js';
import type { QueryTerm } from './query-term.js';

export const MAX_QUERY_TERMS = 10;
export const MAX_QUERY_TOKENS = 1000;

export interface QueryParseOptions {
  stopWords: ReadonlySet<string>;
  /** false when the index's prefixSearch setting is "disabled". */
  prefixSearch: boolean;
  /** The index's separator settings; default separators when absent. */
  classify?: CharClassifier;
}

const HARD_IN_PHRASE = /[.;,!?()[\]{}|\n\r\u2028\u2029\u3002]/;

export function parseQuery(q: string, options: QueryParseOptions): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const segments = [...segmentsOf(q, options.classify)];
  let position = 0;
  let seenWord = false;
  let pendingDistance = 0;
  let phrase: { words: (string | null)[]; position: number } | null = null;

  const closePhrase = () => {
    if (phrase && phrase.words.some((word) => word !== null) && terms.length < MAX_QUERY_TERMS) {
      terms.push({ kind: 'phrase', words: trimGaps(phrase.words), position: phrase.position + leadingGaps(phrase.words) });
    }
    phrase = null;
  };

  for (let index = 0; index < segments.length && terms.length < MAX_QUERY_TERMS; index++) {
    const piece = segments[index]!;
    if (piece.kind !== 'word') {
      pendingDistance = Math.max(pendingDistance, piece.kind === 'hard' ? HARD_DISTANCE : SOFT_DISTANCE);
      for (const char of piece.text) {
        if (char === '"') {
          if (phrase) closePhrase();
          else phrase = { words: [], position: -1 };
        } else if (phrase && HARD_IN_PHRASE.test(char)) {
          closePhrase();
          phrase = { words: [], position: -1 };
        }
      }
      continue;
    }
    if (seenWord) position += pendingDistance;
    seenWord = true;
    pendingDistance = 0;
    const word = normalizeWord(piece.text);
    if (!isIndexableWord(word)) continue;
    const isStopWord = options.stopWords.has(word);
    if (phrase) {
      if (phrase.position < 0) phrase.position = position;
      phrase.words.push(isStopWord ? null : word);
      continue;
    }
    const isLastToken = index === segments.length - 1;
    if (isStopWord && !isLastToken) continue;
    terms.push({ kind: 'word', word, isPrefix: isLastToken && options.prefixSearch, position });
  }
  closePhrase();
  return terms;
}

function* segmentsOf(q: string, classify?: CharClassifier) {
  let count = 0;
  for (const piece of segment(q, classify)) {
    if (count++ >= MAX_QUERY_TOKENS) return;
    yield piece;
  }
}

function leadingGaps(words: (string | null)[]): number {
  let count = 0;
  while (count < words.length && words[count] === null) count++;
  return count;
}

/** Stop words at the edges of a phrase constrain nothing. */
function trimGaps(words: (string | null)[]): (string | null)[] {
  let end = words.length;
  while (end > 0 && words[end - 1] === null) end--;
  return words.slice(leadingGaps(words), end);
}
