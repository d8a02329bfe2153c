// The shard worker thread's search scratch (src/ranking/search-scratch.ts, where what it holds, its
// lifetime and its size are written down): one kept between searches, lent to one search at a time (a
// search nested in another's yield point gets one of its own, dropped after), and given back with its
// bitmaps cleared at the search's end (ShardSearchContext.release, in a finally).
import { SearchScratch } from '../../ranking/search-scratch.js';

/** The scratch waiting for the next search (null while a search holds it). */
let spare: SearchScratch | null = new SearchScratch();
/** Searches holding a scratch now (0 between searches: each gives it back at its end, even when it throws). */
let searchesHolding = 0;

export function takeSearchScratch(): SearchScratch {
  searchesHolding++;
  const scratch = spare ?? new SearchScratch();
  spare = null;
  return scratch;
}

/** The search's end: every bitmap it was lent is cleared, and the scratch waits for the next search. */
export function giveBackSearchScratch(scratch: SearchScratch): void {
  searchesHolding--;
  scratch.bitmaps.releaseAll();
  spare ??= scratch;
}

/** Tests: searches holding a scratch, and the cleared bitmaps kept for the next search. */
export function threadScratchState(): { searchesHolding: number; freeBitmaps: number } {
  return { searchesHolding, freeBitmaps: spare?.bitmaps.freeCount ?? 0 };
}
