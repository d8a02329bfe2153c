// Parsing `q` into terms (search-semantics reference §2): at most 10 terms, the last word is a
// prefix unless a separator follows it, "double quotes" make phrases (a hard separator inside
// splits one, an unclosed quote runs to the end), stop words dropped except as the last token.
// The negative operator (milli's located_query_terms_from_tokens): a `-` alone, at the start or just
// after whitespace, makes the next word (or the phrase of a `"` right after it) a negative term: its
// documents are excluded; it is no term (words, ranking, highlight ignore it). `a-b`, `--a`, `- a` negate nothing.
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

export interface ParsedQuery {
  terms: QueryTerm[];
  /** Normalized words whose documents are excluded (exact words only, as milli's word_docids). */
  negativeWords: string[];
  /** Phrases whose documents are excluded (null: a stop word, as in PhraseTerm). */
  negativePhrases: (string | null)[][];
}

export function parseQuery(q: string, options: QueryParseOptions): QueryTerm[] {
  return parseQueryParts(q, options).terms;
}

export function parseQueryParts(q: string, options: QueryParseOptions): ParsedQuery {
  const terms: QueryTerm[] = [];
  const negativeWords: string[] = [];
  const negativePhrases: (string | null)[][] = [];
  const segments = [...segmentsOf(q, options.classify)];
  let position = 0;
  let seenWord = false;
  let pendingDistance = 0;
  let phrase: { words: (string | null)[]; position: number; negative: boolean } | null = null;
  // As milli reads charabia's tokens: a whitespace run is one separator token, any other separator
  // character one token of its own; a word token never ends with whitespace.
  let encounteredWhitespace = true;
  let negativeNext = false;

  const closePhrase = () => {
    if (phrase && phrase.words.some((word) => word !== null)) {
      // Negative phrases are verified document by document (as positive ones): at most as many as terms.
      if (phrase.negative) {
        if (negativePhrases.length < MAX_QUERY_TERMS) negativePhrases.push(trimGaps(phrase.words));
      }
      else if (terms.length < MAX_QUERY_TERMS) terms.push({ kind: 'phrase', words: trimGaps(phrase.words), position: phrase.position + leadingGaps(phrase.words) });
    }
    phrase = null;
  };

  for (let index = 0; index < segments.length && terms.length < MAX_QUERY_TERMS; index++) {
    const piece = segments[index]!;
    if (piece.kind !== 'word') {
      pendingDistance = Math.max(pendingDistance, piece.kind === 'hard' ? HARD_DISTANCE : SOFT_DISTANCE);
      for (const char of piece.text) {
        const whitespace = WHITESPACE.test(char);
        if (char === '"') {
          if (phrase) closePhrase();
          else phrase = { words: [], position: -1, negative: negativeNext };
        } else if (phrase && HARD_IN_PHRASE.test(char)) {
          // A negative phrase split by a hard separator stays negative in both parts.
          const negative: boolean = phrase.negative;
          closePhrase();
          phrase = { words: [], position: -1, negative };
        }
        if (!(whitespace && encounteredWhitespace)) negativeNext = phrase === null && char === '-' && encounteredWhitespace;
        encounteredWhitespace = whitespace;
      }
      continue;
    }
    if (seenWord) position += pendingDistance;
    seenWord = true;
    pendingDistance = 0;
    const word = normalizeWord(piece.text);
    const negative = negativeNext && phrase === null;
    negativeNext = false;
    encounteredWhitespace = false;
    if (!isIndexableWord(word)) continue;
    if (negative) {
      negativeWords.push(word);
      continue;
    }
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
  return { terms, negativeWords, negativePhrases };
}

const WHITESPACE = /\s/u;

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
