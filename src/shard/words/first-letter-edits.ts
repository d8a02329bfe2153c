// The words one edit away from a query word where that edit changes the first letter (search-semantics
// §3: such a typo counts double, so it is only looked for with the two-typo budget). Walking the whole
// lexicon outside the query's first letter for them costs a Damerau-Levenshtein row per visited trie
// node; the edit can only be one of four shapes, so the candidates are generated and looked up instead.
import { lowerBound, prefixRange, type LexiconListMemos } from './lexicon.js';
import type { FuzzyVisitor } from './fuzzy-walk.js';

/**
 * Calls `visit(word, 1)`, in list order, for each word of sorted[from, to) not starting with the query's
 * first letter and within one edit (insert, delete, substitute, swap adjacent) of `query` — with
 * `asPrefix`, having a prefix within one edit. The same words, in the same order, as walkFuzzy with a
 * budget of 1 over that range. Returns false if the visitor stopped the walk.
 */
export function walkFirstLetterEdits(sorted: readonly string[], query: string, asPrefix: boolean, visit: FuzzyVisitor,
  from: number, to: number, memos: LexiconListMemos | null = null): boolean {
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
  const runs = firstLetterRuns(sorted, memos);
  const found: number[] = [];
  const firstCode = query.length === 0 ? -1 : query.charCodeAt(0);
  for (const [code, [start, end]] of runs) {
    if (end <= from || start >= to || code < 0 || code === firstCode) continue;
    const low = Math.max(from, start);
    const high = Math.min(to, end);
    if (high - low <= SCANNED_RUN_WORDS) {
      // A rare first letter (most of a real lexicon's: 310 of 346 in 100,000 npm packages, 750 words):
      // its few words are compared in place instead of two variants made and looked up per letter.
      for (let k = low; k < high; k++) if (isLetterEdit(sorted[k]!, query, rest, asPrefix)) found.push(k);
      continue;
    }
    const letter = String.fromCharCode(code);
    variants.add(letter + rest);
    variants.add(letter + query);
  }
  for (const variant of variants) {
    if (variant.charAt(0) === first && variant !== '') continue;
    // A variant can only be among the words starting with its letter (one small range of the list).
    let low = from;
    let high = to;
    if (variant !== '') {
      const run = runs.get(variant.charCodeAt(0));
      if (run === undefined) continue;
      low = Math.max(from, run[0]);
      high = Math.min(to, run[1]);
      if (low >= high) continue;
    }
    if (asPrefix) {
      const [start, end] = prefixRange(sorted, variant, low, high);
      for (let k = start; k < end; k++) found.push(k);
    } else {
      const k = lowerBound(sorted, variant, low, high);
      if (k < high && sorted[k] === variant) found.push(k);
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

/** Runs of at most this many words are compared word by word (walkFirstLetterEdits). */
const SCANNED_RUN_WORDS = 64;

/**
 * Whether `word` (not starting with the query's first letter) is the query with its first letter
 * replaced or a letter put before it (`rest`: the query without its first letter); asPrefix: starts so.
 */
function isLetterEdit(word: string, query: string, rest: string, asPrefix: boolean): boolean {
  if (asPrefix) return word.startsWith(rest, 1) || word.startsWith(query, 1);
  return (word.length === query.length && word.startsWith(rest, 1)) || (word.length === query.length + 1 && word.startsWith(query, 1));
}

/**
 * Per first UTF-16 unit of the list's words, their range [start, end) (-1: empty words), kept in
 * `memos` (the lexicon's; null: not kept) until the list changes length (lexicon lists are replaced,
 * or grow, when words are added): finding them by binary searches on every typo walk showed in profiles.
 */
function firstLetterRuns(sorted: readonly string[], memos: LexiconListMemos | null): Map<number, [number, number]> {
  const memo = memos?.firstLetterRuns.get(sorted);
  if (memo !== undefined && memo.length === sorted.length) return memo.runs;
  const runs = new Map<number, [number, number]>();
  for (let index = 0; index < sorted.length;) {
    const word = sorted[index]!;
    const code = word.length === 0 ? -1 : word.charCodeAt(0);
    let end = index + 1;
    while (end < sorted.length && (sorted[end]!.length === 0 ? -1 : sorted[end]!.charCodeAt(0)) === code) end++;
    runs.set(code, [index, end]);
    index = end;
  }
  memos?.firstLetterRuns.set(sorted, { length: sorted.length, runs });
  return runs;
}
