// Documents by filter: GET .../documents?filter= and POST .../documents/fetch (a placeholder search with
// the filter and no sort, whose hits come in ascending internal id order — the browse order — and whose
// candidates are the total), and POST .../documents/delete (a task). Errors use invalid_document_filter.
import { documentTextWithVectors } from '../../documents/vectors-field.js';
import { requireContainsFeature } from '../../storage/experimental-features.js';
import { storageKeyOf } from '../../storage/records.js';
import { numbersPrintAsWritten, parseExactJson, stringifyExactJson } from '../../documents/exact-json.js';
import { FieldSelection, projectDocument } from '../../documents/projection.js';
import { mayBeStoredId } from '../../documents/document-id.js';
import { SkeinError } from '../../errors/index.js';
import { documentMatches } from '../../filter/document-match.js';
import { checkFilterAgainstSettings, parseFilterParameter } from '../../filter/filter-input.js';
import { denyUnknownFields, invalidValueType, isPlainObject, missingField } from '../http/deserr-messages.js';
import { jsonReply, type FrontRequest } from '../http/http-types.js';
import { validateIndexUid } from './index-uid.js';
import { customMetadata } from '../tasks/task-annotations.js';
import { checkFilterSize, checkListLength, REQUEST_LIMITS } from '../http/request-limits.js';
import { mergeShardResults } from '../search/shard-results.js';
import { hitDocuments } from '../search/stored-hits.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';
import type { FilterParameter, ShardQueryResultMessage, ShardSearchOptions } from '../../protocol/messages.js';
import type { FilterNode } from '../../filter/filter-ast.js';
import type { IndexRecord } from '../../storage/records.js';
import type { NetworkSearch } from '../../network/network-search.js';
import { readFeatures } from '../../storage/experimental-features.js';
import { resolveShardConditions } from '../../filter/shard-filter.js';
import { withShardFilter } from '../../network/network-node.js';
import { mayNameForeign, refuseForeign, resolveForeignFilter } from '../search/foreign-filter.js';

export interface DocumentsFetch {
  offset: number;
  limit: number;
  fields: string[] | null;
  /** The filter parameter (string or array form) or null. */
  filter: unknown;
  ids: string[] | null;
  /** Sort criteria (`field:asc|desc`), checked against sortableAttributes by the shards; null or empty: internal id order. */
  sort: string[] | null;
  /** `_vectors` shown (last) or hidden (documents/vectors-field.ts). */
  retrieveVectors: boolean;
  /** Every shard group's documents (src/network), not only this node's; null: absent. */
  useNetwork?: boolean | null;
}

/**
 * Browse with optional `ids` and `filter`. A filter alone is a placeholder search on the shards (hits
 * in ascending internal id order, the browse order); with ids, each listed document is matched here.
 * `useNetwork`: every shard group's documents (fetchOverNetwork).
 */
export async function fetchDocuments(context: FrontContext, uid: string, request: DocumentsFetch): Promise<string> {
  const network = documentsNetwork(context, request.useNetwork);
  if (network) return fetchOverNetwork(context, uid, request, network);
  const record = context.indexes.require(uid);
  // The documents and shards are named by the record's storage key (a swap moves records, not data).
  const key = storageKeyOf(record);
  const { node, options } = checkedFilter(context, record, await withoutForeign(context, uid, record, request.filter));
  const { offset, limit, fields } = request;
  const selection = fields === null ? null : new FieldSelection(fields);
  const page = (texts: string[], total: number) =>
    `{"results":[${texts.map((text) => documentTextWithVectors(projectText(text, selection), request.retrieveVectors)).join(',')}],"offset":${offset},"limit":${limit},"total":${total}}`;
  const sorted = request.sort !== null && request.sort.length > 0;
  if (request.ids !== null && sorted) {
    throw new SkeinError('feature_not_enabled', 'Fetching documents by `ids` with a `sort` is not supported by this server yet.');
  }
  if (request.ids !== null) {
    const texts = documentsByIds(context, key, request.ids, node);
    return page(texts.slice(offset, offset + limit), texts.length);
  }
  if (node === null && !sorted) {
    const texts: string[] = [];
    if (limit > 0) for (const { value } of context.storage.documents.getRange({ start: [key, 0], end: [key, 0xffffffff + 1], offset, limit })) texts.push(value);
    return page(texts, record.documentCount);
  }
  const results = await context.search.search({
    indexUid: key, q: null, hitsWanted: offset + limit, matchingStrategy: 'last',
    attributesToRetrieve: fields === null || fields.includes('*') ? null : fields, exhaustiveCount: true,
    // documents: the shards order by the sort alone and check it with invalid_document_sort (search-plan.ts).
    // (the filter was checked above: parseFilterParameter)
    options: { ...options, ...(sorted ? { sort: request.sort } : {}) },
  }, record.shardCount);
  const { hits, candidates: total } = mergeShardResults(results, offset, limit);
  const documents = hitDocuments(context.storage.documents, key, hits).map((text) => documentTextWithVectors(String(text), request.retrieveVectors));
  return `{"results":[${documents.join(',')}],"offset":${offset},"limit":${limit},"total":${total}}`;
}

