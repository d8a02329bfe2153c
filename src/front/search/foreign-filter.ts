// The `_foreign(field, filter)` filter (Meilisearch v1.42+, foreignKeys experimental feature; facts from
// crates/index-scheduler/src/filter.rs): the documents whose `field`, a foreignKeys entry of the index,
// holds the id of a document of the foreign index that matches `filter`. As Meilisearch, the front
// evaluates each inner filter on the foreign index first (a placeholder search there, in the documents
// routes' mode: no distinct, no ranking), then the search runs the filter rewritten with `field IN [ids]`
// in Meilisearch's serialization (filterText), which the errors found in it quote.
// Allowed in searches (single, multi, federated), facet search and the documents fetch routes; refused
// by delete-by-filter and edit (FOREIGN_NOT_SUPPORTED, filter-input.ts).
// Bounded: at most 100 foreign documents per foreign index (Meilisearch's MAX_FOREIGN_FILTER_DOCIDS, an
// error past it), at most REQUEST_LIMITS.foreignConditions conditions per filter (each is a search of
// the foreign index, which its searchCutoffMs bounds), all sent in one event-loop turn.
import { valueAtPrimaryKey } from '../../documents/document-id.js';
import { parseStoredJson } from '../../documents/exact-json.js';
import { SkeinError } from '../../errors/index.js';
import { filterText, foreignConditions, type FilterNode, type Token } from '../../filter/filter-ast.js';
import { errorAtToken, positionedMessage, type FilterErrorCode } from '../../filter/filter-error.js';
import { FOREIGN_NOT_SUPPORTED, parseFilterParameter } from '../../filter/filter-input.js';
import { withShardFilter } from '../../network/network-node.js';
import type { FilterParameter, ShardSearchOptions } from '../../protocol/messages.js';
import { readFeatures } from '../../storage/experimental-features.js';
import { storageKeyOf, type IndexRecord } from '../../storage/records.js';
import { REQUEST_LIMITS } from '../http/request-limits.js';
import type { FrontContext } from '../http/route-spec.js';
import { mergeShardResults } from './shard-results.js';

/** Meilisearch's MAX_FOREIGN_FILTER_DOCIDS: foreign documents one request may name per foreign index. */
export const MAX_FOREIGN_DOCUMENTS = 100;

const FEATURE_OFF = 'using a foreign filter requires enabling the `foreign_keys` experimental feature. See https://github.com/orgs/meilisearch/discussions/873';

type Foreign = Extract<FilterNode, { kind: 'foreign' }>;

/** Cheap test on the raw filter parameter (string or array form): may it hold a `_foreign` condition? */
export function mayNameForeign(filter: unknown): boolean {
  if (typeof filter === 'string') return filter.includes('_foreign');
  if (Array.isArray(filter)) return filter.some(mayNameForeign);
  return false;
}

/**
 * An error about the whole request, not one query of it: Meilisearch's federated search resolves the
 * foreign filters of every query before searching (`without_index`), so it names no query.
 */
export function isRequestWide(error: SkeinError): boolean {
  return (error as { requestWide?: boolean }).requestWide === true;
}

function requestWide(error: SkeinError): SkeinError {
  return Object.defineProperty(error, 'requestWide', { value: true });
}

/** The `_foreign` conditions in the order Meilisearch's ForeignFilterIter meets them (a stack: the last member of AND / OR first). */
function meilisearchOrder(node: FilterNode): Foreign[] {
  const out: Foreign[] = [];
  const stack: FilterNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.kind === 'foreign') out.push(current);
    else if (current.kind === 'not') stack.push(current.child);
    else if (current.kind === 'and' || current.kind === 'or') stack.push(...current.children);
  }
  return out;
}

/** Meilisearch's check of the foreignKeys feature for a filter naming `_foreign` (feature_not_enabled, at its field). */
export function requireForeignFeature(context: Pick<FrontContext, 'storage'>, node: FilterNode): void {
  const first = meilisearchOrder(node)[0] ?? foreignConditions(node)[0];
  if (first === undefined || readFeatures(context.storage.meta).foreignKeys) return;
  throw new SkeinError('feature_not_enabled', positionedMessage(FEATURE_OFF, first.field.source, first.field.start, first.field.end, first.field.shownFrom));
}

/** Routes without `_foreign` (delete by filter, edit): the feature's error first, then Meilisearch's refusal at the first condition. */
export function refuseForeign(context: Pick<FrontContext, 'storage'>, node: FilterNode | null, code: FilterErrorCode): void {
  const first = node === null ? undefined : foreignConditions(node)[0];
  if (first === undefined) return;
  requireForeignFeature(context, node!);
  throw errorAtToken(code, FOREIGN_NOT_SUPPORTED, first.field);
}

/**
 * The filter to send for a search of `index` (`uid`) whose filter may name `_foreign`: unchanged when
 * it names none, else its text with each `_foreign(field, inner)` replaced by `field IN [ids]`.
 * `code`: the syntax errors' (the route's filter code).
 */
