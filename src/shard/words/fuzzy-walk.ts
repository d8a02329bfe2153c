// Typo matching against a sorted word list walked as an implicit trie: words sharing a prefix with
// the previous word reuse its Damerau-Levenshtein rows, and a subtree whose row minimum exceeds the
// budget is skipped by a galloping search. Cost grows with the matches and the budget, not with the
// lexicon. Only the diagonal band |depth - column| <= budget of each row is computed (cells outside
// it exceed the budget anyway, Ukkonen's cut-off), with every value clamped at budget + 1: a walk
// costs O(budget) per visited trie node instead of O(query length). It is the costliest step of a
// query that is not cached, so the rows live in one flat typed array, and the words are read from
// one packed array of char codes per list (packedWords): reading each word's string object, scattered
// over the heap, was a third of the walk.

import type { LexiconListMemos } from './lexicon.js';

/** `index`: the word's place in the list. Return false to stop the walk. */
export type FuzzyVisitor = (word: string, distance: number, index: number) => boolean;

/**
 * Calls `visit` for each word in sorted[from, to) within `maxDistance` edits (optimal string
 * alignment: insert, delete, substitute, swap adjacent) of `query`, in list order. With `asPrefix`,
 * a word matches when one of its prefixes is within the budget (distance = best such prefix).
 * Returns false if the visitor stopped the walk.
 */
