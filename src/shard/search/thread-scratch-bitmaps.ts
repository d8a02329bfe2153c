// The shard worker thread's scratch bitmaps (src/ranking/scratch-bitmaps.ts): one pool, lent to one
// search at a time (a thread's searches run one after the other; a second holder gets a pool of its
// own), and given back cleared at the search's end (ShardSearchContext.release, in a finally).
import { ScratchBitmaps } from '../../ranking/scratch-bitmaps.js';

/** The pool waiting for the next search (null while a search holds it). */
let spare: ScratchBitmaps | null = new ScratchBitmaps();
/** Searches holding scratch bitmaps now (0 between searches: each gives them back at its end, even when it throws). */
let searchesHolding = 0;

export function takeScratchBitmaps(): ScratchBitmaps {
  searchesHolding++;
  const bitmaps = spare ?? new ScratchBitmaps();
  spare = null;
  return bitmaps;
}

/** The search's end: every bitmap it was lent is cleared, and the pool waits for the next search. */
export function giveBackScratchBitmaps(bitmaps: ScratchBitmaps): void {
  searchesHolding--;
  bitmaps.releaseAll();
  spare ??= bitmaps;
}

/** Tests: searches holding the thread's scratch bitmaps, and the cleared bitmaps kept for the next search. */
export function threadScratchState(): { searchesHolding: number; freeBitmaps: number } {
  return { searchesHolding, freeBitmaps: spare?.freeCount ?? 0 };
}
