// Merging the best-first hit lists of several shard workers into one ranking.
import type { HitMessage } from '../protocol/messages.js';

/** Scores compare lexicographically, lower first; equal scores rank by docId ascending. */
export function compareHits(a: HitMessage, b: HitMessage): number {
  const length = Math.min(a.score.length, b.score.length);
  for (let i = 0; i < length; i++) {
    const diff = a.score[i]! - b.score[i]!;
    if (diff !== 0) return diff;
  }
  if (a.score.length !== b.score.length) return a.score.length - b.score.length;
  return a.docId - b.docId;
}

/**
 * The hits ranked [offset, offset + limit) over all lists, each list being sorted best first.
 * k is the number of workers (small), so a linear scan for the best head beats a heap.
 */
export function mergeHits(lists: readonly HitMessage[][], offset: number, limit: number): HitMessage[] {
  const heads = lists.map(() => 0);
  const out: HitMessage[] = [];
  const end = offset + limit;
  for (let rank = 0; rank < end; rank++) {
    let bestList = -1;
    for (let i = 0; i < lists.length; i++) {
      const hit = lists[i]![heads[i]!];
      if (hit === undefined) continue;
      if (bestList < 0 || compareHits(hit, lists[bestList]![heads[bestList]!]!) < 0) bestList = i;
    }
    if (bestList < 0) break;
    const hit = lists[bestList]![heads[bestList]!]!;
    heads[bestList]!++;
    if (rank >= offset) out.push(hit);
  }
  return out;
}
