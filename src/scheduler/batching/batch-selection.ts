// Which enqueued tasks form the next batch (tasks.md §4): the latest taskCancelation alone, else every
// taskDeletion together, else the oldest enqueued task decides the index and the autobatcher appends
// the following tasks of that index while they are compatible. Pure: works on records in uid order.
import { indexesOfTask, isSwapOrRename } from '../../tasks/task-indexes.js';
import type { TaskContent, TaskRecord } from '../../tasks/task-record.js';

export type Batch =
  | { kind: 'taskCancelation'; tasks: TaskRecord[] }
  | { kind: 'taskDeletion'; tasks: TaskRecord[] }
  /** A swap or rename, alone (src/scheduler/operations/index-swap.ts). */
  | { kind: 'indexSwap'; tasks: TaskRecord[] }
  /** Every enqueued snapshotCreation, together, before any index task (Meilisearch's create_batch order). */
  | { kind: 'snapshotCreation'; tasks: TaskRecord[] }
  | { kind: 'dumpCreation'; tasks: TaskRecord[] }
  /** Records a network change already made (src/network): alone, succeeds at once. */
  | { kind: 'networkTopologyChange'; tasks: TaskRecord[] }
  | { kind: 'index'; indexUid: string; tasks: TaskRecord[] };

export interface BatchLimits {
  /** Most tasks in one batch. */
  maxTasks: number;
  /** Most documents (sum of receivedDocuments) in one document batch; the first task always goes. */
  maxDocuments: number;
}

/**
 * 50k documents: a batch's documents are held in memory (staged JSON, write batches) until it commits,
 * and the next batch is planned meanwhile (plan-ahead.ts). Halving the earlier 100k made the commit's
 * synchronous transaction (enqueues wait on it) half as long; 1M documents loaded no slower.
 */
export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxTasks: 1000, maxDocuments: 50_000 };

/** @param enqueued every enqueued task, in ascending uid order */
export function selectBatch(enqueued: readonly TaskRecord[], limits: BatchLimits = DEFAULT_BATCH_LIMITS): Batch | null {
  if (enqueued.length === 0) return null;
  for (let i = enqueued.length - 1; i >= 0; i--) {
    if (enqueued[i].type === 'taskCancelation') return { kind: 'taskCancelation', tasks: [enqueued[i]] };
  }
  const deletions = enqueued.filter((task) => task.type === 'taskDeletion').slice(0, limits.maxTasks);
  if (deletions.length > 0) return { kind: 'taskDeletion', tasks: deletions };
  const snapshots = enqueued.filter((task) => task.type === 'snapshotCreation');
  if (snapshots.length > 0) return { kind: 'snapshotCreation', tasks: snapshots };
  // Then a dump, alone, before index tasks (Meilisearch's autobatcher order).
  const dump = enqueued.find((task) => task.type === 'dumpCreation');
  if (dump) return { kind: 'dumpCreation', tasks: [dump] };
  const first = enqueued[0];
  // A topology change runs once every task before it finished, and before any after it (network-move.ts).
  if (first.type === 'networkTopologyChange') return { kind: 'networkTopologyChange', tasks: [first] };
  if (isSwapOrRename(first.content)) return { kind: 'indexSwap', tasks: [first] };
  const indexUid = first.indexUid!;
  const tasks = [first];
  const autobatch = autobatcherFor(first.content);
  if (autobatch) {
    let documents = documentsOf(first.content);
    for (let i = 1; i < enqueued.length && tasks.length < limits.maxTasks; i++) {
      const task = enqueued[i];
      // A later task may not be moved before a swap or rename of this index.
      if (isSwapOrRename(task.content) && indexesOfTask(task.content).includes(indexUid)) break;
      if (task.type === 'networkTopologyChange') break;
      if (task.indexUid !== indexUid) continue;
      if (!autobatch.accepts(task.content)) break;
      documents += documentsOf(task.content);
      if (documents > limits.maxDocuments) break;
      tasks.push(task);
    }
  }
  return { kind: 'index', indexUid, tasks };
}

interface Autobatcher {
  accepts(content: TaskContent): boolean;
}

/** null: the task is batched alone (index creation/update/deletion, clear). */
function autobatcherFor(first: TaskContent): Autobatcher | null {
  if (first.type === 'settingsUpdate') return { accepts: (content) => content.type === 'settingsUpdate' };
  if (isDocumentAddition(first) || isDeletionByIds(first)) return documentOperationBatcher(first);
  return null;
}

/**
 * Additions with the same method and no contradicting primary key merge; deletions by ids join them.
 * The first addition fixes the method; the first given primary key fixes the key.
 */
function documentOperationBatcher(first: TaskContent): Autobatcher {
  let method = isDocumentAddition(first) ? first.method : null;
  let primaryKey = isDocumentAddition(first) ? first.primaryKey : null;
  return {
    accepts(content) {
      if (isDeletionByIds(content)) return true;
      if (!isDocumentAddition(content)) return false;
      if (method !== null && content.method !== method) return false;
      if (content.primaryKey !== null && primaryKey !== null && content.primaryKey !== primaryKey) return false;
      method = content.method;
      primaryKey = primaryKey ?? content.primaryKey;
      return true;
    },
  };
}

type DocumentAddition = Extract<TaskContent, { type: 'documentAdditionOrUpdate' }>;
type DeletionByIds = Extract<TaskContent, { ids: string[] }>;

function isDocumentAddition(content: TaskContent): content is DocumentAddition {
  return content.type === 'documentAdditionOrUpdate';
}

function isDeletionByIds(content: TaskContent): content is DeletionByIds {
  return content.type === 'documentDeletion' && 'ids' in content;
}

function documentsOf(content: TaskContent): number {
  return isDocumentAddition(content) ? content.documentCount : 0;
}
