// The scheduler's LMDB writes around a batch, each ONE synchronous transaction (commit flushed to
// disk before returning). lmdb-js's async `transaction()` never runs its callback in this environment,
// so every write here goes through transactionSync.
import type { ErrorBody } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import { PROCESSING_INDEX_UIDS } from '../../storage/meta-keys.js';
import { finishedBatch, processingBatch, type BatchRecord } from '../../tasks/batch-record.js';
import { failedDetails } from '../../tasks/task-details.js';
import type { TaskRecord } from '../../tasks/task-record.js';
import type { BatchPlan } from './batch-plan.js';
import { writeSwap } from '../operations/index-swap.js';

export const PENDING_UPDATE_FILE_DELETIONS = 'pendingUpdateFileDeletions';
export const NEXT_BATCH_UID = 'nextBatchUid';

/** enqueued -> processing for the batch's tasks, and the batch's record; returns the task records as written. */
export function markProcessing(storage: Storage, tasks: TaskRecord[], batchUid: number, startedAt: string, stopReason = 'unspecified'): TaskRecord[] {
  const processing = tasks.map((task) => ({ ...task, status: 'processing' as const, batchUid, startedAt }));
  storage.root.transactionSync(() => {
    for (const task of processing) storage.tasks.put(task.uid, task);
    storage.batches.put(batchUid, processingBatch(batchUid, processing, startedAt, stopReason));
    storage.meta.put(NEXT_BATCH_UID, batchUid + 1);
    storage.meta.put(PROCESSING_INDEX_UIDS, JSON.stringify([...new Set(processing.flatMap((task) => task.indexUid ?? []))]));
  });
  return processing;
}

/** Puts tasks back in the queue as if never started (batch interrupted by a cancelation). */
export function markEnqueuedAgain(storage: Storage, tasks: TaskRecord[]): TaskRecord[] {
  const enqueued = tasks.map((task) => ({ ...task, status: 'enqueued' as const, batchUid: null, startedAt: null }));
  storage.root.transactionSync(() => {
    for (const task of enqueued) storage.tasks.put(task.uid, task);
    if (tasks[0]?.batchUid != null) storage.batches.remove(tasks[0].batchUid);
    storage.meta.put(PROCESSING_INDEX_UIDS, '[]');
  });
  return enqueued;
}

/** Every task of the batch failed with the same batch-level error (shards or commit failed). */
export function commitBatchFailure(storage: Storage, tasks: TaskRecord[], error: ErrorBody, finishedAt: string,
  progressTrace: Record<string, string> = {}): TaskRecord[] {
  const failed = tasks.map((task) => ({ ...task, status: 'failed' as const, details: failedDetails(task.details), error, finishedAt }));
  storage.root.transactionSync(() => {
    for (const task of failed) storage.tasks.put(task.uid, task);
    putFinishedBatch(storage, failed, finishedAt, progressTrace);
    storage.meta.put(PROCESSING_INDEX_UIDS, '[]');
    storage.meta.put(PENDING_UPDATE_FILE_DELETIONS, JSON.stringify(updateFilesOf(failed)));
  });
  return failed;
}

export interface CommitOutcome {
  finished: TaskRecord[];
  canceled: TaskRecord[];
  /** Update files no task needs any more (delete after the commit). */
  updateFiles: string[];
  /** A step of a longer task (BatchPlan.continues): its tasks, enqueued again. */
  requeued?: TaskRecord[];
}

/** The batch's effects and every task status change, in one transaction. */
/** `during`: called inside the transaction, after the index's writes (the `duringCommit` failure point). */
export function commitBatch(storage: Storage, tasks: TaskRecord[], plan: BatchPlan, finishedAt: string,
  progressTrace: Record<string, string> = {}, during: () => void = () => {}): CommitOutcome {
  if (plan.continues) return commitStep(storage, tasks, plan, during);
  const finished = tasks.map((task) => {
    const result = plan.results.get(task.uid)!;
    return { ...task, status: result.status, details: result.details, error: result.error, finishedAt };
  });
  const canceled: TaskRecord[] = [];
  for (const uid of plan.canceledUids) {
    const task = storage.tasks.get(uid);
    if (!task) continue;
    canceled.push({ ...task, status: 'canceled', canceledBy: plan.canceledBy, details: failedDetails(task.details),
      batchUid: tasks[0].batchUid, finishedAt });
  }
  const updateFiles = updateFilesOf([...finished, ...canceled]);
  storage.root.transactionSync(() => {
    if (plan.index) writeIndex(storage, plan, tasks[0].batchUid ?? 0);
    if (plan.swap) writeSwap(storage, plan.swap);
    writeMeta(storage, plan);
    during();
    for (const task of finished) storage.tasks.put(task.uid, task);
    for (const task of canceled) storage.tasks.put(task.uid, task);
    putFinishedBatch(storage, [...finished, ...canceled], finishedAt, progressTrace);
    forgetDeletedTasks(storage, plan.deletedUids);
    for (const uid of plan.deletedUids) storage.tasks.remove(uid);
    storage.meta.put(PROCESSING_INDEX_UIDS, '[]');
    storage.meta.put(PENDING_UPDATE_FILE_DELETIONS, JSON.stringify(updateFiles));
  });
  return { finished, canceled, updateFiles };
}

