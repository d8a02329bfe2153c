// Batches as the scheduler stores them (one record per batch it processed, written with the batch's
// status changes in the same LMDB transactions) and their public view (GET /batches, Meilisearch's
// BatchView). A batch record lives as long as one of its tasks does: task deletion removes the uids
// it deletes from `taskUids` and the record once none is left, as Meilisearch does.
import { isoDuration } from './timestamps.js';
import type { TaskRecord, TaskStatus, TaskType } from './task-record.js';

export interface BatchStats {
  totalNbTasks: number;
  status: Partial<Record<TaskStatus, number>>;
  types: Partial<Record<TaskType, number>>;
  indexUids: Record<string, number>;
  /** Time spent in each step of the batch, "processing tasks > STEP" -> "1.23ms" (Meilisearch's format). */
  progressTrace: Record<string, string>;
}

export interface BatchRecord {
  uid: number;
  /** The details of the batch's tasks accumulated (counts summed, the rest from the latest task). */
  details: Record<string, unknown>;
  stats: BatchStats;
  startedAt: string;
  /** null while the batch is processing. */
  finishedAt: string | null;
  /** Earliest and latest enqueuedAt of the batch's tasks (for the enqueuedAt filters). */
  enqueuedAt: { earliest: string; oldest: string };
  /** Why the batch stopped taking tasks (Meilisearch's batchStrategy wording). */
  stopReason: string;
  /** The uids of the batch's tasks still stored. */
  taskUids: number[];
}

export interface BatchView {
  uid: number;
  progress: { steps: { currentStep: string; finished: number; total: number }[]; percentage: number } | null;
  details: Record<string, unknown>;
  stats: Omit<BatchStats, 'progressTrace'> & { progressTrace?: Record<string, string> };
  duration: string | null;
  startedAt: string;
  finishedAt: string | null;
  batchStrategy: string;
}

/** The record of a batch whose tasks (status `processing`) were just marked. */
export function processingBatch(uid: number, tasks: readonly TaskRecord[], startedAt: string, stopReason: string): BatchRecord {
  return {
    uid, details: accumulateDetails(tasks), stats: batchStats(tasks, {}), startedAt, finishedAt: null,
    enqueuedAt: enqueuedRange(tasks), stopReason, taskUids: tasks.map((task) => task.uid),
  };
}

/** The record of a finished batch: its tasks as committed (finished and the ones it canceled). */
export function finishedBatch(processing: BatchRecord, tasks: readonly TaskRecord[], finishedAt: string, progressTrace: Record<string, string>): BatchRecord {
  return {
    ...processing, details: accumulateDetails(tasks), stats: batchStats(tasks, progressTrace), finishedAt,
    enqueuedAt: enqueuedRange(tasks), taskUids: tasks.map((task) => task.uid),
  };
}

export function batchView(record: BatchRecord): BatchView {
  const processing = record.finishedAt === null;
  const { progressTrace, ...counts } = record.stats;
  const stats: BatchView['stats'] = Object.keys(progressTrace).length > 0 ? { ...counts, progressTrace } : counts;
  return {
    uid: record.uid,
    progress: processing ? { steps: [{ currentStep: 'processing tasks', finished: 0, total: 1 }], percentage: 0 } : null,
    details: record.details,
    stats,
    duration: processing ? null : isoDuration(record.startedAt, record.finishedAt!),
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    batchStrategy: record.stopReason,
  };
}

function batchStats(tasks: readonly TaskRecord[], progressTrace: Record<string, string>): BatchStats {
  const stats: BatchStats = { totalNbTasks: tasks.length, status: {}, types: {}, indexUids: {}, progressTrace };
  for (const task of tasks) {
    stats.status[task.status] = (stats.status[task.status] ?? 0) + 1;
    stats.types[task.type] = (stats.types[task.type] ?? 0) + 1;
    if (task.indexUid !== null) stats.indexUids[task.indexUid] = (stats.indexUids[task.indexUid] ?? 0) + 1;
  }
  return stats;
}

/**
 * Meilisearch's DetailsView::accumulate, in short: counts add up (a count missing on one side keeps
 * the other), anything else takes the latest task's value.
 */
export function accumulateDetails(tasks: readonly TaskRecord[]): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const task of tasks) {
    if (task.details === null) continue;
    for (const [key, value] of Object.entries(task.details)) {
      const before = details[key];
      details[key] = typeof value === 'number' && typeof before === 'number' ? before + value
        : value === null && before !== undefined ? before
          : value;
    }
  }
  return details;
}

function enqueuedRange(tasks: readonly TaskRecord[]): BatchRecord['enqueuedAt'] {
  let earliest = tasks[0]?.enqueuedAt ?? '';
  let oldest = earliest;
  for (const task of tasks) {
    if (task.enqueuedAt < earliest) earliest = task.enqueuedAt;
    if (task.enqueuedAt > oldest) oldest = task.enqueuedAt;
  }
  return { earliest, oldest };
}

/** Milliseconds as Meilisearch writes a progress trace step ("12.34ms"). */
export function traceDuration(milliseconds: number): string {
  return `${milliseconds.toFixed(2)}ms`;
}
