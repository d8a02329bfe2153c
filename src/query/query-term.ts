// A query term as the rest of the engine sees it: one word (maybe a prefix) or one phrase.

export interface WordTerm {
  kind: 'word';
  /** Normalized word. */
  word: string;
  /** Only the last word of a query not followed by a separator. */
  isPrefix: boolean;
  /** Position in the query, counted like positions in documents (soft +1, hard +8). */
  position: number;
}

export interface PhraseTerm {
  kind: 'phrase';
  /** Consecutive normalized words; null is a stop word, which holds a position but matches anything there. */
  words: (string | null)[];
  position: number;
}

export type QueryTerm = WordTerm | PhraseTerm;

/** Positions a term covers in the query: 1 for a word, the phrase's length for a phrase. */
export function positionCount(term: QueryTerm): number {
  return term.kind === 'word' ? 1 : term.words.length;
}