/** The filter with its `_foreign(..)` conditions evaluated on their foreign indexes (foreign-filter.ts). */
function withoutForeign(context: FrontContext, uid: string, record: IndexRecord, filter: unknown): Promise<unknown> | unknown {
  return mayNameForeign(filter) ? resolveForeignFilter(context, uid, record, filter as FilterParameter, 'invalid_document_filter') : filter;
}

/** The filter parsed, its `_shard` conditions resolved (their errors keep the search code, as Meilisearch's), checked against the settings. */
function checkedFilter(context: FrontContext, record: IndexRecord, filter: unknown): { node: FilterNode | null; options: ShardSearchOptions } {
  let node = parseFilterParameter(filter, 'invalid_document_filter');
  const options: ShardSearchOptions = withShardFilter(context.network, context.storage.meta, { filter: filter as FilterParameter | null, documents: true });
  if (node) {
    const resolved = resolveShardConditions(node, options.shardFilter);
    node = resolved.node;
    checkFilterAgainstSettings(node, record.settings.filterableAttributes ?? [], 'invalid_document_filter');
    requireContainsFeature(context.storage.meta, filter);
    if (resolved.error) throw resolved.error;
  }
  return { node, options };
}

/** The listed documents this node holds that match the filter, in internal id order. */
function documentsByIds(context: FrontContext, key: string, ids: string[], node: FilterNode | null, docIdsOut?: number[]): string[] {
  const docIds = ids.filter(mayBeStoredId).map((id) => context.storage.externalIds.get([key, id])).filter((docId): docId is number => docId !== undefined);
  const texts: string[] = [];
  for (const docId of [...new Set(docIds)].sort((a, b) => a - b)) {
    const text = context.storage.documents.get([key, docId]);
    if (text !== undefined && (node === null || documentMatches(node, JSON.parse(text) as Record<string, unknown>))) {
      texts.push(text);
      docIdsOut?.push(docId);
    }
  }
  return texts;
}

/**
 * `useNetwork` on a documents route: Meilisearch requires the network feature for the parameter itself;
 * true, with shard groups: the network search (else this node answers alone, as a search does).
 */
export function documentsNetwork(context: FrontContext, useNetwork: boolean | null | undefined): NetworkSearch | null {
  if (useNetwork === null || useNetwork === undefined) return null;
  if (!readFeatures(context.storage.meta).network) {
    throw new SkeinError('feature_not_enabled', 'passing `useNetwork` in a search query requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805');
  }
  return useNetwork ? context.network?.forSearch() ?? null : null;
}

/**
 * This node's share of a documents request, as a shard search answers (hits with their sort values
 * and internal ids, the count): what a network fetch merges, here and on the remote that is asked
 * (`_network-documents`). The window starts at 0; hits carry their stored JSON unprojected.
 */
