// Swaps (POST /swap-indexes, with `rename` per pair) and renames (PATCH /indexes/{uid} with `uid`):
// a batch of its own that moves index RECORDS, never data. An index's documents, its shards in the
// workers and their snapshot files are named by its storage key (storage/records.ts storageKeyOf),
// which travels with the record: swapping `a` and `b` exchanges their records (each keeps its new
// uid), and the tasks before it that name them are renamed, all in the batch's one LMDB commit. The
// shard workers are told nothing; the front drops both uids from its catalog in one indexesChanged
// message, and a search resolves its index's record once, so it reads one side's shards and documents
// whatever happens meanwhile.
import { primaryKeyCannotBeChanged } from '../../documents/primary-key.js';
import { asSkeinError, SkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import { storageKeyOf, type IndexRecord } from '../../storage/records.js';
import { failedDetails } from '../../tasks/task-details.js';
import { renamedTask } from '../../tasks/task-indexes.js';
import { FINISHED_STATUSES, type IndexSwapPair, type TaskRecord } from '../../tasks/task-record.js';
import { emptyPlan, type BatchPlan } from '../batching/batch-plan.js';
import { indexNotFound } from './index-operations.js';

export interface SwapPlan {
  /** uid -> its record after the batch; null: the uid no longer names an index (renamed away). */
  records: Map<string, IndexRecord | null>;
  /** Finished tasks older than the batch's, with the uids renamed. */
  tasks: TaskRecord[];
  /** The uids whose record changed (the front drops them from its caches). */
  changed: string[];
}

type Reader = Pick<Storage, 'indexes' | 'tasks'>;

/** The plan of a swap or rename task, alone in its batch; a refused swap fails the task and changes nothing. */
export function planSwapOrRename(task: TaskRecord, storage: Reader, now: string): BatchPlan {
  const plan = emptyPlan();
  try {
    const content = task.content;
    if (content.type === 'indexSwap') plan.swap = planSwaps(task.uid, content.swaps, storage);
    else if (content.type === 'indexUpdate' && content.newIndexUid != null) plan.swap = planRename(task.uid, content.indexUid, content.newIndexUid, content.primaryKey, storage, now);
    else throw new Error(`task type ${task.type} is neither a swap nor a rename`);
    plan.results.set(task.uid, { status: 'succeeded', details: task.details, error: null });
  } catch (cause) {
    plan.swap = null;
    plan.results.set(task.uid, { status: 'failed', details: failedDetails(task.details), error: asSkeinError(cause).toBody() });
  }
  return plan;
}

/** Every pair is checked before any is applied (Meilisearch's order and messages: the missing ones first, then rename conflicts). */
function planSwaps(taskUid: number, swaps: readonly IndexSwapPair[], storage: Reader): SwapPlan {
  const exists = (uid: string) => storage.indexes.doesExist(uid);
  const notFound = new Set<string>();
  const conflicts: [string, string][] = [];
  for (const { indexes: [lhs, rhs], rename } of swaps) {
    if (!exists(lhs)) notFound.add(lhs);
    const rhsExists = exists(rhs);
    if (rhsExists && rename) conflicts.push([lhs, rhs]);
    if (!rhsExists && !rename) notFound.add(rhs);
  }
  if (notFound.size === 1) throw indexNotFound([...notFound][0]!);
  if (notFound.size > 1) throw new SkeinError('index_not_found', `Indexes ${quotedList([...notFound].sort(byteOrder))} not found.`);
  if (conflicts.length === 1) {
    const [lhs, rhs] = conflicts[0]!;
    throw new SkeinError('index_already_exists',
      `Cannot rename \`${lhs}\` to \`${rhs}\` as the index already exists. Hint: You can remove \`${rhs}\` first and then do your remove.`);
  }
  if (conflicts.length > 1) {
    throw new SkeinError('index_already_exists', 'The following indexes are being renamed but cannot because their new name conflicts with an '
      + `already existing index: ${quotedList(conflicts.map(([, rhs]) => rhs).sort(byteOrder))}. Renaming doesn't overwrite the other index name.`);
  }
  const records = new Map<string, IndexRecord | null>();
  const renames = new Map<string, string>();
  for (const { indexes: [lhs, rhs], rename } of swaps) {
    const left = storage.indexes.get(lhs)!;
    const right = rename ? null : storage.indexes.get(rhs)!;
    records.set(rhs, named(left, rhs));
    records.set(lhs, right === null ? null : named(right, lhs));
    renames.set(lhs, rhs).set(rhs, lhs);
  }
  return { records, tasks: renamedTasks(taskUid, renames, storage), changed: [...records.keys()] };
}

/** PATCH /indexes/{uid} with `uid`: the record moves to the new uid (updatedAt set), then the primary key changes if asked. */
function planRename(taskUid: number, uid: string, newUid: string, primaryKey: string | null, storage: Reader, now: string): SwapPlan {
  const current = storage.indexes.get(uid);
  if (!current) throw indexNotFound(uid);
  const records = new Map<string, IndexRecord | null>();
  let tasks: TaskRecord[] = [];
  let record = structuredClone(current);
  if (newUid !== uid) {
    if (storage.indexes.doesExist(newUid)) throw new SkeinError('index_already_exists', `Index \`${newUid}\` already exists.`);
    record = named(current, newUid);
    records.set(uid, null);
    tasks = renamedTasks(taskUid, new Map([[uid, newUid], [newUid, uid]]), storage);
  }
  record.updatedAt = now;
  if (primaryKey !== null && primaryKey !== record.primaryKey) {
    if (record.documentCount > 0 && record.primaryKey !== null) {
      const error = primaryKeyCannotBeChanged(record.primaryKey);
      throw new SkeinError(error.code, `Index \`${newUid}\`: ${error.message}`);
    }
    record.primaryKey = primaryKey;
  }
  records.set(newUid, record);
  return { records, tasks, changed: [...records.keys()] };
}

/** The record under another uid, its data (storage key) unchanged. */
function named(record: IndexRecord, uid: string): IndexRecord {
  const key = storageKeyOf(record);
  const out: IndexRecord = { ...structuredClone(record), uid };
  if (key === uid) delete out.storageKey;
  else out.storageKey = key;
  return out;
}

/**
 * The finished tasks older than the swap that name a swapped uid, renamed. Enqueued ones are left as
 * they are (Meilisearch's documentation says so; the scheduler's queue holds them).
 */
function renamedTasks(taskUid: number, renames: ReadonlyMap<string, string>, storage: Reader): TaskRecord[] {
  const out: TaskRecord[] = [];
  for (const { value: task } of storage.tasks.getRange({ end: taskUid })) {
    if (!FINISHED_STATUSES.has(task.status)) continue;
    const renamed = renamedTask(task, renames);
    if (renamed) out.push(renamed);
  }
  return out;
}

/** In the batch's commit transaction. */
export function writeSwap(storage: Pick<Storage, 'indexes' | 'tasks'>, swap: SwapPlan): void {
  for (const [uid, record] of swap.records) if (record === null) storage.indexes.remove(uid);
  for (const [uid, record] of swap.records) if (record !== null) storage.indexes.put(uid, record);
  for (const task of swap.tasks) storage.tasks.put(task.uid, task);
}

function quotedList(uids: readonly string[]): string {
  return uids.map((uid) => `\`${uid}\``).join(', ');
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
