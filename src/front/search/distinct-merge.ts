// distinct across workers: each worker sends its best hit per distinct value (keys in
// extras.distinctKeys, aligned with its hits); a value may live in several workers, so the merged
// ranking keeps only its first (best) hit. Exact: a value's best hit is the best of the workers' bests.
import type { HitMessage, ShardQueryResultMessage } from '../../protocol/messages.js';
import { mergeRankedHits } from '../../ranking/scores/merge-ranked-hits.js';

type KeyedHit = HitMessage & { distinctKey: string | null };

export function hasDistinctKeys(results: readonly ShardQueryResultMessage[]): boolean {
  return results.some((result) => Array.isArray(result.extras?.distinctKeys));
}

export function mergeDistinctHits(results: readonly ShardQueryResultMessage[], offset: number, limit: number): HitMessage[] {
  const lists: KeyedHit[][] = results.map((result) => {
    const keys = result.extras?.distinctKeys ?? [];
    return result.hits.map((hit, k) => ({ ...hit, distinctKey: keys[k] ?? null }));
  });
  const seen = new Set<string>();
  const out: HitMessage[] = [];
  let rank = 0;
  for (const hit of mergeRankedHits(lists, 0, Infinity)) {
    if (hit.distinctKey !== null) {
      if (seen.has(hit.distinctKey)) continue;
      seen.add(hit.distinctKey);
    }
    if (rank >= offset) out.push(hit);
    if (++rank >= offset + limit) break;
  }
  return out;
}

/** Matching documents once duplicates are removed across workers: the union of the keys they may share, plus what each counted alone. */
export function distinctCandidates(results: readonly ShardQueryResultMessage[]): number {
  const keys = new Set<string>();
  let unshared = 0;
  for (const result of results) {
    const count = result.extras?.distinctCount;
    if (!count) continue;
    for (const key of count.keys) keys.add(key);
    unshared += count.unshared;
  }
  return keys.size + unshared;
}
