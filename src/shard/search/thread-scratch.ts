// The shard worker thread's search scratch (src/ranking/search-scratch.ts, where what it holds, its
// lifetime and its size are written down): one kept between searches, lent to one search at a time (a
// search nested in another's yield point gets one of its own, dropped after), and given back with its
// bitmaps cleared at the search's end (ShardSearchContext.release, in a finally).
import { SearchScratch } from '../../ranking/search-scratch.js';

/**
 * The scratches waiting for the next searches: one per level of nesting kept (searches answered ahead
 * at a yield point, worker.ts NestedBatches, are nested searches; a fresh scratch each made and
 * finalized native bitmaps per search).
 */
const spares: SearchScratch[] = [new SearchScratch()];
const MAX_SPARES = 8;
/** Searches holding a scratch now (0 between searches: each gives it back at its end, even when it throws). */
let searchesHolding = 0;

export function takeSearchScratch(): SearchScratch {
  searchesHolding++;
  return spares.pop() ?? new SearchScratch();
}

/** The search's end: every bitmap it was lent is cleared, and the scratch waits for the next search. */
export function giveBackSearchScratch(scratch: SearchScratch): void {
  searchesHolding--;
  scratch.bitmaps.releaseAll();
  if (spares.length < MAX_SPARES) spares.push(scratch);
}

/** Tests: searches holding a scratch, and the cleared bitmaps kept for the next search. */
export function threadScratchState(): { searchesHolding: number; freeBitmaps: number } {
  return { searchesHolding, freeBitmaps: spares[spares.length - 1]?.bitmaps.freeCount ?? 0 };
}