export async function resolveForeignFilter(context: FrontContext, uid: string, index: IndexRecord, filter: FilterParameter,
  code: FilterErrorCode): Promise<FilterParameter> {
  const node = parseFilterParameter(filter, code);
  if (node === null) return filter;
  const conditions = foreignConditions(node);
  if (conditions.length === 0) return filter;
  requireForeignFeature(context, node);
  if (conditions.length > REQUEST_LIMITS.foreignConditions) {
    throw new SkeinError(code, `Too many \`_foreign\` conditions: the filter has ${conditions.length}, more than the ${REQUEST_LIMITS.foreignConditions} this server accepts.`);
  }
  const foreignKeys = index.settings.foreignKeys ?? [];
  const foreignUidOf = new Map<Foreign, string>();
  for (const condition of meilisearchOrder(node)) {
    const key = foreignKeys.find((entry) => entry.fieldName === condition.field.text);
    if (key === undefined) throw requestWide(new SkeinError('invalid_search_filter', `Index \`${uid}\`: Field \`${condition.field.text}\` is not a foreign key`));
    if (foreignConditions(condition.filter).length > 0) {
      throw requestWide(new SkeinError('invalid_search_filter', `Index \`${uid}\`: Nested foreign filters are not supported`));
    }
    foreignUidOf.set(condition, key.foreignIndexUid);
  }
  // Each condition's matching foreign documents, every search sent in this turn.
  const foreignIndexes = new Map<string, IndexRecord>();
  for (const foreignUid of foreignUidOf.values()) {
    if (foreignIndexes.has(foreignUid)) continue;
    const foreign = context.indexes.get(foreignUid);
    if (foreign === null) throw requestWide(new SkeinError('index_not_found', `Index \`${foreignUid}\` not found.`));
    foreignIndexes.set(foreignUid, foreign);
  }
  const matches = await Promise.all(conditions.map((condition, k) =>
    foreignMatches(context, foreignUidOf.get(condition)!, foreignIndexes.get(foreignUidOf.get(condition)!)!, filter, k)));
  // At most 100 foreign documents per foreign index, over all its conditions.
  const union = new Map<string, Set<number>>();
  conditions.forEach((condition, k) => {
    const foreignUid = foreignUidOf.get(condition)!;
    const docIds = union.get(foreignUid) ?? new Set<number>();
    union.set(foreignUid, docIds);
    for (const docId of matches[k]!.docIds) docIds.add(docId);
    if (matches[k]!.over || docIds.size > MAX_FOREIGN_DOCUMENTS) {
      throw requestWide(new SkeinError('invalid_search_filter', `Index \`${foreignUid}\`: Foreign filter is retrieving too many documents, foreign filters can't retrieve more than ${MAX_FOREIGN_DOCUMENTS} documents per index`));
    }
  });
  const externalIds = new Map<string, string | null>();
  const idOf = (foreignUid: string, docId: number): string | null => {
    const memo = `${foreignUid}\u0000${docId}`;
    if (!externalIds.has(memo)) {
      const foreign = foreignIndexes.get(foreignUid)!;
      const text = context.storage.documents.get([storageKeyOf(foreign), docId]);
      const value = text === undefined || foreign.primaryKey === null ? undefined : valueAtPrimaryKey(parseStoredJson(String(text)) as Record<string, unknown>, foreign.primaryKey);
      externalIds.set(memo, value === undefined || value === null ? null : String(value));
    }
    return externalIds.get(memo)!;
  };
  const replacement = new Map<Foreign, FilterNode>();
  conditions.forEach((condition, k) => {
    const foreignUid = foreignUidOf.get(condition)!;
    const values: Token[] = [];
    for (const docId of matches[k]!.docIds) {
      const id = idOf(foreignUid, docId);
      if (id !== null) values.push({ text: id, start: 0, end: id.length, source: id });
    }
    replacement.set(condition, { kind: 'in', field: condition.field, values });
  });
  return filterText(rewrite(node, replacement));
}

/** The node with each `_foreign` condition replaced. */
function rewrite(node: FilterNode, replacement: Map<Foreign, FilterNode>): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, children: node.children.map((child) => rewrite(child, replacement)) };
    case 'not':
      return { kind: 'not', child: rewrite(node.child, replacement) };
    case 'foreign':
      return replacement.get(node)!;
    default:
      return node;
  }
}

/**
 * The internal ids (ascending, Meilisearch's order) of the foreign documents matching the k-th `_foreign`
 * condition's inner filter (at most MAX_FOREIGN_DOCUMENTS + 1), `over` when more match. Errors of the
 * inner filter name the foreign index, with Meilisearch's invalid_document_filter.
 */
async function foreignMatches(context: FrontContext, foreignUid: string, foreign: IndexRecord, filter: FilterParameter,
  k: number): Promise<{ docIds: number[]; over: boolean }> {
  const key = storageKeyOf(foreign);
  const options: ShardSearchOptions = withShardFilter(context.network, context.storage.meta, { filter, foreignFilter: k, documents: true });
  const results = await context.search.search({
    indexUid: key, q: null, hitsWanted: MAX_FOREIGN_DOCUMENTS + 1, matchingStrategy: 'last', attributesToRetrieve: null, exhaustiveCount: true, options,
  }, foreign.shardCount).catch((cause: unknown) => {
    if (!(cause instanceof SkeinError)) throw cause;
    const prefix = `Index \`${key}\`: `;
    const message = cause.message.startsWith(prefix) ? cause.message.slice(prefix.length) : cause.message;
    const filterError = cause.code === 'invalid_search_filter' || cause.code === 'invalid_document_filter';
    throw requestWide(new SkeinError(filterError ? 'invalid_document_filter' : cause.code, `Index \`${foreignUid}\`: ${message}`));
  });
  const { hits, candidates } = mergeShardResults(results, 0, MAX_FOREIGN_DOCUMENTS + 1);
  return { docIds: hits.map((hit) => hit.docId).sort((a, b) => a - b), over: candidates > MAX_FOREIGN_DOCUMENTS };
}
