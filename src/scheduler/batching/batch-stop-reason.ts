// Why a batch stopped taking tasks, in Meilisearch's BatchStopReason wording (GET /batches shows it as
// `batchStrategy`). Pure: looks at the batch selectBatch made and the queue it chose from.
import type { TaskRecord } from '../../tasks/task-record.js';
import type { Batch, BatchLimits } from './batch-selection.js';

/** @param enqueued the queue the batch was selected from, in ascending uid order */
export function batchStopReason(batch: Batch, enqueued: readonly TaskRecord[], limits: BatchLimits): string {
  const first = batch.tasks[0];
  if (batch.kind !== 'index') {
    return `stopped after the last task of type \`${first.type}\` because they cannot be batched with tasks of any other type.`;
  }
  if (batch.tasks.length === 1 && !batchable(first)) {
    return `created batch containing only task with id ${first.uid} of type \`${first.type}\` that cannot be batched with any other task.`;
  }
  if (batch.tasks.length >= limits.maxTasks) return `batched up to configured batch limit of ${limits.maxTasks} tasks`;
  const last = batch.tasks[batch.tasks.length - 1];
  const taken = new Set(batch.tasks.map((task) => task.uid));
  const next = enqueued.find((task) => task.uid > last.uid && task.indexUid === batch.indexUid && !taken.has(task.uid));
  if (next) {
    if (first.type === 'settingsUpdate') {
      return `stopped before task with id ${next.uid} because it is a document operation which cannot be batched with settings changes`;
    }
    if (next.type === 'settingsUpdate') {
      return `stopped before task with id ${next.uid} because it is a settings change which cannot be batched with document operations`;
    }
    if (next.type === 'documentDeletion' && 'byFilter' in next.content) {
      return `stopped before task with id ${next.uid} because it is a deletion by filter which cannot be batched with document operations`;
    }
    if (next.type === 'indexDeletion') return `stopped after task with id ${last.uid} because the next task deletes the index`;
    if (next.type === 'documentAdditionOrUpdate') {
      return `batched up to configured batch limit of ${limits.maxDocuments} documents or a change of primary key or method before task with id ${next.uid}`;
    }
    return `stopped before task with id ${next.uid} of type \`${next.type}\` that cannot be batched with the batch's tasks`;
  }
  const others = enqueued.some((task) => !taken.has(task.uid) && task.indexUid !== batch.indexUid);
  return others ? `batched all enqueued tasks for index \`${batch.indexUid}\`` : 'batched all enqueued tasks';
}

function batchable(task: TaskRecord): boolean {
  if (task.type === 'settingsUpdate' || task.type === 'documentAdditionOrUpdate') return true;
  return task.type === 'documentDeletion' && 'ids' in task.content;
}
