// A parsed task filter (GET /tasks, POST /tasks/cancel, DELETE /tasks) and the test of one task
// against it. Multiple criteria combine with AND, values of one criterion with OR; null = no criterion.
import { allowsIndex } from '../auth/index-patterns.js';
import { parseRfc3339Micros } from './timestamps.js';
import { indexesOfTask, isSwapOrRename } from './task-indexes.js';
import type { TaskRecord, TaskStatus, TaskType } from './task-record.js';

export interface DateBounds {
  /** Exclusive bounds in microseconds since the epoch. */
  after: number | null;
  before: number | null;
}

export interface TaskFilter {
  uids: ReadonlySet<number> | null;
  batchUids: ReadonlySet<number> | null;
  canceledBy: ReadonlySet<number> | null;
  types: ReadonlySet<TaskType> | null;
  statuses: ReadonlySet<TaskStatus> | null;
  indexUids: ReadonlySet<string> | null;
  enqueuedAt: DateBounds;
  startedAt: DateBounds;
  finishedAt: DateBounds;
  /**
   * Index patterns of the requesting key (null: every index). A key not reaching every index sees
   * neither the tasks of other indexes nor any task not tied to exactly one index (taskCancelation,
   * taskDeletion, indexSwap, dumps, snapshots...: their details name other indexes), as Meilisearch's
   * get_task_ids_from_authorized_indexes. `authorizedTask` is the one test.
   */
  authorizedIndexes: readonly string[] | null;
}

export function emptyTaskFilter(): TaskFilter {
  return {
    uids: null, batchUids: null, canceledBy: null, types: null, statuses: null, indexUids: null,
    enqueuedAt: { after: null, before: null },
    startedAt: { after: null, before: null },
    finishedAt: { after: null, before: null },
    authorizedIndexes: null,
  };
}

export function matchesTask(filter: TaskFilter, task: TaskRecord): boolean {
  if (filter.uids && !filter.uids.has(task.uid)) return false;
  if (filter.batchUids && (task.batchUid === null || !filter.batchUids.has(task.batchUid))) return false;
  if (filter.canceledBy && (task.canceledBy === null || !filter.canceledBy.has(task.canceledBy))) return false;
  if (filter.types && !filter.types.has(task.type)) return false;
  if (filter.statuses && !filter.statuses.has(task.status)) return false;
  // A swap matches each index it names, a rename both uids (Meilisearch's index_tasks mapping).
  if (filter.indexUids && !namedIndexes(task).some((uid) => filter.indexUids!.has(uid))) return false;
  if (!authorizedTask(filter.authorizedIndexes, task)) return false;
  return withinBounds(filter.enqueuedAt, task.enqueuedAt)
    && withinBounds(filter.startedAt, task.startedAt)
    && withinBounds(filter.finishedAt, task.finishedAt);
}

function namedIndexes(task: TaskRecord): string[] {
  const own = task.indexUid === null ? [] : [task.indexUid];
  return task.content && isSwapOrRename(task.content) ? [...own, ...indexesOfTask(task.content)] : own;
}

/** The task types tied to exactly one index (Meilisearch's Kind::related_to_one_index). */
export const ONE_INDEX_TYPES: ReadonlySet<TaskType> = new Set<TaskType>(['documentAdditionOrUpdate', 'documentEdition', 'documentDeletion',
  'settingsUpdate', 'indexCreation', 'indexDeletion', 'indexUpdate', 'indexCompaction']);

/** May a key restricted to `authorizedIndexes` (null: every index) see, cancel or delete this task? */
export function authorizedTask(authorizedIndexes: readonly string[] | null, task: Pick<TaskRecord, 'type' | 'indexUid'>): boolean {
  if (authorizedIndexes === null) return true;
  return ONE_INDEX_TYPES.has(task.type) && task.indexUid !== null && allowsIndex(authorizedIndexes, task.indexUid);
}

export function withinBounds(bounds: DateBounds, timestamp: string | null): boolean {
  if (bounds.after === null && bounds.before === null) return true;
  if (timestamp === null) return false;
  const micros = parseRfc3339Micros(timestamp);
  if (micros === null) return false;
  if (bounds.after !== null && !(micros > bounds.after)) return false;
  if (bounds.before !== null && !(micros < bounds.before)) return false;
  return true;
}
