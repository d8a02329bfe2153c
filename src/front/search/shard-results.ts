// The one merge of the shard workers' answers to a search: the hit window and the candidate count,
// with distinct keys deduplicated across workers when the shards sent them.
import type { HitMessage, ShardQueryResultMessage } from '../../protocol/messages.js';
import { mergeRankedHits } from '../../ranking/scores/merge-ranked-hits.js';
import { distinctCandidates, hasDistinctKeys, mergeDistinctHits } from './distinct-merge.js';

export function mergeShardResults(results: ShardQueryResultMessage[], offset: number, limit: number): { hits: HitMessage[]; candidates: number } {
  if (hasDistinctKeys(results)) return { hits: mergeDistinctHits(results, offset, limit), candidates: distinctCandidates(results) };
  let candidates = 0;
  for (const result of results) candidates += result.candidates;
  return { hits: mergeRankedHits(results.map((result) => result.hits), offset, limit), candidates };
}
