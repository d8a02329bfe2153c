// Typo matching against a sorted word list walked as an implicit trie: words sharing a prefix with
// the previous word reuse its Damerau-Levenshtein rows, and a subtree whose row minimum exceeds the
// budget is skipped by binary search. Cost grows with the matches and the budget, not with the lexicon.
import { prefixRange } from './lexicon.js';

/** Return false to stop the walk. */
export type FuzzyVisitor = (word: string, distance: number) => boolean;

/**
 * Calls `visit` for each word in sorted[from, to) within `maxDistance` edits (optimal string
 * alignment: insert, delete, substitute, swap adjacent) of `query`, in list order. With `asPrefix`,
 * a word matches when one of its prefixes is within the budget (distance = best such prefix).
 * Returns false if the visitor stopped the walk.
 */
export function walkFuzzy(sorted: readonly string[], query: string, maxDistance: number, asPrefix: boolean,
  visit: FuzzyVisitor, from = 0, to = sorted.length): boolean {
  const n = query.length;
  const rows: Int32Array[] = [Int32Array.from({ length: n + 1 }, (_, j) => j)];
  const rowMins: number[] = [0];
  // Best distance of the query against any prefix of the current path, at each depth.
  const prefixBest: number[] = [n];
  let previous = '';
  let index = from;
  while (index < to) {
    const word = sorted[index]!;
    let depth = commonPrefixLength(previous, word);
    if (depth >= rows.length) depth = rows.length - 1;
    let skippedAt = -1;
    for (let d = depth + 1; d <= word.length; d++) {
      const row = rows[d] ?? (rows[d] = new Int32Array(n + 1));
      const above = rows[d - 1]!;
      const twoAbove = d >= 2 ? rows[d - 2]! : null;
      const char = word.charCodeAt(d - 1);
      const previousChar = d >= 2 ? word.charCodeAt(d - 2) : -1;
      row[0] = d;
      let rowMin = d;
      for (let j = 1; j <= n; j++) {
        const queryChar = query.charCodeAt(j - 1);
        let best = above[j - 1]! + (char === queryChar ? 0 : 1);
        const deletion = above[j]! + 1;
        if (deletion < best) best = deletion;
        const insertion = row[j - 1]! + 1;
        if (insertion < best) best = insertion;
        if (twoAbove !== null && j >= 2 && char === query.charCodeAt(j - 2) && previousChar === queryChar) {
          const swap = twoAbove[j - 2]! + 1;
          if (swap < best) best = swap;
        }
        row[j] = best;
        if (best < rowMin) rowMin = best;
      }
      rowMins[d] = rowMin;
      prefixBest[d] = Math.min(prefixBest[d - 1]!, row[n]!);
      rows.length = Math.max(rows.length, d + 1);
      if (rowMin > maxDistance) {
        skippedAt = d;
        break;
      }
    }
    if (skippedAt >= 0) {
      // No extension of word[0, skippedAt) can get back under the budget (row minima never decrease).
      const prefix = word.slice(0, skippedAt);
      const [, end] = prefixRange(sorted, prefix, index, to);
      if (asPrefix && prefixBest[skippedAt]! <= maxDistance) {
        for (let k = index; k < end; k++) if (!visit(sorted[k]!, prefixBest[skippedAt]!)) return false;
      }
      index = end;
      // Rows up to depth skippedAt - 1 stay valid for the next word's shared prefix.
      previous = word.slice(0, skippedAt - 1);
      continue;
    }
    const distance = asPrefix ? prefixBest[word.length]! : rows[word.length]![n]!;
    if (distance <= maxDistance && !visit(word, distance)) return false;
    previous = word;
    index++;
  }
  return true;
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
