// The task queue's bounds, as Meilisearch's index-scheduler keeps them:
//  - auto-deletion (queue/mod.rs cleanup_task_queue, run before each batch): once the queue holds
//    `maxNumberOfTasks` tasks (1M), a taskDeletion of the oldest finished tasks (at most 100k, at
//    least 2) is registered, with the filter `?beforeEnqueuedAt=<last one's + 1 ns>&statuses=...`;
//  - refusal (lib.rs register): when the task store uses more than 40% of `maxTaskDbSize` (20 GiB),
//    a new task is refused with `no_space_left_on_device`, except a cancelation or deletion that
//    matches tasks (what frees the space).
// Skein's task store is the `tasks` db of the one LMDB environment: its size is the pages its
// b-tree holds (storage/database-size.ts), which deleting tasks frees for reuse.
import { SkeinError } from '../errors/index.js';
import { storeSize } from '../storage/database-size.js';
import type { Storage } from '../storage/environment.js';
import { TASK_STORE_THRESHOLD_PERCENT } from '../tasks/task-queue-bounds.js';
import { FINISHED_STATUSES, type TaskContent, type TaskRecord } from '../tasks/task-record.js';

export interface TaskQueueLimits {
  /** Tasks in the queue at which the oldest finished ones are deleted. Meilisearch: 1,000,000. */
  maxNumberOfTasks: number;
  /** Bytes; new tasks are refused once the task store uses 40% of it. Meilisearch: 20 GiB. */
  maxTaskDbSize: number;
}

export const DEFAULT_TASK_QUEUE_LIMITS: TaskQueueLimits = { maxNumberOfTasks: 1_000_000, maxTaskDbSize: 20 * 1024 ** 3 };

/** Most tasks one automatic deletion removes. */
const AUTO_DELETION_BATCH = 100_000;

export function taskStoreSize(storage: Pick<Storage, 'tasks' | 'root'>): number {
  try {
    return storeSize(storage.tasks);
  } finally {
    afterStats(storage);
  }
}

/**
 * lmdb-js's getStats() marks the thread's read transaction renewed without renewing it natively;
 * reads after it in the same turn then risked an older snapshot (a planned batch read an index record
 * of before the last commits: a search then found its hit counted but not returned, 4 runs in 27 of
 * rules-formatting). Every stats read here is followed by a reset, so the next read renews for real.
 */
function afterStats(storage: Pick<Storage, 'root'>): void {
  storage.root.resetReadTxn();
}

function taskCount(storage: Pick<Storage, 'tasks' | 'root'>): number {
  try {
    return (storage.tasks.getStats() as { entryCount: number }).entryCount;
  } finally {
    afterStats(storage);
  }
}

/** The bytes the task store may use before new tasks are refused. */
export function taskStoreLimit(limits: TaskQueueLimits): number {
  return Math.floor(limits.maxTaskDbSize * TASK_STORE_THRESHOLD_PERCENT / 100);
}

/** Throws no_space_left_on_device when the task store is full, unless the task would free some of it. */
export function checkTaskStoreSpace(storage: Pick<Storage, 'tasks' | 'root'>, content: TaskContent, limits: TaskQueueLimits): void {
  if ((content.type === 'taskDeletion' || content.type === 'taskCancelation') && content.matchedUids.length > 0) return;
  if (taskStoreSize(storage) <= taskStoreLimit(limits)) return;
  throw new SkeinError('no_space_left_on_device', 'Meilisearch cannot receive write operations because the limit of the task database has been reached. '
    + 'Please delete tasks to continue performing write operations.');
}

/**
 * The taskDeletion to register before the next batch, or null: under the limit, fewer than 2 finished
 * tasks (deleting only itself would loop), or a deletion is already waiting (it runs first anyway).
 */
export function autoDeletionContent(storage: Pick<Storage, 'tasks' | 'root'>, enqueued: readonly TaskRecord[], limits: TaskQueueLimits): TaskContent | null {
  if (taskCount(storage) < limits.maxNumberOfTasks) return null;
  if (enqueued.some((task) => task.type === 'taskDeletion')) return null;
  const oldest: TaskRecord[] = [];
  for (const { value: task } of storage.tasks.getRange()) {
    if (!FINISHED_STATUSES.has(task.status)) continue;
    oldest.push(task);
    if (oldest.length === AUTO_DELETION_BATCH) break;
  }
  if (oldest.length < 2) return null;
  const filter = { beforeEnqueuedAt: oneNanosecondLater(oldest[oldest.length - 1]!.enqueuedAt), statuses: 'succeeded,failed,canceled' };
  return {
    type: 'taskDeletion', filter, originalFilter: `?beforeEnqueuedAt=${filter.beforeEnqueuedAt}&statuses=${filter.statuses}`,
    matchedUids: oldest.map((task) => task.uid), presetMatches: true,
  };
}

/** "…00.123456Z" -> "…00.123456001Z": Meilisearch adds one nanosecond so the last task is before it. */
function oneNanosecondLater(timestamp: string): string {
  const match = /^(.*\.)(\d{1,9})Z$/.exec(timestamp);
  if (!match) return timestamp;
  const nanos = Number(match[2]!.padEnd(9, '0')) + 1;
  return nanos > 999_999_999 ? timestamp : `${match[1]}${String(nanos).padStart(9, '0')}Z`;
}
