// /indexes/{uid}/documents: additions (decoded in the ingest pool), reads straight from LMDB, and
// deletions (enqueued).
import { documentTextWithVectors } from '../../documents/vectors-field.js';
import { storageKeyOf } from '../../storage/records.js';
import { documentsFilterParameter, documentsNetwork, exactJsonBody, fetchDocuments, projectText } from './documents-filter.js';
import { echo, SkeinError } from '../../errors/index.js';
import { FieldSelection } from '../../documents/projection.js';
import { mayBeStoredId } from '../../documents/document-id.js';
import { stringifyExactJson } from '../../documents/exact-json.js';
import type { PayloadContentType } from '../../ingest/payload-types.js';
import {
  booleanParameter, denyUnknownParameters, invalidValueType, listParameter, usizeParameter,
} from '../http/deserr-messages.js';
import { jsonReply, type FrontReply, type FrontRequest } from '../http/http-types.js';
import { validateIndexUid } from './index-uid.js';
import { customMetadata } from '../tasks/task-annotations.js';
import { splitSortParameter } from '../search/search-params.js';
import { ownArrayBuffer } from '../threads/ingest-client.js';
import { documentContentType } from '../http/request-body.js';
import { checkListLength, checkTextLength, REQUEST_LIMITS } from '../http/request-limits.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';

const ADD_PARAMETERS = ['primaryKey', 'csvDelimiter', 'customMetadata', 'skipCreation'];
const BROWSE_PARAMETERS = ['offset', 'limit', 'fields', 'retrieveVectors', 'filter', 'ids', 'sort', 'useNetwork'];
const GET_ONE_PARAMETERS = ['fields', 'retrieveVectors', 'useNetwork'];
const PAYLOAD_TYPES: Record<string, PayloadContentType> = { 'application/json': 'json', 'application/x-ndjson': 'ndjson', 'text/csv': 'csv' };

export const documentsRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/documents', action: 'documents.add', body: 'documents',
    handle: (request, context) => addDocuments(request, context, 'replace'),
  },
  {
    method: 'PUT', path: '/indexes/{indexUid}/documents', action: 'documents.add', body: 'documents',
    handle: (request, context) => addDocuments(request, context, 'update'),
  },
  {
    method: 'GET', path: '/indexes/{indexUid}/documents', action: 'documents.get', body: 'none',
    handle: (request, context) => browseDocuments(request, context),
  },
  {
    method: 'GET', path: '/indexes/{indexUid}/documents/{documentId}', action: 'documents.get', body: 'none',
    handle: (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      denyUnknownParameters(request.query, GET_ONE_PARAMETERS);
      const fields = fieldsParameter(request.query);
      const retrieveVectors = booleanParameter(request.query, 'retrieveVectors', 'invalid_document_retrieve_vectors') === true;
      const useNetwork = booleanParameter(request.query, 'useNetwork', 'invalid_document_use_network');
      const key = storageKeyOf(context.indexes.require(uid));
      const id = request.params.documentId!;
      const docId = mayBeStoredId(id) ? context.storage.externalIds.get([key, id]) : undefined;
      const text = docId === undefined ? undefined : context.storage.documents.get([key, docId]);
      if (text === undefined) {
        // useNetwork: not here, then from the group that holds it (Meilisearch: a fetch by this id over the network).
        if (documentsNetwork(context, useNetwork) === null) throw new SkeinError('document_not_found', `Document \`${echo(id)}\` not found.`);
        const fetch = { offset: 0, limit: 1, fields, filter: null, ids: [id], sort: null, retrieveVectors, useNetwork };
        return fetchDocuments(context, uid, fetch).then((body) => {
          const found = (JSON.parse(body) as { results: unknown[] }).results[0];
          if (found === undefined) throw new SkeinError('document_not_found', `Document \`${echo(id)}\` not found.`);
          return { status: 200, body: JSON.stringify(found) };
        });
      }
      documentsNetwork(context, useNetwork);
      return { status: 200, body: documentTextWithVectors(projectText(text, fields === null ? null : new FieldSelection(fields)), retrieveVectors) };
    },
  },
  {
    method: 'DELETE', path: '/indexes/{indexUid}/documents/{documentId}', action: 'documents.delete', body: 'none',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      return jsonReply(202, await context.scheduler.enqueue({ type: 'documentDeletion', indexUid: uid, ids: [request.params.documentId!], ...customMetadata(request.query) }));
    },
  },
  {
    method: 'POST', path: '/indexes/{indexUid}/documents/delete-batch', action: 'documents.delete', body: 'json',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      if (!Array.isArray(request.json)) throw invalidValueType('bad_request', '.', 'an array', request.json);
      // Meilisearch stringifies non-string ids with JSON formatting (1 -> "1"), numbers as written.
      const ids = (exactJsonBody(request) as unknown[]).map((id) => (typeof id === 'string' ? id : stringifyExactJson(id)));
      return jsonReply(202, await context.scheduler.enqueue({ type: 'documentDeletion', indexUid: uid, ids, ...customMetadata(request.query) }));
    },
  },
  {
    method: 'DELETE', path: '/indexes/{indexUid}/documents', action: 'documents.delete', body: 'none',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      denyUnknownParameters(request.query, ['customMetadata']);
      return jsonReply(202, await context.scheduler.enqueue({ type: 'documentDeletion', indexUid: uid, clear: true, ...customMetadata(request.query) }));
    },
  },
];

