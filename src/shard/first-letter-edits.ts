// The words one edit away from a query word where that edit changes the first letter (search-semantics
// §3: such a typo counts double, so it is only looked for with the two-typo budget). Walking the whole
// lexicon outside the query's first letter for them costs a Damerau-Levenshtein row per visited trie
// node; the edit can only be one of four shapes, so the candidates are generated and looked up instead.
import { lowerBound, prefixRange } from './lexicon.js';
import type { FuzzyVisitor } from './fuzzy-walk.js';

/**
 * Calls `visit(word, 1)`, in list order, for each word of sorted[from, to) not starting with the query's
 * first letter and within one edit (insert, delete, substitute, swap adjacent) of `query` — with
 * `asPrefix`, having a prefix within one edit. The same words, in the same order, as walkFuzzy with a
 * budget of 1 over that range. Returns false if the visitor stopped the walk.
 */
export function walkFirstLetterEdits(sorted: readonly string[], query: string, asPrefix: boolean, visit: FuzzyVisitor,
  from: number, to: number): boolean {
  const first = query.charAt(0);
  const rest = query.slice(1);
  const variants = new Set<string>();
  // Deleting the first letter, or swapping it with the second, changes it unless both letters are equal.
  if (query.length === 1) variants.add('');
  else if (query.charAt(1) !== first) {
    variants.add(rest);
    variants.add(query.charAt(1) + first + query.slice(2));
  }
  // Substituting or inserting a first letter: only letters some word starts with can match.
  for (let index = from; index < to;) {
    const letter = sorted[index]!.charAt(0);
    const [, end] = prefixRange(sorted, letter, index, to);
    if (letter !== first) {
      variants.add(letter + rest);
      variants.add(letter + query);
    }
    index = Math.max(end, index + 1);
  }
  const found: number[] = [];
  for (const variant of variants) {
    if (variant.charAt(0) === first && variant !== '') continue;
    if (asPrefix) {
      const [start, end] = prefixRange(sorted, variant, from, to);
      for (let k = start; k < end; k++) found.push(k);
    } else {
      const k = lowerBound(sorted, variant, from, to);
      if (k < to && sorted[k] === variant) found.push(k);
    }
  }
  found.sort((a, b) => a - b);
  let previous = -1;
  for (const k of found) {
    if (k === previous) continue;
    previous = k;
    if (sorted[k]!.charAt(0) === first) continue;
    if (!visit(sorted[k]!, 1, k)) return false;
  }
  return true;
}
