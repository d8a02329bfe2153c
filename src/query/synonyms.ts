// The synonyms setting as search uses it (search-semantics §4): keys and alternatives normalized into
// words. One-way per entry: {"a": ["b"]} makes a query `a` also match `b`, never the reverse.
import { normalizeWord } from '../analysis/normalize.js';
import { segment } from '../analysis/tokenizer.js';
import type { QueryTerm, WordTerm } from './query-term.js';

/** Normalized key (its words joined by one space) -> the words of each alternative. */
export type SynonymMap = ReadonlyMap<string, readonly (readonly string[])[]>;

export function normalizeSynonyms(synonyms: Record<string, readonly string[]>): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const [key, alternatives] of Object.entries(synonyms)) {
    const normalizedKey = wordsOf(key).join(' ');
    if (normalizedKey === '') continue;
    const list = out.get(normalizedKey) ?? [];
    for (const alternative of alternatives) {
      const alternativeWords = wordsOf(alternative);
      if (alternativeWords.length > 0 && !list.some((known) => known.join(' ') === alternativeWords.join(' '))) list.push(alternativeWords);
    }
    out.set(normalizedKey, list);
  }
  return out;
}

/** The normalized words of a text, as the tokenizer splits them. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const piece of segment(text)) if (piece.kind === 'word') words.push(normalizeWord(piece.text));
  return words;
}

/** Longest run of consecutive query words looked up as a multi-word synonym key (milli's n-grams). */
const MAX_KEY_WORDS = 3;

/**
 * Alternatives from multi-word keys: when consecutive word terms spell a key ("new york"), each of
 * those terms also matches the key's alternatives, so a document holding one alternative counts as
 * matching the whole run. term index -> alternatives.
 */
export function multiWordSynonyms(terms: readonly QueryTerm[], synonyms: SynonymMap): Map<number, (readonly string[])[]> {
  const out = new Map<number, (readonly string[])[]>();
  if (synonyms.size === 0) return out;
  for (let first = 0; first < terms.length; first++) {
    for (let count = 2; count <= MAX_KEY_WORDS && first + count <= terms.length; count++) {
      const run = terms.slice(first, first + count);
      if (run.some((term) => term.kind !== 'word')) break;
      const alternatives = synonyms.get(run.map((term) => (term as WordTerm).word).join(' '));
      if (!alternatives) continue;
      for (let term = first; term < first + count; term++) out.set(term, [...(out.get(term) ?? []), ...alternatives]);
    }
  }
  return out;
}