export function walkFuzzy(sorted: readonly string[], query: string, maxDistance: number, asPrefix: boolean,
  visit: FuzzyVisitor, from = 0, to = sorted.length, memos: LexiconListMemos | null = null): boolean {
  const n = query.length;
  const width = n + 1;
  const over = maxDistance + 1;
  const queryCodes = new Int32Array(n);
  for (let j = 0; j < n; j++) queryCodes[j] = query.charCodeAt(j);
  // The lexicon's scratch when walking one of its lists (every cell is written before it is read: row 0
  // here, each row d from row d - 1 as the walk goes down), else arrays of this walk's own.
  const scratch = memos === null ? newWalkScratch(width) : (memos.walkScratch ??= newWalkScratch(width));
  if (scratch.rows.length < 32 * width) scratch.rows = new Int32Array(32 * width);
  let capacity = Math.min(Math.floor(scratch.rows.length / width), scratch.prefixBest.length);
  // rows[d * width + j]: distance of query[0, j) to the current word's first d letters, clamped at `over`.
  let rows = scratch.rows;
  // Best distance of the query against any prefix of the current path, at each depth.
  let prefixBest = scratch.prefixBest;
  // The minimum of each row's band (row d's, at d).
  let rowMins = scratch.rowMins;
  for (let j = 0; j <= n; j++) rows[j] = Math.min(j, over);
  prefixBest[0] = Math.min(n, over);
  rowMins[0] = 0;
  const { codes, starts, lcp, nextLower } = packedWords(sorted, memos);
  let validDepth = 0;
  let index = from;
  while (index < to) {
    const wordStart = starts[index]!;
    const length = starts[index + 1]! - wordStart;
    if (length + 1 > capacity) {
      const before = capacity;
      while (capacity < length + 1) capacity *= 2;
      const grown = new Int32Array(capacity * width);
      grown.set(rows.subarray(0, before * width));
      rows = scratch.rows = grown;
      const grownBest = new Int32Array(capacity);
      grownBest.set(prefixBest.subarray(0, before));
      prefixBest = scratch.prefixBest = grownBest;
      const grownMins = new Int32Array(capacity);
      grownMins.set(rowMins.subarray(0, before));
      rowMins = scratch.rowMins = grownMins;
    }
    // The rows of the previous word (the one before, or the first of a skipped run ending here) stay
    // valid for the prefix this word shares with it: lcp[index] (see endOfPrefixRun).
    const depth = index === from ? 0 : Math.min(lcp[index]!, validDepth, length);
    let skippedAt = -1;
    // Skipped at a letter whose row was not computed: rows (and prefixBest) valid to skippedAt - 1 only.
    let deadLetter = false;
    for (let d = depth + 1; d <= length; d++) {
      const base = d * width;
      const above = base - width;
      const twoAbove = above - width;
      const char = codes[wordStart + d - 1]!;
      const previousChar = d >= 2 ? codes[wordStart + d - 2]! : -1;
      const low = Math.max(0, d - maxDistance);
      const high = Math.min(n, d + maxDistance);
      // Row d - 1 at the budget (and, for a prefix walk, no prefix of the path within it): row d stays
      // within the budget only where this letter matches (see mayStayWithin), so a letter that cannot is skipped
      // with its subtree without computing its row (a Levenshtein automaton's dead transitions). Most
      // rows of a walk were such dead ends, one per child of a node at the budget.
      if (rowMins[d - 1] === maxDistance && !(asPrefix && prefixBest[d - 1]! <= maxDistance)
        && !mayStayWithin(rows, queryCodes, width, maxDistance, d, low, high, char)) {
        skippedAt = d;
        deadLetter = true;
        break;
      }
      // The band's neighbours, read by this row and the next, hold the clamp (or the true column 0).
      if (low > 0) rows[base + low - 1] = low - 1 === 0 ? Math.min(d, over) : over;
      if (high < n) rows[base + high + 1] = over;
      let rowMin = over;
      // The cell to the left and the one diagonally above-left ride along in locals: reading them
      // back from the row just written made each cell wait on the store of the one before.
      let left = low > 0 ? rows[base + low - 1]! : 0;
      let diagonal = low > 0 ? rows[above + low - 1]! : 0;
      let j = low;
      if (j === 0) {
        left = Math.min(d, over);
        diagonal = rows[above]!;
        rows[base] = left;
        if (left < rowMin) rowMin = left;
        j = 1;
      }
      for (; j <= high; j++) {
        const queryChar = queryCodes[j - 1]!;
        const up = rows[above + j]!;
        let best = diagonal + (char === queryChar ? 0 : 1);
        if (up + 1 < best) best = up + 1;
        if (left + 1 < best) best = left + 1;
        if (d >= 2 && j >= 2 && char === queryCodes[j - 2] && previousChar === queryChar) {
          const swap = rows[twoAbove + j - 2]! + 1;
          if (swap < best) best = swap;
        }
        if (best > over) best = over;
        rows[base + j] = best;
        if (best < rowMin) rowMin = best;
        left = best;
        diagonal = up;
      }
      const last = high === n ? rows[base + n]! : over;
      prefixBest[d] = Math.min(prefixBest[d - 1]!, last);
      rowMins[d] = rowMin;
      if (rowMin > maxDistance) {
        skippedAt = d;
        break;
      }
    }
    if (deadLetter) {
      // The next sibling whose letter may stay within the budget, found by a binary search over the
      // letters at that depth (the words sharing word[0, skippedAt - 1) are one run, in letter order):
      // the siblings in between were one walk step each, most of a walk's steps.
      const at = skippedAt - 1;
      const runEnd = endOfPrefixRun(lcp, nextLower, at, index, to);
      const target = nextLetterWithin(rows, queryCodes, width, maxDistance, skippedAt, codes[wordStart + at]!);
      index = target < 0 ? runEnd : firstWithLetterAtLeast(codes, starts, at, target, index + 1, runEnd);
      validDepth = at;
      continue;
    }
    if (skippedAt >= 0) {
      // No extension of word[0, skippedAt) can get back under the budget (row minima never decrease).
      const end = endOfPrefixRun(lcp, nextLower, skippedAt, index, to);
      if (asPrefix && prefixBest[skippedAt]! <= maxDistance) {
        for (let k = index; k < end; k++) if (!visit(sorted[k]!, prefixBest[skippedAt]!, k)) return false;
      }
      index = end;
      validDepth = skippedAt;
      continue;
    }
    const distance = asPrefix ? prefixBest[length]! : (length + maxDistance >= n && length - maxDistance <= n ? rows[length * width + n]! : over);
    if (distance <= maxDistance && !visit(sorted[index]!, distance, index)) return false;
    validDepth = length;
    index++;
  }
  return true;
}

/**
 * Whether row d can hold a value within the budget when row d - 1's minimum is the budget: only
 * through a match of `char` on the diagonal from a cell at the budget (a deletion, insertion or
 * substitution adds one to a value at least the budget). A swap adds no case: its cell of row d - 2
 * is at most the budget minus one, so the cell of row d - 1 below it, one column left of the swap's,
 * is within the budget and `char` (the swap's query letter there) matches on its diagonal; at the
 * band's left edge the swap's cell is outside row d - 2's reach (its distance is at least the budget).
 * Row d - 1's band covers the cells read.
 */
function mayStayWithin(rows: Int32Array, queryCodes: Int32Array, width: number, maxDistance: number, d: number,
  low: number, high: number, char: number): boolean {
  const above = (d - 1) * width;
  for (let j = low > 1 ? low : 1; j <= high; j++) {
    if (queryCodes[j - 1] === char && rows[above + j - 1]! <= maxDistance) return true;
  }
  return false;
}

