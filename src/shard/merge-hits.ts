// Merging the ranked hits of several shards: the same order a single shard would have produced,
// because scores are absolute (see src/ranking/ranking-rule.ts invariant 4).
import { compareRankedHits, type RankedHit } from '../ranking/bucket-sort.js';

export function mergeRankedHits<T extends RankedHit>(lists: readonly (readonly T[])[], limit: number): T[] {
  if (lists.length === 1) return lists[0]!.slice(0, limit);
  const cursors = lists.map(() => 0);
  const out: T[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const candidate = lists[k]![cursors[k]!];
      if (candidate === undefined) continue;
      if (best < 0 || compareRankedHits(candidate, lists[best]![cursors[best]!]!) < 0) best = k;
    }
    if (best < 0) break;
    out.push(lists[best]![cursors[best]!++]!);
  }
  return out;
}
