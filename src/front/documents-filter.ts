// Documents by filter: GET .../documents?filter= and POST .../documents/fetch (a placeholder search with
// the filter and no sort, whose hits come in ascending internal id order — the browse order — and whose
// candidates are the total), and POST .../documents/delete (a task). Errors use invalid_document_filter.
import { documentTextWithVectors } from '../documents/vectors-field.js';
import { storageKeyOf } from '../storage/records.js';
import { numbersPrintAsWritten, parseExactJson, stringifyExactJson } from '../documents/exact-json.js';
import { FieldSelection, projectDocument } from '../documents/projection.js';
import { mayBeStoredId } from '../documents/document-id.js';
import { SkeinError } from '../errors/index.js';
import { attributePatternsOf } from '../filter/attribute-patterns.js';
import { documentMatches } from '../filter/document-match.js';
import { checkFilterAgainstSettings, parseFilterParameter } from '../filter/filter-input.js';
import { denyUnknownFields, invalidValueType, isPlainObject, missingField } from './deserr-messages.js';
import { jsonReply, type FrontRequest } from './http-types.js';
import { validateIndexUid } from './index-uid.js';
import { customMetadata } from './task-annotations.js';
import { checkFilterSize, checkListLength, REQUEST_LIMITS } from './request-limits.js';
import { mergeShardResults } from './shard-results.js';
import { hitDocuments } from './stored-hits.js';
import type { FrontContext, RouteSpec } from './route-spec.js';
import type { FilterParameter, ShardSearchOptions } from '../protocol/messages.js';
import { resolveShardConditions } from '../filter/shard-filter.js';
import { withShardFilter } from '../network/network-node.js';

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
}

/**
 * Browse with optional `ids` and `filter`. A filter alone is a placeholder search on the shards (hits
 * in ascending internal id order, the browse order); with ids, each listed document is matched here.
 */
export async function fetchDocuments(context: FrontContext, uid: string, request: DocumentsFetch): Promise<string> {
  const record = context.indexes.require(uid);
  // The documents and shards are named by the record's storage key (a swap moves records, not data).
  const key = storageKeyOf(record);
  let node = parseFilterParameter(request.filter, 'invalid_document_filter');
  const options: ShardSearchOptions = withShardFilter(context.network, context.storage.meta, { filter: request.filter as FilterParameter | null, documents: true });
  if (node) {
    // `_shard`: resolved on this node; its errors keep the search code, as Meilisearch's (filter/shard-filter.ts).
    const resolved = resolveShardConditions(node, options.shardFilter);
    node = resolved.node;
    checkFilterAgainstSettings(node, attributePatternsOf(record.settings.filterableAttributes ?? []), 'invalid_document_filter');
    if (resolved.error) throw resolved.error;
  }
  const { offset, limit, fields } = request;
  const selection = fields === null ? null : new FieldSelection(fields);
  const page = (texts: string[], total: number) =>
    `{"results":[${texts.map((text) => documentTextWithVectors(projectText(text, selection), request.retrieveVectors)).join(',')}],"offset":${offset},"limit":${limit},"total":${total}}`;
  const sorted = request.sort !== null && request.sort.length > 0;
  if (request.ids !== null && sorted) {
    throw new SkeinError('feature_not_enabled', 'Fetching documents by `ids` with a `sort` is not supported by this server yet.');
  }
  if (request.ids !== null) {
    const docIds = request.ids.filter(mayBeStoredId).map((id) => context.storage.externalIds.get([key, id])).filter((docId): docId is number => docId !== undefined);
    const texts: string[] = [];
    for (const docId of [...new Set(docIds)].sort((a, b) => a - b)) {
      const text = context.storage.documents.get([key, docId]);
      if (text !== undefined && (node === null || documentMatches(node, JSON.parse(text) as Record<string, unknown>))) texts.push(text);
    }
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
function parseFetchBody(body: unknown): DocumentsFetch {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, ['offset', 'limit', 'fields', 'retrieveVectors', 'filter', 'ids', 'sort']);
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
      if (parseFilterParameter(filter, 'invalid_document_filter') === null) {
        throw new SkeinError('invalid_document_filter', 'Sending an empty filter is forbidden.');
      }
      return jsonReply(202, await context.scheduler.enqueue({ type: 'documentDeletion', indexUid: uid, byFilter: filter, ...customMetadata(request.query) }));
    },
  },
];