/** The smallest letter after `after` that mayStayWithin takes at row d (-1: none). */
function nextLetterWithin(rows: Int32Array, queryCodes: Int32Array, width: number, maxDistance: number, d: number, after: number): number {
  const above = (d - 1) * width;
  const low = Math.max(1, d - maxDistance);
  const high = Math.min(queryCodes.length, d + maxDistance);
  let best = -1;
  for (let j = low; j <= high; j++) {
    const letter = queryCodes[j - 1]!;
    if (letter > after && (best < 0 || letter < best) && rows[above + j - 1]! <= maxDistance) best = letter;
  }
  return best;
}

/** First index in [from, to) whose letter at `at` is at least `letter` (every word there has one, in ascending order). */
function firstWithLetterAtLeast(codes: Uint16Array, starts: Uint32Array, at: number, letter: number, from: number, to: number): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (codes[starts[middle]! + at]! < letter) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * First index in (index, to) whose word does not start with sorted[index]'s first prefixLength letters:
 * the words in between share at least that prefix with it, so each lcp from index + 1 on is at least
 * prefixLength until the first that is not. So lcp[end] is also the common prefix of sorted[index]
 * and sorted[end], which is what the walk resumes from. It jumps along nextLower: every lcp between
 * k and nextLower[k] is at least lcp[k], hence at least prefixLength while lcp[k] is.
 */
function endOfPrefixRun(lcp: Uint8Array, nextLower: Uint32Array, prefixLength: number, index: number, to: number): number {
  let end = index + 1;
  while (end < to && lcp[end]! >= prefixLength) end = nextLower[end]!;
  return end < to ? end : to;
}

const MAX_TRACKED_PREFIX = 255;

/** A walk's rows and per-depth values (walkFuzzy), kept by the lexicon between walks (LexiconListMemos.walkScratch). */
export interface WalkScratch {
  rows: Int32Array;
  prefixBest: Int32Array;
  rowMins: Int32Array;
}

function newWalkScratch(width: number): WalkScratch {
  return { rows: new Int32Array(32 * width), prefixBest: new Int32Array(32), rowMins: new Int32Array(32) };
}

/** A sorted list as the walk reads it; see packedWords. */
export interface PackedWords {
  /** Every word's char codes, one after the other. */
  codes: Uint16Array;
  /** Word i is codes[starts[i], starts[i + 1]). */
  starts: Uint32Array;
  /** lcp[i] = length of the common prefix of words i - 1 and i (capped at 255; lcp[0] = 0). */
  lcp: Uint8Array;
  /** nextLower[i] = the first k > i with lcp[k] < lcp[i] (the list's length when none). */
  nextLower: Uint32Array;
  /** Memo of first-letter-edits.ts's tailOrder: made on the first walk that needs it. */
  tailOrder?: Uint32Array;
}

/**
 * The list packed for walks, kept in `memos` (the lexicon's; null: not kept) until the list changes
 * length (lexicon lists are replaced, or grow, when words are added).
 */
export function packedWords(sorted: readonly string[], memos: LexiconListMemos | null = null): PackedWords {
  const memo = memos?.packed.get(sorted);
  if (memo !== undefined && memo.starts.length === sorted.length + 1) return memo;
  const count = sorted.length;
  const starts = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) starts[i + 1] = starts[i]! + sorted[i]!.length;
  const codes = new Uint16Array(starts[count]!);
  for (let i = 0; i < count; i++) {
    const word = sorted[i]!;
    const start = starts[i]!;
    for (let k = 0; k < word.length; k++) codes[start + k] = word.charCodeAt(k);
  }
  const lcp = new Uint8Array(count);
  for (let i = 1; i < count; i++) {
    const a = starts[i - 1]!;
    const b = starts[i]!;
    const limit = Math.min(b - a, starts[i + 1]! - b, MAX_TRACKED_PREFIX);
    let k = 0;
    while (k < limit && codes[a + k] === codes[b + k]) k++;
    lcp[i] = k;
  }
  const nextLower = new Uint32Array(count);
  // Scanning backwards with a stack of indices whose lcp increases from bottom to top.
  const stack: number[] = [];
  for (let i = count - 1; i >= 0; i--) {
    while (stack.length > 0 && lcp[stack[stack.length - 1]!]! >= lcp[i]!) stack.pop();
    nextLower[i] = stack.length > 0 ? stack[stack.length - 1]! : count;
    stack.push(i);
  }
  const packed = { codes, starts, lcp, nextLower };
  memos?.packed.set(sorted, packed);
  return packed;
}

/** lcp of the list (see PackedWords.lcp). */
export function commonPrefixLengths(sorted: readonly string[]): Uint8Array {
  return packedWords(sorted).lcp;
}
