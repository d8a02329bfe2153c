// Turning a TaskContent from the front into a persisted enqueued TaskRecord: next global uid, initial
// details (tasks.md §2), and for cancelations/deletions the matched uids, fixed at enqueue time and
// limited to older tasks (tasks.md §5).
import { SkeinError } from '../errors/index.js';
import type { Storage } from '../storage/environment.js';
import { initialDetails } from '../tasks/task-details.js';
import { matchTasks, parseTaskQuery } from '../tasks/task-query.js';
import { checkSwapDuplicates } from '../tasks/task-indexes.js';
import { CLUSTER_APPLIED_SEQ } from '../storage/meta-keys.js';
import type { TaskContent, TaskRecord } from '../tasks/task-record.js';

export const NEXT_TASK_UID = 'nextTaskUid';

const INDEX_TASK_TYPES = new Set(['documentAdditionOrUpdate', 'documentEdition', 'documentDeletion', 'settingsUpdate', 'indexCreation', 'indexUpdate', 'indexDeletion']);

/** The front validated the request; this only guards the thread against a malformed message. */
export function checkedContent(raw: unknown): TaskContent {
  const content = raw as TaskContent | null;
  if (content === null || typeof content !== 'object' || typeof content.type !== 'string') {
    throw new SkeinError('bad_request', 'The task content is malformed.');
  }
  if (INDEX_TASK_TYPES.has(content.type)) {
    if (typeof (content as { indexUid?: unknown }).indexUid !== 'string') throw new SkeinError('bad_request', 'The task content has no index uid.');
    return content;
  }
  if (content.type === 'indexSwap') {
    if (!Array.isArray(content.swaps)) throw new SkeinError('bad_request', 'The task content has no swaps.');
    checkSwapDuplicates(content.swaps);
    return content;
  }
  if (content.type === 'dumpCreation') return content;
  if (content.type === 'taskCancelation' || content.type === 'taskDeletion') {
    if (content.filter === null || typeof content.filter !== 'object') throw new SkeinError('bad_request', 'The task content has no filter.');
    return content;
  }
  if (content.type === 'snapshotCreation' || content.type === 'networkTopologyChange') return content;
  throw new SkeinError('bad_request', `Task type \`${content.type}\` cannot be enqueued.`);
}

export function newTaskRecord(storage: Pick<Storage, 'tasks'>, uid: number, raw: TaskContent, enqueuedAt: string): TaskRecord {
  const content = withMatchedUids(storage, uid, raw);
  return {
    uid,
    batchUid: null,
    indexUid: 'indexUid' in content ? content.indexUid : null,
    status: 'enqueued',
    type: content.type,
    canceledBy: null,
    details: initialDetails(content),
    error: null,
    enqueuedAt,
    startedAt: null,
    finishedAt: null,
    content,
  };
}

function withMatchedUids(storage: Pick<Storage, 'tasks'>, uid: number, content: TaskContent): TaskContent {
  if (content.type !== 'taskCancelation' && content.type !== 'taskDeletion') return content;
  if (content.presetMatches === true) return content;
  const purpose = content.type === 'taskCancelation' ? 'cancel' : 'delete';
  const { filter } = parseTaskQuery(new URLSearchParams(content.filter), purpose);
  filter.authorizedIndexes = content.authorizedIndexes ?? null;
  return { ...content, matchedUids: matchTasks(storage, filter, uid) };
}

/** Persists the task and the uid counter in one durable transaction; in cluster mode with the task log sequence it applies. */
export function persistNewTask(storage: Storage, record: TaskRecord, logSeq: number | null = null): void {
  storage.root.transactionSync(() => {
    storage.tasks.put(record.uid, record);
    storage.meta.put(NEXT_TASK_UID, record.uid + 1);
    if (logSeq !== null) storage.meta.put(CLUSTER_APPLIED_SEQ, logSeq);
  });
}

/** Cluster mode: the last task log sequence this data folder applied (0: none). */
export function appliedLogSeq(storage: Pick<Storage, 'meta'>): number {
  const value = storage.meta.get(CLUSTER_APPLIED_SEQ);
  return typeof value === 'number' ? value : 0;
}
