// /indexes: list, create, read, update, delete. Writes only enqueue; existence problems of writes
// are reported by the task, as Meilisearch does.
import { canSeeIndex, checkIndexAccess } from '../../auth/access.js';
import { SkeinError } from '../../errors/index.js';
import {
  denyUnknownParameters, invalidValueType, isPlainObject, missingField, unknownField, usizeParameter,
} from '../http/deserr-messages.js';
import { jsonReply } from '../http/http-types.js';
import { indexView } from './index-views.js';
import { validateIndexUid } from './index-uid.js';
import type { RouteSpec } from '../http/route-spec.js';

const CREATE_FIELDS = ['uid', 'primaryKey'];
const UPDATE_FIELDS = ['primaryKey', 'uid'];

export const indexesRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/indexes', action: 'indexes.get', body: 'none',
    handle: (request, context) => {
      denyUnknownParameters(request.query, ['offset', 'limit']);
      const offset = usizeParameter(request.query, 'offset', 0, 'invalid_index_offset');
      const limit = usizeParameter(request.query, 'limit', 20, 'invalid_index_limit');
      const all = context.indexes.list().filter((index) => canSeeIndex(request.access, index.uid));
      return jsonReply(200, { results: all.slice(offset, offset + limit).map(indexView), offset, limit, total: all.length });
    },
  },
  {
    method: 'POST', path: '/indexes', action: 'indexes.create', body: 'json',
    handle: async (request, context) => {
      const body = request.json;
      if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
      for (const field of Object.keys(body)) if (!CREATE_FIELDS.includes(field)) throw unknownField(field, CREATE_FIELDS);
      if (!('uid' in body)) throw missingField('missing_index_uid', 'uid');
      if (typeof body.uid !== 'string') throw invalidValueType('invalid_index_uid', '.uid', 'a string', body.uid);
      const uid = validateIndexUid(body.uid);
      checkIndexAccess(request.access, uid);
      const primaryKey = primaryKeyField(body.primaryKey);
      return jsonReply(202, await context.scheduler.enqueue({ type: 'indexCreation', indexUid: uid, primaryKey }));
    },
  },
  {
    method: 'GET', path: '/indexes/{indexUid}', action: 'indexes.get', body: 'none',
    handle: (request, context) => jsonReply(200, indexView(context.indexes.require(validateIndexUid(request.params.indexUid!)))),
  },
  {
    method: 'PATCH', path: '/indexes/{indexUid}', action: 'indexes.update', body: 'json',
    handle: async (request, context) => {
      const body = request.json;
      if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
      for (const field of Object.keys(body)) {
        if (field === 'createdAt') throw immutableField('immutable_index_created_at', field);
        if (field === 'updatedAt') throw immutableField('immutable_index_updated_at', field);
        if (!UPDATE_FIELDS.includes(field)) throw unknownField(field, UPDATE_FIELDS);
      }
      const uid = validateIndexUid(request.params.indexUid!);
      const primaryKey = primaryKeyField(body.primaryKey);
      // `uid`: a rename (Meilisearch 1.18), processed by src/scheduler/operations/index-swap.ts.
      let newIndexUid: string | null = null;
      if (body.uid !== undefined && body.uid !== null) {
        if (typeof body.uid !== 'string') throw invalidValueType('invalid_index_uid', '.uid', 'a string', body.uid);
        newIndexUid = validateIndexUid(body.uid);
      }
      return jsonReply(202, await context.scheduler.enqueue(newIndexUid === null
        ? { type: 'indexUpdate', indexUid: uid, primaryKey }
        : { type: 'indexUpdate', indexUid: uid, primaryKey, newIndexUid }));
    },
  },
  {
    method: 'DELETE', path: '/indexes/{indexUid}', action: 'indexes.delete', body: 'none',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      return jsonReply(202, await context.scheduler.enqueue({ type: 'indexDeletion', indexUid: uid }));
    },
  },
];

function primaryKeyField(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidValueType('invalid_index_primary_key', '.primaryKey', 'a string', value);
  return value;
}

function immutableField(code: 'immutable_index_created_at' | 'immutable_index_updated_at', field: string): SkeinError {
  return new SkeinError(code, `Immutable field \`${field}\`: expected one of ${UPDATE_FIELDS.map((name) => `\`${name}\``).join(', ')}`);
}
