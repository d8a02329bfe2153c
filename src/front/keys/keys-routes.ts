// /keys: list and read from the front's key cache; create, update and delete through the scheduler
// thread (the only LMDB writer), answered synchronously with 201 / 200 / 204 (routes.md).
import { keyView, type KeyEntry, type KeyRecord } from '../../auth/index.js';
import { SkeinError } from '../../errors/index.js';
import { nowRfc3339 } from '../../tasks/timestamps.js';
import { denyUnknownParameters, usizeParameter } from '../http/deserr-messages.js';
import { jsonReply, type FrontReply } from '../http/http-types.js';
import { isUuid, parseCreateKeyBody, parsePatchKeyBody } from './key-body.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';

const LIST_PARAMETERS = ['offset', 'limit'];

export const keysRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/keys', action: 'keys.get', body: 'none',
    handle: (request, context) => {
      denyUnknownParameters(request.query, LIST_PARAMETERS);
      const offset = usizeParameter(request.query, 'offset', 0, 'invalid_api_key_offset');
      const limit = usizeParameter(request.query, 'limit', 20, 'invalid_api_key_limit');
      const records = context.keys.current.records();
      const masterKey = masterKeyOf(context);
      return jsonReply(200, {
        results: records.slice(offset, offset + limit).map((record) => keyView(record, masterKey)),
        offset, limit, total: records.length,
      });
    },
  },
  {
    method: 'POST', path: '/keys', action: 'keys.create', body: 'json',
    handle: async (request, context) => {
      const record = parseCreateKeyBody(request.json, nowRfc3339(), Date.now());
      const stored = await context.scheduler.keyCommand({ op: 'create', record }) as KeyRecord;
      return jsonReply(201, keyView(stored, masterKeyOf(context)));
    },
  },
  {
    method: 'GET', path: '/keys/{key}', action: 'keys.get', body: 'none',
    handle: async (request, context) => jsonReply(200, keyView((await findKeyAfterLog(context, request.params.key!)).record, masterKeyOf(context))),
  },
  {
    method: 'PATCH', path: '/keys/{key}', action: 'keys.update', body: 'json',
    handle: async (request, context) => {
      const entry = await findKeyAfterLog(context, request.params.key!);
      const patch = parsePatchKeyBody(request.json);
      const stored = await context.scheduler.keyCommand({ op: 'update', uid: entry.record.uid, ...patch, updatedAt: nowRfc3339() }) as KeyRecord;
      return jsonReply(200, keyView(stored, masterKeyOf(context)));
    },
  },
  {
    method: 'DELETE', path: '/keys/{key}', action: 'keys.delete', body: 'none',
    handle: async (request, context): Promise<FrontReply> => {
      const entry = await findKeyAfterLog(context, request.params.key!);
      await context.scheduler.keyCommand({ op: 'delete', uid: entry.record.uid });
      return { status: 204, body: '' };
    },
  },
];

/** `{key}` is a uid (tried first) or a key value. */
function findKey(context: FrontContext, key: string): KeyEntry {
  const keys = context.keys.current;
  const entry = isUuid(key) ? keys.byUid(key) : keys.byValue(key);
  if (!entry) throw new SkeinError('api_key_not_found', `API key \`${key}\` not found.`);
  return entry;
}

/**
 * Cluster mode: a key not found here may have been created through another node and not applied here
 * yet; this node first applies every config entry the log holds now (read-your-writes across nodes).
 */
async function findKeyAfterLog(context: FrontContext, key: string): Promise<KeyEntry> {
  try {
    return findKey(context, key);
  } catch (cause) {
    const config = context.scheduler.configThrough;
    if (!(cause instanceof SkeinError) || cause.code !== 'api_key_not_found' || !config) throw cause;
    await config.appliedAll().catch(() => false);
    return findKey(context, key);
  }
}

function masterKeyOf(context: FrontContext): string {
  // The authorizer answered missing_master_key already when there is none.
  return context.options.masterKey!;
}
