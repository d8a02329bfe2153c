// Merging the best-first hit lists of several shards (inside a worker) or of several workers (in the
// front) into one ranking: the same order a single shard would have produced, because scores are
// absolute (ranking-rule.ts invariant 4).
import { compareRankedHits, type RankedHit } from '../bucket-sort.js';

/**
 * The hits ranked [offset, offset + limit) over all lists, each sorted best first. The number of
 * lists is small (shards of one worker, or workers), so a linear scan for the best head beats a heap.
 */
export function mergeRankedHits<T extends RankedHit>(lists: readonly (readonly T[])[], offset: number, limit: number): T[] {
  if (lists.length === 1) return lists[0]!.slice(offset, offset + limit);
  const cursors = lists.map(() => 0);
  const out: T[] = [];
  for (let rank = 0; rank < offset + limit; rank++) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const candidate = lists[k]![cursors[k]!];
      if (candidate === undefined) continue;
      if (best < 0 || compareRankedHits(candidate, lists[best]![cursors[best]!]!) < 0) best = k;
    }
    if (best < 0) break;
    const hit = lists[best]![cursors[best]!++]!;
    if (rank >= offset) out.push(hit);
  }
  return out;
}
