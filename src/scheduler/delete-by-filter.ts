// POST /indexes/{uid}/documents/delete: the filter is checked against the index's filterable
// attributes when the task is processed (not at enqueue), then every live document of the staged
// index is matched one by one (src/filter/document-match.ts) and the matches are deleted.
import { SkeinError } from '../errors/index.js';
import { documentMatches } from '../filter/document-match.js';
import { checkFilterAgainstSettings, parseFilterParameter } from '../filter/filter-input.js';
import { applyDocumentDeletion } from './document-operations.js';
import { requireIndex } from './index-operations.js';
import type { StagedIndex } from './staged-index.js';

/** Returns deletedDocuments. */
export function applyDocumentDeletionByFilter(stage: StagedIndex, filter: unknown): number {
  return applyDocumentDeletion(stage, documentsMatchingFilter(stage, filter).map(([externalId]) => externalId));
}

/** Every live document the filter matches: [externalId, docId]; a bad filter throws invalid_document_filter. */
export function documentsMatchingFilter(stage: StagedIndex, filter: unknown): [string, number][] {
  const record = requireIndex(stage);
  let node;
  try {
    node = parseFilterParameter(filter, 'invalid_document_filter');
    if (node === null) throw new SkeinError('invalid_document_filter', 'Sending an empty filter is forbidden.');
    checkFilterAgainstSettings(node, record.settings.filterableAttributes ?? [], 'invalid_document_filter');
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
