// A cached term's derivations brought up to date after writes, instead of derived again (ShardIndex
// .cachedDerive): when the lexicon walk still holds (the same words), only the documents written since
// can have changed place, so each of them is read once in the forward index and put back where its
// words now put it: its best typo level, and the rank / position unions' keys when those are memoized.
// Every other document keeps its place. Exactly what derivationsFromWords and the unions by key would
// make from the words' lists now (test/unit/derivation-patch.test.ts: randomized against a fresh
// index), for a few microseconds per written document instead of a union of every derived word's
// list: under a write of 1,000 npm rows a second, re-deriving the terms of searches (a prefix stands
// for thousands of words) and their rank / position unions was half of a search's CPU.
import roaring from 'roaring';
import { fieldRankAt, tokenCountAt, tokensStartAt, type ForwardIndex } from './documents/forward-index.js';
import type { TermDerivations } from './words/derivations.js';
import { NO_DOCUMENTS } from '../ranking/score-layers.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * Derivations of fewer words are derived again from their walk (a union of a few lists costs less
 * than reading the written documents); above this many written documents too, or more than
 * PATCH_DOCUMENTS_PER_WORD per derived word (each written document's tokens are read: ~0.3 µs, a
 * union costs about a microsecond per word with its rank / position unions).
 */
export const PATCH_MIN_WORDS = 4;
export const PATCH_MAX_DOCUMENTS = 8192;
const PATCH_DOCUMENTS_PER_WORD = 2;

/** The derived words sorted by id with their typo counts (memoized on the derivations' words: patches keep them). */
export interface WordLevels {
  ids: Int32Array;
  typos: Uint8Array;
}

function wordLevels(words: TermDerivations['words']): WordLevels {
  const order = words.map((word, k) => k).sort((a, b) => words[a]!.wordId - words[b]!.wordId);
  return { ids: Int32Array.from(order, (k) => words[k]!.wordId), typos: Uint8Array.from(order, (k) => words[k]!.typos) };
}

/** 1 + the word's typo count when it is one of `levels`, else 0 (binary search). */
function levelIn(levels: WordLevels, wordId: number): number {
  const ids = levels.ids;
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const id = ids[middle]!;
    if (id < wordId) low = middle + 1;
    else if (id > wordId) high = middle - 1;
    else return levels.typos[middle]! + 1;
  }
  return 0;
}

/**
 * `old` (a derivationsFromWords result and its memos) with the documents of `written` (every document
 * written since `old` was stamped) put where their words now put them, as a new object; `null` when
 * it is not worth it (derive again). `forward`: the shard's forward index now.
 */
export function patchedDerivations(old: TermDerivations, written: RoaringBitmap32, forward: ForwardIndex,
  rankLimit: number, positionLimit: number): TermDerivations | null {
  const words = old.words;
  const count = written.size;
  if (words.length < PATCH_MIN_WORDS || count > PATCH_MAX_DOCUMENTS || count > PATCH_DOCUMENTS_PER_WORD * words.length) return null;
  const levels = (old.wordLevels ??= wordLevels(words));
  const byRank = old.docsByRank;
  const byPosition = old.docsByPosition;
  const levelAdds: number[][] = [[], [], []];
  const rankAdds: number[][] | null = byRank === undefined ? null : byRank.map(() => []);
  const positionAdds: number[][] | null = byPosition === undefined ? null : byPosition.map(() => []);
  const data = forward.arena;
  for (const docId of written) {
    // Not in the shard now (deleted): only taken out.
    const offset = forward.offsetOf(docId);
    if (offset < 0) continue;
    const start = tokensStartAt(data, offset);
    const end = start + tokenCountAt(data, offset) * 2;
    let best = 4;
    for (let k = start; k < end; k += 2) {
      const level = levelIn(levels, data[k]!);
      if (level === 0) continue;
      if (level < best) best = level;
      const fieldPosition = data[k + 1]!;
      if (rankAdds !== null) {
        const rank = fieldRankAt(data, offset, fieldPosition >>> 16);
        if (rank < rankLimit && rank < rankAdds.length) rankAdds[rank]!.push(docId);
      }
      if (positionAdds !== null) {
        const position = fieldPosition & 0xffff;
        if (position < positionLimit && position < positionAdds.length) positionAdds[position]!.push(docId);
      }
    }
    if (best < 4) levelAdds[best - 1]!.push(docId);
  }
  const docsByTypo = old.docsByTypo.map((level, k) => updated(level, written, levelAdds[k]!));
  const patched: TermDerivations = { words, docs: updated(old.docs, written, levelAdds.flat()), docsByTypo };
  if (byRank !== undefined) patched.docsByRank = byRank.map((docs, key) => updated(docs, written, rankAdds![key]!));
  if (byPosition !== undefined) patched.docsByPosition = byPosition.map((docs, key) => updated(docs, written, positionAdds![key]!));
  // What depends on the words alone.
  if (old.wordIds !== undefined) patched.wordIds = old.wordIds;
  if (old.exactWordIds !== undefined) patched.exactWordIds = old.exactWordIds;
  if (old.lookupArrays !== undefined) patched.lookupArrays = old.lookupArrays;
  patched.wordLevels = levels;
  return patched;
}

/** `docs` without the written documents, with `adds`: a new bitmap (`docs` may be a word's own list), the shared empty one when empty. */
function updated(docs: RoaringBitmap32, written: RoaringBitmap32, adds: readonly number[]): RoaringBitmap32 {
  if (adds.length === 0 && (docs.isEmpty || !docs.intersects(written))) return docs;
  const copy = docs.isEmpty ? new roaring.RoaringBitmap32() : docs.clone();
  copy.andNotInPlace(written);
  if (adds.length > 0) copy.addMany(adds);
  return copy.isEmpty ? NO_DOCUMENTS : copy;
}