/** One step of a longer task: its writes and progress, the tasks back to enqueued (their batch record goes). */
function commitStep(storage: Storage, tasks: TaskRecord[], plan: BatchPlan, during: () => void): CommitOutcome {
  const requeued = tasks.map((task) => ({ ...task, status: 'enqueued' as const, batchUid: null, startedAt: null }));
  storage.root.transactionSync(() => {
    if (plan.index) writeIndex(storage, plan, tasks[0].batchUid ?? 0);
    writeMeta(storage, plan);
    during();
    for (const task of requeued) storage.tasks.put(task.uid, task);
    if (tasks[0]?.batchUid != null) storage.batches.remove(tasks[0].batchUid);
    storage.meta.put(PROCESSING_INDEX_UIDS, '[]');
  });
  return { finished: [], canceled: [], updateFiles: [], requeued };
}

function writeMeta(storage: Storage, plan: BatchPlan): void {
  for (const [key, value] of plan.meta ?? []) {
    if (value === null) storage.meta.remove(key);
    else storage.meta.put(key, value);
  }
}

function writeIndex(storage: Storage, plan: BatchPlan, batchUid: number): void {
  const { uid, before, stage } = plan.index!;
  const key = stage.key;
  const after = stage.record;
  if (after === null) {
    if (before === null) return;
    // Keys are collected before removal: removing under a live cursor of the same transaction skips entries.
    const documentKeys = [...storage.documents.getKeys({ start: [key, 0], end: [key, 0xffffffff + 1] })];
    const externalIdKeys = [...storage.externalIds.getKeys({ start: [key, ''], end: [key, '\uffff'] })];
    for (const documentKey of documentKeys) storage.documents.remove(documentKey);
    for (const externalIdKey of externalIdKeys) storage.externalIds.remove(externalIdKey);
    storage.indexes.remove(uid);
    return;
  }
  for (const [docId, document] of stage.documents) {
    if (document === null) storage.documents.remove([key, docId]);
    else storage.documents.put([key, docId], document);
  }
  for (const [externalId, docId] of stage.externalIds) {
    if (docId === null) storage.externalIds.remove([key, externalId]);
    else storage.externalIds.put([key, externalId], docId);
  }
  // The stamp in the same transaction as the change it names (shard snapshots are valid for it only).
  after.commitSeq = batchUid;
  storage.indexes.put(uid, after);
}

export function updateFilesOf(tasks: TaskRecord[]): string[] {
  return tasks.flatMap((task) => (task.content.type === 'documentAdditionOrUpdate' ? [task.content.updateFile] : []));
}

/** Inside a write transaction: the batch's record as finished (the tasks share one batchUid). */
function putFinishedBatch(storage: Storage, tasks: TaskRecord[], finishedAt: string, progressTrace: Record<string, string>): void {
  const batchUid = tasks[0]?.batchUid;
  if (batchUid == null) return;
  const processing = storage.batches.get(batchUid) ?? processingBatch(batchUid, tasks, tasks[0].startedAt ?? finishedAt, 'unspecified');
  storage.batches.put(batchUid, finishedBatch(processing, tasks, finishedAt, progressTrace));
}

/** Inside a write transaction, before the tasks are removed: their batches forget them, and go with the last one. */
function forgetDeletedTasks(storage: Storage, deletedUids: Iterable<number>): void {
  const byBatch = new Map<number, Set<number>>();
  for (const uid of deletedUids) {
    const batchUid = storage.tasks.get(uid)?.batchUid;
    if (batchUid == null) continue;
    let uids = byBatch.get(batchUid);
    if (!uids) byBatch.set(batchUid, uids = new Set());
    uids.add(uid);
  }
  for (const [batchUid, uids] of byBatch) {
    const batch: BatchRecord | undefined = storage.batches.get(batchUid);
    if (!batch) continue;
    const taskUids = batch.taskUids.filter((uid) => !uids.has(uid));
    if (taskUids.length === 0) storage.batches.remove(batchUid);
    else storage.batches.put(batchUid, { ...batch, taskUids });
  }
}
