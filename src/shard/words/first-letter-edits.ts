// The words one edit away from a query word where that edit changes the first letter (search-semantics
// §3: such a typo counts double, so it is only looked for with the two-typo budget). Walking the whole
// lexicon outside the query's first letter for them costs a Damerau-Levenshtein row per visited trie
// node; the edit can only be one of four shapes, so the candidates are generated and looked up instead.
import { lowerBound, prefixRange, type LexiconListMemos } from './lexicon.js';
import { packedWords, type FuzzyVisitor, type PackedWords } from './fuzzy-walk.js';

/**
 * Calls `visit(word, 1)`, in list order, for each word of sorted[from, to) not starting with the query's
 * first letter and within one edit (insert, delete, substitute, swap adjacent) of `query` — with
 * `asPrefix`, having a prefix within one edit. The same words, in the same order, as walkFuzzy with a
 * budget of 1 over that range. Returns false if the visitor stopped the walk.
 *
 * A substituted or inserted first letter leaves the rest of the word equal to (starting with) the
 * query without its first letter, or the whole query: those words are one range each of the list
 * ordered by the words' tails (every word but its first letter, `tailOrder`), found by two binary
 * searches whatever the letter. Variants made per first letter and looked up one by one (72 lookups
 * for a 9-letter word over 100,000 npm packages, and the words of 310 rare letters compared in place)
 * cost a budget-2 derivation more than its whole fuzzy walk, to find 0.1 words on average.
 */
export function walkFirstLetterEdits(sorted: readonly string[], query: string, asPrefix: boolean, visit: FuzzyVisitor,
  from: number, to: number, memos: LexiconListMemos | null = null): boolean {
  const first = query.charAt(0);
  const found: number[] = [];
  if (from >= to) return true;
  // Deleting the first letter, or swapping it with the second, changes it unless both letters are equal.
  const variants: string[] = [];
  if (query.length === 1) variants.push('');
  else if (query.charAt(1) !== first) variants.push(query.slice(1), query.charAt(1) + first + query.slice(2));
  for (const variant of variants) {
    if (asPrefix) {
      const [start, end] = prefixRange(sorted, variant, from, to);
      for (let k = start; k < end; k++) found.push(k);
    } else {
      const k = lowerBound(sorted, variant, from, to);
      if (k < to && sorted[k] === variant) found.push(k);
    }
  }
  // Substituting or inserting a first letter: the word's tail is (starts with) the query's, or the query.
  const packed = packedWords(sorted, memos);
  const order = tailOrder(packed);
  for (const tail of [query.slice(1), query]) {
    const [start, end] = tailRange(packed, order, tail, asPrefix);
    for (let m = start; m < end; m++) {
      const k = order[m]!;
      if (k >= from && k < to) found.push(k);
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

/**
 * The indices of the list's non-empty words ordered by their tails (the word without its first UTF-16
 * unit, compared as strings are), memoized on the packed list (built once per list, as it).
 */
export function tailOrder(packed: PackedWords): Uint32Array {
  if (packed.tailOrder !== undefined) return packed.tailOrder;
  const { codes, starts } = packed;
  const count = starts.length - 1;
  let nonEmpty = 0;
  for (let i = 0; i < count; i++) if (starts[i + 1]! > starts[i]!) nonEmpty++;
  const order = new Uint32Array(nonEmpty);
  let at = 0;
  for (let i = 0; i < count; i++) if (starts[i + 1]! > starts[i]!) order[at++] = i;
  order.sort((a, b) => {
    const aEnd = starts[a + 1]!;
    const bEnd = starts[b + 1]!;
    let i = starts[a]! + 1;
    let j = starts[b]! + 1;
    for (; i < aEnd && j < bEnd; i++, j++) {
      const difference = codes[i]! - codes[j]!;
      if (difference !== 0) return difference;
    }
    return (aEnd - i) - (bEnd - j) || a - b;
  });
  packed.tailOrder = order;
  return order;
}

/** [start, end) of `order` whose words' tails equal `tail` (asPrefix: start with it). */
function tailRange(packed: PackedWords, order: Uint32Array, tail: string, asPrefix: boolean): [number, number] {
  const { codes, starts } = packed;
  const length = tail.length;
  /** The word's tail against `tail`: < 0 before it, 0 equal (asPrefix: starting with it), > 0 after. */
  const compare = (word: number): number => {
    const end = starts[word + 1]!;
    let i = starts[word]! + 1;
    for (let j = 0; j < length; i++, j++) {
      if (i >= end) return -1;
      const difference = codes[i]! - tail.charCodeAt(j);
      if (difference !== 0) return difference;
    }
    return asPrefix || i === end ? 0 : 1;
  };
  let low = 0;
  let high = order.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(order[middle]!) < 0) low = middle + 1;
    else high = middle;
  }
  const start = low;
  high = order.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(order[middle]!) <= 0) low = middle + 1;
    else high = middle;
  }
  return [start, low];
}
