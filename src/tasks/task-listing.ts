// Reading tasks out of LMDB against a filter: the GET /tasks page (tasks.md §6) and the set of uids a
// cancelation or deletion matches (tasks.md §5). Tasks are keyed by uid, so key order is uid order.
import type { Database } from 'lmdb';
import type { Storage } from '../storage/environment.js';
import { matchesTask, type TaskFilter } from './task-filter.js';
import type { TaskQuery } from './task-query.js';
import type { TaskRecord } from './task-record.js';
import { taskView, type TaskView } from './task-view.js';

export interface TaskList {
  results: TaskView[];
  total: number;
  limit: number;
  from: number | null;
  next: number | null;
}

/** Uids (ascending) of the stored tasks matching the filter, only those below `belowUid` when given. */
export function matchTasks(storage: Pick<Storage, 'tasks'>, filter: TaskFilter, belowUid?: number): number[] {
  const uids: number[] = [];
  const range = belowUid === undefined ? {} : { end: belowUid };
  for (const { value } of storage.tasks.getRange(range)) if (matchesTask(filter, value)) uids.push(value.uid);
  return uids;
}

/**
 * Newest first (oldest first when reversed), starting at `from` inclusive. `total` counts every match
 * regardless of from/limit; `next` is the uid the following page starts at, null on the last page.
 */
export function listTasks(storage: Pick<Storage, 'tasks'>, query: TaskQuery): TaskList {
  const descending = !query.reverse;
  const page: TaskView[] = [];
  let total = 0;
  let next: number | null = null;
  for (const value of descending ? tasksNewestFirst(storage) : storage.tasks.getRange({}).map(({ value }) => value)) {
    if (!matchesTask(query.filter, value)) continue;
    total++;
    if (query.from !== null && (descending ? value.uid > query.from : value.uid < query.from)) continue;
    if (page.length < query.limit) page.push(taskView(value));
    else if (next === null) next = value.uid;
  }
  return { results: page, total, limit: query.limit, from: page.length > 0 ? page[0].uid : null, next };
}

/** Every task, newest first. */
export function tasksNewestFirst(storage: Pick<Storage, 'tasks'>): Generator<TaskRecord> {
  return newestFirst(storage.tasks);
}

/** Every record of a uint32-keyed database, highest key first. lmdb-js's reverse ranges over uint32 keys never yield key 0: added by hand. */
export function* newestFirst<T extends { uid: number }>(db: Database<T, number>): Generator<T> {
  let lastUid: number | null = null;
  for (const { value } of db.getRange({ reverse: true })) {
    lastUid = value.uid;
    yield value;
  }
  const first = lastUid === 0 ? undefined : db.get(0);
  if (first) yield first;
}