async function addDocuments(request: FrontRequest, context: FrontContext, method: 'replace' | 'update') {
  const uid = validateIndexUid(request.params.indexUid!);
  denyUnknownParameters(request.query, ADD_PARAMETERS);
  const primaryKey = request.query.get('primaryKey');
  const csvDelimiter = csvDelimiterParameter(request.query.get('csvDelimiter'));
  const skipCreation = skipCreationParameter(request.query.get('skipCreation'));
  const essence = documentContentType(request.contentType);
  if (csvDelimiter !== null && essence !== 'text/csv') {
    throw new SkeinError('invalid_content_type',
      `The Content-Type \`${request.contentType}\` does not support the use of a csv delimiter. The csv delimiter can only be used with the Content-Type \`text/csv\`.`);
  }
  const decoded = await context.ingest.decode({
    bytes: ownArrayBuffer(request.body),
    contentType: PAYLOAD_TYPES[essence]!,
    csvDelimiter,
    contentEncoding: request.contentEncoding,
    updateFilesDir: context.storage.updateFilesDir,
    sizeLimit: context.options.httpPayloadSizeLimit,
  });
  return jsonReply(202, await context.scheduler.enqueue({
    type: 'documentAdditionOrUpdate', indexUid: uid, method, updateFile: decoded.updateFile,
    documentCount: decoded.documentCount, primaryKey, allowIndexCreation: request.access.allowIndexCreation,
    ...(skipCreation ? { skipCreation } : {}), ...customMetadata(request.query),
  }));
}

/** `fields`, bounded (request-limits.ts). */
function fieldsParameter(query: URLSearchParams): string[] | null {
  const fields = listParameter(query, 'fields');
  if (fields !== null) checkListLength('invalid_document_fields', { kind: 'query', name: 'fields' }, fields, REQUEST_LIMITS.listEntries);
  return fields;
}

function csvDelimiterParameter(raw: string | null): string | null {
  if (raw === null) return null;
  if (raw.length !== 1 || raw.charCodeAt(0) > 127) {
    throw new SkeinError('invalid_document_csv_delimiter',
      `Invalid value in parameter \`csvDelimiter\`: expected a string of one character, but found the following string of ${[...raw].length} characters: \`${echo(raw)}\``);
  }
  return raw;
}

function skipCreationParameter(raw: string | null): boolean {
  if (raw === null) return false;
  if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  throw new SkeinError('invalid_skip_creation',
    `Invalid value in parameter \`skipCreation\`: could not parse \`${echo(raw)}\` as a boolean, expected either \`true\` or \`false\``);
}

function browseDocuments(request: FrontRequest, context: FrontContext): FrontReply | Promise<FrontReply> {
  const uid = validateIndexUid(request.params.indexUid!);
  denyUnknownParameters(request.query, BROWSE_PARAMETERS);
  const offset = usizeParameter(request.query, 'offset', 0, 'invalid_document_offset');
  const limit = usizeParameter(request.query, 'limit', 20, 'invalid_document_limit');
  const fields = fieldsParameter(request.query);
  const retrieveVectors = booleanParameter(request.query, 'retrieveVectors', 'invalid_document_retrieve_vectors') === true;
  const sortText = request.query.get('sort');
  const sort = sortText === null ? null : splitSortParameter(sortText);
  if (sort !== null) checkListLength('invalid_document_sort', { kind: 'query', name: 'sort' }, sort, REQUEST_LIMITS.listEntries);
  const record = context.indexes.require(uid);
  const filter = request.query.get('filter');
  if (filter !== null) checkTextLength('invalid_document_filter', { kind: 'query', name: 'filter' }, filter, REQUEST_LIMITS.filterChars);
  const useNetwork = booleanParameter(request.query, 'useNetwork', 'invalid_document_use_network');
  if ((filter !== null && filter.trim() !== '') || (sort !== null && sort.length > 0) || useNetwork !== undefined) {
    const fetch = { offset, limit, fields, filter: filter === null || filter.trim() === '' ? null : documentsFilterParameter(filter), ids: listParameter(request.query, 'ids'), sort, retrieveVectors, useNetwork };
    return fetchDocuments(context, uid, fetch).then((body) => ({ status: 200, body }));
  }
  const ids = listParameter(request.query, 'ids');
  const key = storageKeyOf(record);
  const texts: string[] = [];
  let total = record.documentCount;
  if (ids !== null) {
    // Ids in internal id order, as Meilisearch browses them.
    const docIds = ids.filter(mayBeStoredId).map((id) => context.storage.externalIds.get([key, id])).filter((docId): docId is number => docId !== undefined);
    const unique = [...new Set(docIds)].sort((a, b) => a - b);
    total = unique.length;
    for (const docId of unique.slice(offset, offset + limit)) {
      const text = context.storage.documents.get([key, docId]);
      if (text !== undefined) texts.push(text);
    }
  } else if (limit > 0) {
    const range = context.storage.documents.getRange({ start: [key, 0], end: [key, 0xffffffff + 1], offset, limit });
    for (const { value } of range) texts.push(value);
  }
  const selection = fields === null ? null : new FieldSelection(fields);
  const results = texts.map((text) => documentTextWithVectors(projectText(text, selection), retrieveVectors)).join(',');
  return { status: 200, body: `{"results":[${results}],"offset":${offset},"limit":${limit},"total":${total}}` };
}

