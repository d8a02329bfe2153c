// Startup recovery (tasks.md §7): a batch cut by a crash was never committed as finished, so its
// tasks go back to `enqueued` and are redone from scratch; uids continue from the stored counters;
// update files whose tasks finished just before the crash are deleted.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Storage } from '../storage/environment.js';
import type { TaskRecord } from '../tasks/task-record.js';
import { PROCESSING_INDEX_UIDS } from '../storage/meta-keys.js';
import { NEXT_BATCH_UID, PENDING_UPDATE_FILE_DELETIONS } from './batching/batch-commit.js';
import { NEXT_TASK_UID } from './task-enqueue.js';

export interface RecoveredQueue {
  /** Enqueued tasks in uid order. */
  enqueued: TaskRecord[];
  nextTaskUid: number;
  nextBatchUid: number;
}

export function recoverQueue(storage: Storage): RecoveredQueue {
  deleteUpdateFiles(storage, JSON.parse(String(storage.meta.get(PENDING_UPDATE_FILE_DELETIONS) ?? '[]')) as string[]);
  const enqueued: TaskRecord[] = [];
  const interrupted: TaskRecord[] = [];
  const interruptedBatchUids: number[] = [];
  let maxTaskUid = -1;
  let maxBatchUid = -1;
  for (const { value: task } of storage.tasks.getRange({})) {
    maxTaskUid = Math.max(maxTaskUid, task.uid);
    if (task.batchUid !== null) maxBatchUid = Math.max(maxBatchUid, task.batchUid);
    if (task.status === 'processing') {
      if (task.batchUid !== null) interruptedBatchUids.push(task.batchUid);
      const requeued: TaskRecord = { ...task, status: 'enqueued', batchUid: null, startedAt: null };
      interrupted.push(requeued);
      enqueued.push(requeued);
    } else if (task.status === 'enqueued') {
      enqueued.push(task);
    }
  }
  if (interrupted.length > 0) {
    const interruptedBatches = new Set(interruptedBatchUids);
    storage.root.transactionSync(() => {
      for (const task of interrupted) storage.tasks.put(task.uid, task);
      for (const batchUid of interruptedBatches) storage.batches.remove(batchUid);
      storage.meta.put(PROCESSING_INDEX_UIDS, '[]');
    });
  }
  return {
    enqueued,
    nextTaskUid: Math.max(numberOr(storage.meta.get(NEXT_TASK_UID), 0), maxTaskUid + 1),
    nextBatchUid: Math.max(numberOr(storage.meta.get(NEXT_BATCH_UID), 0), maxBatchUid + 1),
  };
}

export function deleteUpdateFiles(storage: Pick<Storage, 'updateFilesDir'>, names: readonly string[]): void {
  for (const name of names) {
    try {
      rmSync(join(storage.updateFilesDir, name), { force: true });
    } catch {
      // A file that cannot be removed now is only wasted disk; it must not stop the scheduler.
    }
  }
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}
