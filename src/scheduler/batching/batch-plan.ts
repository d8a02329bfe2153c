// What processing a batch decided, before anything is written: each task's result, the staged index
// (for index batches), the other tasks a cancelation cancels and the tasks a deletion removes.
import type { ErrorBody } from '../../errors/index.js';
import type { IndexRecord } from '../../storage/records.js';
import type { TaskDetails } from '../../tasks/task-details.js';
import type { SwapPlan } from '../operations/index-swap.js';
import type { StagedIndex } from './staged-index.js';

export interface TaskResult {
  status: 'succeeded' | 'failed';
  details: TaskDetails | null;
  error: ErrorBody | null;
}

export interface IndexPlan {
  uid: string;
  /** The record as committed before the batch; null when the index did not exist. */
  before: IndexRecord | null;
  /** after = stage.record (null: the index is deleted). */
  stage: StagedIndex;
}

export interface BatchPlan {
  results: Map<number, TaskResult>;
  index: IndexPlan | null;
  /** Uids of enqueued tasks the batch's taskCancelation cancels. */
  canceledUids: number[];
  /** Uid of the taskCancelation doing it. */
  canceledBy: number | null;
  /** Uids of finished tasks the batch's taskDeletions remove. */
  deletedUids: number[];
  /** A swap or rename (index-swap.ts): records moved, older tasks renamed; null otherwise. */
  swap?: SwapPlan | null;
  /** `meta` entries written in the batch's transaction (null: removed): a topology change's progress (network-move.ts). */
  meta?: Array<[string, string | null]>;
  /** A step of a longer task (network-move.ts): its tasks go back to the queue, not finished, and no batch is recorded. */
  continues?: boolean;
}

/** A cancelation of a task in the batch being processed: the batch stops, nothing of it is kept. */
export class BatchAborted extends Error {}

export function emptyPlan(): BatchPlan {
  return { results: new Map(), index: null, canceledUids: [], canceledBy: null, deletedUids: [] };
}

export function settingsChanged(plan: IndexPlan): boolean {
  const after = plan.stage.record;
  return plan.before !== null && after !== null && JSON.stringify(plan.before.settings) !== JSON.stringify(after.settings);
}