export async function localDocumentResults(context: FrontContext, uid: string, request: DocumentsFetch): Promise<ShardQueryResultMessage[]> {
  const record = context.indexes.require(uid);
  const key = storageKeyOf(record);
  const { node, options } = checkedFilter(context, record, await withoutForeign(context, uid, record, request.filter));
  const sorted = request.sort !== null && request.sort.length > 0;
  if (request.ids !== null && sorted) {
    throw new SkeinError('feature_not_enabled', 'Fetching documents by `ids` with a `sort` is not supported by this server yet.');
  }
  const wanted = request.offset + request.limit;
  if (request.ids !== null) {
    const docIds: number[] = [];
    const texts = documentsByIds(context, key, request.ids, node, docIds);
    const hits = texts.slice(0, wanted).map((document, k) => ({ docId: docIds[k]!, score: [], document }));
    return [{ requestId: 0, error: null, candidates: texts.length, hits, extras: null }];
  }
  const results = await context.search.search({
    indexUid: key, q: null, hitsWanted: wanted, matchingStrategy: 'last', attributesToRetrieve: null, exhaustiveCount: true,
    options: { ...options, ...(sorted ? { sort: request.sort } : {}) },
  }, record.shardCount, true);
  for (const result of results) {
    for (const hit of result.hits) hit.document ??= context.storage.documents.get([key, hit.docId]) ?? null;
    result.hits = result.hits.filter((hit) => hit.document !== null);
  }
  return results;
}

/**
 * Every shard group's documents (Meilisearch's documents fetch over the network): each group's first
 * offset + limit, merged by sort values then internal id (the order one node holding everything
 * gives), the totals summed; a group none of whose nodes answered goes to `remoteErrors`.
 */
async function fetchOverNetwork(context: FrontContext, uid: string, request: DocumentsFetch, network: NetworkSearch): Promise<string> {
  const { offset, limit, fields } = request;
  const whole: DocumentsFetch = { ...request, offset: 0, limit: offset + limit };
  const body = { offset: 0, limit: offset + limit, filter: request.filter, ids: request.ids, sort: request.sort };
  const { results, remoteErrors } = await network.documents(uid, body, () => localDocumentResults(context, uid, whole));
  const { hits, candidates } = mergeShardResults(results, offset, limit);
  const selection = fields === null ? null : new FieldSelection(fields);
  const documents = hits.map((hit) => documentTextWithVectors(projectText(hit.document!, selection), request.retrieveVectors));
  const errors = remoteErrors ? `,"remoteErrors":${JSON.stringify(remoteErrors)}` : '';
  return `{"results":[${documents.join(',')}],"offset":${offset},"limit":${limit},"total":${candidates}${errors}}`;
}

/** The stored JSON text, re-serialized only when some fields are selected. */
export function projectText(text: string, fields: FieldSelection | null): string {
  if (fields === null || fields.all) return text;
  if (numbersPrintAsWritten(text)) return JSON.stringify(projectDocument(JSON.parse(text) as Record<string, unknown>, fields));
  // Numbers JavaScript would rewrite keep their literal (exact-json.ts).
  return stringifyExactJson(projectDocument(parseExactJson(text) as Record<string, unknown>, fields));
}

/**
 * The JSON body with numbers JavaScript would rewrite kept as written (JsonNumberText), for routes
 * whose numbers are document ids: 9007199254740993 must not name 9007199254740992.
 */
export function exactJsonBody(request: FrontRequest): unknown {
  const text = request.body.toString('utf8');
  return numbersPrintAsWritten(text) ? request.json : parseExactJson(text);
}

/** GET `filter` is JSON first (so the array form works), else the raw expression. */
export function documentsFilterParameter(raw: string): unknown {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'string' || Array.isArray(parsed)) return parsed;
  } catch {
    // An ordinary filter expression.
  }
  return raw;
}

