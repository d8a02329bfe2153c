// POST /indexes/{uid}/documents/delete: the filter is checked against the index's filterable
// attributes when the task is processed (not at enqueue), then every live document of the staged
// index is matched one by one (src/filter/document-match.ts) and the matches are deleted.
import { SkeinError } from '../../errors/index.js';
import { documentMatches } from '../../filter/document-match.js';
import { checkFilterAgainstSettings, parseFilterParameter } from '../../filter/filter-input.js';
import { resolveShardConditions, type ShardFilterContext } from '../../filter/shard-filter.js';
import { applyDocumentDeletion } from './document-operations.js';
import { requireIndex } from './index-operations.js';
import type { StagedIndex } from '../batching/staged-index.js';

/**
 * Returns deletedDocuments. A filter naming `_shard` is resolved with the groups the task carries
 * (the network's at the task's place in the log, and this node's own: network-move.ts placedAddition),
 * so every node of a cluster deletes what it holds of the named groups (Meilisearch's: each remote
 * evaluates `_shard` against the shards it holds), its errors as a search's (filter/shard-filter.ts).
 */
export function applyDocumentDeletionByFilter(stage: StagedIndex, content: { byFilter: unknown; shardGroups?: { names: string[]; own: string | null } }): number {
  const groups = content.shardGroups;
  // The front checked the network feature when it took the task (a filter naming `_shard` carries its groups).
  const shardFilter: ShardFilterContext | undefined = groups ? [true, groups.names, groups.own === null ? [] : [groups.own]] : undefined;
  return applyDocumentDeletion(stage, documentsMatchingFilter(stage, content.byFilter, shardFilter).map(([externalId]) => externalId));
}

/** Every live document the filter matches: [externalId, docId]; a bad filter throws invalid_document_filter. */
export function documentsMatchingFilter(stage: StagedIndex, filter: unknown, shardFilter?: ShardFilterContext): [string, number][] {
  const record = requireIndex(stage);
  let node;
  try {
    node = parseFilterParameter(filter, 'invalid_document_filter');
    if (node === null) throw new SkeinError('invalid_document_filter', 'Sending an empty filter is forbidden.');
    const resolved = shardFilter === undefined ? null : resolveShardConditions(node, shardFilter);
    if (resolved) node = resolved.node;
    checkFilterAgainstSettings(node, record.settings.filterableAttributes ?? [], 'invalid_document_filter');
    if (resolved?.error) throw resolved.error;
  } catch (cause) {
    if (cause instanceof SkeinError) throw new SkeinError(cause.code, `Index \`${stage.uid}\`: ${cause.message}`);
    throw cause;
  }
  const matching: [string, number][] = [];
  for (const [externalId, docId] of stage.liveExternalIds()) {
    const text = stage.document(docId);
    if (text !== undefined && documentMatches(node, JSON.parse(text) as Record<string, unknown>)) matching.push([externalId, docId]);
  }
  return matching;
}
