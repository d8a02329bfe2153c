// /batches: the batches the scheduler processed, read straight from LMDB (src/tasks/batch-record.ts).
// The query parameters are the tasks' (same parser, same errors); what they select is Meilisearch's
// get_batch_ids: a batch matches when one of its tasks has the status, type or index asked for.
import { SkeinError } from '../../errors/index.js';
import { allowsIndex } from '../../auth/index-patterns.js';
import type { Storage } from '../../storage/environment.js';
import { batchView, type BatchRecord, type BatchView } from '../../tasks/batch-record.js';
import { ONE_INDEX_TYPES, withinBounds, type TaskFilter } from '../../tasks/task-filter.js';
import { newestFirst } from '../../tasks/task-listing.js';
import { parseTaskQuery, type TaskQuery } from '../../tasks/task-query.js';
import type { TaskType } from '../../tasks/task-record.js';
import { jsonReply } from '../http/http-types.js';
import type { RouteSpec } from '../http/route-spec.js';
import { parseUidSegment } from './tasks-routes.js';

export const batchesRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/batches', action: 'tasks.get', body: 'none',
    handle: (request, context) => {
      const query = parseTaskQuery(request.query, 'list');
      query.filter.authorizedIndexes = request.access.indexes;
      return jsonReply(200, listBatches(context.storage, query));
    },
  },
  {
    method: 'GET', path: '/batches/{batchUid}', action: 'tasks.get', body: 'none',
    handle: (request, context) => {
      const uid = parseUidSegment(request.params.batchUid!, 'invalid_batch_uids', 'Batch');
      const record = context.storage.batches.get(uid);
      if (!record || !authorizedBatch(request.access.indexes, record)) throw new SkeinError('batch_not_found', `Batch \`${uid}\` not found.`);
      return jsonReply(200, batchView(record));
    },
  },
];

interface BatchList {
  results: BatchView[];
  total: number;
  limit: number;
  from: number | null;
  next: number | null;
}

/** Newest first (oldest first when reversed), from `from` inclusive; `total` counts every match. */
export function listBatches(storage: Pick<Storage, 'batches' | 'tasks'>, query: TaskQuery): BatchList {
  const matcher = batchMatcher(storage, query.filter);
  const descending = !query.reverse;
  const results: BatchView[] = [];
  let total = 0;
  let next: number | null = null;
  for (const record of descending ? newestFirst(storage.batches) : storage.batches.getRange({}).map(({ value }) => value)) {
    if (!matcher(record)) continue;
    total++;
    if (query.from !== null && (descending ? record.uid > query.from : record.uid < query.from)) continue;
    if (results.length < query.limit) results.push(batchView(record));
    else if (next === null) next = record.uid;
  }
  return { results, total, limit: query.limit, from: results.length > 0 ? results[0].uid : null, next };
}

function batchMatcher(storage: Pick<Storage, 'tasks'>, filter: TaskFilter): (batch: BatchRecord) => boolean {
  // Criteria on tasks become sets of batches through the tasks' batchUid, as Meilisearch does.
  const byTaskUids = filter.uids && batchesOf(storage, filter.uids, () => true);
  const byCanceledBy = filter.canceledBy
    && batchesOf(storage, filter.canceledBy, (task) => task.type === 'taskCancelation' && task.status === 'succeeded');
  return (batch) => {
    if (filter.batchUids && !filter.batchUids.has(batch.uid)) return false;
    if (byTaskUids && !byTaskUids.has(batch.uid)) return false;
    if (byCanceledBy && !byCanceledBy.has(batch.uid)) return false;
    if (filter.statuses) {
      const processing = batch.finishedAt === null;
      if (![...filter.statuses].some((status) => processing ? status === 'processing' : (batch.stats.status[status] ?? 0) > 0)) return false;
    }
    if (filter.types && ![...filter.types].some((type) => (batch.stats.types[type] ?? 0) > 0)) return false;
    if (filter.indexUids && ![...filter.indexUids].some((uid) => (batch.stats.indexUids[uid] ?? 0) > 0)) return false;
    if (!authorizedBatch(filter.authorizedIndexes, batch)) return false;
    return (withinBounds(filter.enqueuedAt, batch.enqueuedAt.earliest) || withinBounds(filter.enqueuedAt, batch.enqueuedAt.oldest))
      && withinBounds(filter.startedAt, batch.startedAt)
      && withinBounds(filter.finishedAt, batch.finishedAt);
  };
}

function batchesOf(storage: Pick<Storage, 'tasks'>, taskUids: ReadonlySet<number>,
  accept: (task: { type: TaskType; status: string }) => boolean): Set<number> {
  const batches = new Set<number>();
  for (const uid of taskUids) {
    const task = storage.tasks.get(uid);
    if (task && task.batchUid !== null && accept(task)) batches.add(task.batchUid);
  }
  return batches;
}

function authorizedBatch(authorizedIndexes: readonly string[] | null, batch: BatchRecord): boolean {
  if (authorizedIndexes === null) return true;
  const indexes = Object.keys(batch.stats.indexUids);
  return indexes.length > 0 && indexes.every((uid) => allowsIndex(authorizedIndexes, uid))
    && Object.keys(batch.stats.types).every((type) => ONE_INDEX_TYPES.has(type as TaskType));
}