/** POST /indexes/{uid}/documents/fetch: the browse with a JSON body. */
export function parseFetchBody(body: unknown): DocumentsFetch {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, ['offset', 'limit', 'fields', 'retrieveVectors', 'filter', 'ids', 'sort', 'useNetwork']);
  const usize = (name: string, code: 'invalid_document_offset' | 'invalid_document_limit', fallback: number): number => {
    const value = body[name];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidValueType(code, `.${name}`, 'a positive integer', value);
    return value;
  };
  const fields = body.fields ?? null;
  if (fields !== null && (!Array.isArray(fields) || fields.some((field) => typeof field !== 'string'))) {
    throw invalidValueType('invalid_document_fields', '.fields', 'an array', fields);
  }
  if (fields !== null) checkListLength('invalid_document_fields', { kind: 'body', path: '.fields' }, fields as string[], REQUEST_LIMITS.listEntries);
  const filter = body.filter ?? null;
  if (filter !== null && typeof filter !== 'string' && !Array.isArray(filter)) throw invalidValueType('invalid_document_filter', '.filter', 'a string or an array', filter);
  checkFilterSize('invalid_document_filter', { kind: 'body', path: '.filter' }, filter);
  const ids = body.ids ?? null;
  if (ids !== null && !Array.isArray(ids)) throw invalidValueType('invalid_document_ids', '.ids', 'an array', ids);
  if (body.retrieveVectors !== undefined && body.retrieveVectors !== null && typeof body.retrieveVectors !== 'boolean') {
    throw invalidValueType('invalid_document_retrieve_vectors', '.retrieveVectors', 'a boolean', body.retrieveVectors);
  }
  if (body.useNetwork !== undefined && body.useNetwork !== null && typeof body.useNetwork !== 'boolean') {
    throw invalidValueType('invalid_document_use_network', '.useNetwork', 'a boolean', body.useNetwork);
  }
  const sort = body.sort ?? null;
  if (sort !== null && (!Array.isArray(sort) || sort.some((criterion) => typeof criterion !== 'string'))) {
    throw invalidValueType('invalid_document_sort', '.sort', 'an array', sort);
  }
  if (sort !== null) checkListLength('invalid_document_sort', { kind: 'body', path: '.sort' }, sort as string[], REQUEST_LIMITS.listEntries);
  return {
    offset: usize('offset', 'invalid_document_offset', 0),
    limit: usize('limit', 'invalid_document_limit', 20),
    fields: fields as string[] | null,
    filter,
    ids: ids === null ? null : (ids as unknown[]).map((id) => (typeof id === 'string' ? id : JSON.stringify(id))),
    sort: sort as string[] | null,
    retrieveVectors: body.retrieveVectors === true,
    useNetwork: (body.useNetwork ?? null) as boolean | null,
  };
}

/** POST /indexes/{uid}/documents/fetch, and POST .../documents/delete whose filter syntax is checked now, filterability when the task runs. */
export const documentsFilterRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/documents/fetch', action: 'documents.get', body: 'json',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const fetch = parseFetchBody(request.json);
      if (fetch.ids !== null) {
        // Ids as written: 9007199254740993 must not name 9007199254740992 (the other fields as parsed).
        const exact = exactJsonBody(request);
        if (exact !== request.json) fetch.ids = ((exact as { ids: unknown[] }).ids).map((id) => (typeof id === 'string' ? id : stringifyExactJson(id)));
      }
      return { status: 200, body: await fetchDocuments(context, uid, fetch) };
    },
  },
  {
    method: 'POST', path: '/indexes/{indexUid}/documents/delete', action: 'documents.delete', body: 'json',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const body = request.json;
      if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
      denyUnknownFields(body, ['filter']);
      if (body.filter === undefined) throw missingField('missing_document_filter', 'filter');
      const filter = body.filter;
      if (filter !== null && typeof filter !== 'string' && !Array.isArray(filter)) {
        throw invalidValueType('invalid_document_filter', '.filter', 'a string or an array', filter);
      }
      checkFilterSize('invalid_document_filter', { kind: 'body', path: '.filter' }, filter);
      const node = parseFilterParameter(filter, 'invalid_document_filter');
      if (node === null) throw new SkeinError('invalid_document_filter', 'Sending an empty filter is forbidden.');
      requireContainsFeature(context.storage.meta, filter);
      refuseForeign(context, node, 'invalid_document_filter');
      // `_shard` (Meilisearch checks the network feature now): resolved when the task runs, with the groups
      // it carries (scheduler/operations/delete-by-filter.ts; in cluster mode each node puts its own: network-node.ts).
      const shard = withShardFilter(context.network, context.storage.meta, { filter: filter as FilterParameter } as ShardSearchOptions).shardFilter;
      if (shard) resolveShardConditions(node, shard);
      const shardGroups = shard ? { shardGroups: { names: shard[1], own: shard[2][0] ?? null } } : {};
      return jsonReply(202, await context.scheduler.enqueue({ type: 'documentDeletion', indexUid: uid, byFilter: filter, ...shardGroups, ...customMetadata(request.query) }));
    },
  },
];
