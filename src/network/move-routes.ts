// The two routes a topology change's nodes ask each other (scheduler/operations/network-move.ts; Skein's own,
// not Meilisearch's). Main thread, LMDB read-only: a page of the documents this node gives to another
// group, and how far this node's move went. Both answer with the `search` action (the remote's
// searchApiKey), as the network search's own route, which also returns whole documents.
import { keepsDocument, ownGroupIn, rendezvousGroup } from '../documents/shard-group.js';
import { SkeinError } from '../errors/index.js';
import { jsonReply } from '../front/http/http-types.js';
import { isPlainObject } from '../front/http/deserr-messages.js';
import { validateIndexUid } from '../front/indexes/index-uid.js';
import type { FrontContext, RouteSpec } from '../front/http/route-spec.js';
import type { ExportPage } from '../scheduler/operations/network-move.js';
import { readMoveState } from '../storage/network-placement.js';
import { storageKeyOf } from '../storage/records.js';
import { FINISHED_STATUSES, type TaskRecord } from '../tasks/task-record.js';

/** External ids one export request reads at most (its documents are a share of them). */
const SCAN_LIMIT = 20_000;
const PAGE_LIMIT = 5_000;
/** Stored JSON one export page carries at most (past its first document), well under the asking client's answer bound. */
const PAGE_BYTES = 16 * 1024 * 1024;

export const moveRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/_network-move-export', action: 'search', body: 'json',
    handle: (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const body = request.json;
      if (!isPlainObject(body) || typeof body.task !== 'number' || typeof body.group !== 'string' || typeof body.limit !== 'number'
        || (body.after !== null && typeof body.after !== 'string')) {
        throw new SkeinError('bad_request', 'Expected `{task, group, after, limit}`.');
      }
      return jsonReply(200, exportPage(context, uid, body.task, body.group, body.after as string | null, Math.min(body.limit, PAGE_LIMIT)));
    },
  },
  {
    method: 'GET', path: '/_network-move/{taskUid}', action: 'search', body: 'none',
    handle: (request, context) => {
      const task = Number(request.params.taskUid);
      if (!Number.isSafeInteger(task) || task < 0) throw new SkeinError('bad_request', 'Expected a task uid.');
      return jsonReply(200, { phase: movePhase(context, task) });
    },
  },
];

/** pending: this node did not reach the task; import, wait, drop: its step; done: it finished the task. */
function movePhase(context: FrontContext, uid: number): string {
  const record = context.storage.tasks.get(uid) as TaskRecord | undefined;
  if (record && FINISHED_STATUSES.has(record.status)) return 'done';
  const state = readMoveState(context.storage);
  return state?.uid === uid ? state.phase : 'pending';
}

/**
 * The documents this node held under the groups before task `uid` that `group` keeps after it, in
 * external id order from `after`. Ready only while this node is in the task's import or wait step:
 * its documents are then exactly the log's state before the task (every task after it waits).
 */
function exportPage(context: FrontContext, uid: string, taskUid: number, group: string, after: string | null, limit: number): ExportPage {
  const state = readMoveState(context.storage);
  const notReady: ExportPage = { ready: false, documents: [], after, done: false };
  if (state === null || state.uid !== taskUid || (state.phase !== 'import' && state.phase !== 'wait')) return notReady;
  const previousNames = Object.keys(state.previous).sort();
  const nextNames = Object.keys(state.next).sort();
  const own = ownGroupIn(state.previous, context.network?.config.current.self ?? null);
  const record = context.storage.indexes.get(uid);
  if (!record) throw new SkeinError('index_not_found', `Index \`${uid}\` not found.`);
  const key = storageKeyOf(record);
  const documents: Array<[string, number, string]> = [];
  let last = after;
  let scanned = 0;
  let bytes = 0;
  for (const { key: entry, value: docId } of context.storage.externalIds.getRange({ start: [key, after ?? ''], end: [key, '\uffff'] })) {
    const externalId = entry[1] as string;
    if (after !== null && externalId === after) continue;
    if (documents.length >= limit || scanned >= SCAN_LIMIT || bytes >= PAGE_BYTES) return { ready: true, documents, after: last, done: false };
    scanned++;
    last = externalId;
    // Only documents this node kept under the old groups (a leftover copy elsewhere may be stale).
    if (!keepsDocument(externalId, previousNames, own) || rendezvousGroup(externalId, nextNames) !== group) continue;
    const text = context.storage.documents.get([key, docId as number]);
    if (text !== undefined) {
      documents.push([externalId, docId as number, text]);
      bytes += text.length;
    }
  }
  return { ready: true, documents, after: last, done: true };
}
