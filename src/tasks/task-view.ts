// The public shapes of a task: the full task object (GET /tasks, GET /tasks/{uid}) and the summarized
// task answered when a write is enqueued. Field order is Meilisearch's (tasks.md §1); clients snapshot it.
import { isoDuration } from './timestamps.js';
import type { TaskRecord, TaskStatus, TaskType } from './task-record.js';

/** The record without what the scheduler keeps for itself; `details` omitted when the type has none. */
export type TaskView = Omit<TaskRecord, 'content' | 'details'> & {
  details?: Record<string, unknown>;
  duration: string | null;
  customMetadata?: string;
};

export interface SummarizedTask {
  taskUid: number;
  indexUid: string | null;
  status: TaskStatus;
  type: TaskType;
  enqueuedAt: string;
}

export function taskView(record: TaskRecord): TaskView {
  const view: TaskView = {
    uid: record.uid,
    batchUid: record.batchUid,
    indexUid: record.indexUid,
    status: record.status,
    type: record.type,
    canceledBy: record.canceledBy,
  } as TaskView;
  if (record.details !== null) view.details = record.details;
  view.error = record.error;
  view.duration = record.startedAt !== null && record.finishedAt !== null ? isoDuration(record.startedAt, record.finishedAt) : null;
  view.enqueuedAt = record.enqueuedAt;
  view.startedAt = record.startedAt;
  view.finishedAt = record.finishedAt;
  if (typeof record.content.customMetadata === 'string') view.customMetadata = record.content.customMetadata;
  return view;
}

export function summarizedTask(record: TaskRecord): SummarizedTask {
  return { taskUid: record.uid, indexUid: record.indexUid, status: record.status, type: record.type, enqueuedAt: record.enqueuedAt };
}
