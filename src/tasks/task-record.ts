// Tasks as the scheduler stores them. The public task object (GET /tasks) is a view of this record
// (src/tasks/task-view.ts); `content` is what the scheduler needs to do the work and is never shown.
import type { ErrorBody } from '../errors/index.js';

export const TASK_STATUSES = ['enqueued', 'processing', 'succeeded', 'failed', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const FINISHED_STATUSES: ReadonlySet<TaskStatus> = new Set(['succeeded', 'failed', 'canceled']);

export const TASK_TYPES = [
  'documentAdditionOrUpdate', 'documentEdition', 'documentDeletion', 'settingsUpdate', 'indexCreation',
  'indexDeletion', 'indexUpdate', 'indexSwap', 'taskCancelation', 'taskDeletion', 'dumpCreation',
  'snapshotCreation', 'export', 'upgradeDatabase', 'indexCompaction', 'networkTopologyChange', 'dsrUpdate', 'dsrClear',
] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** What a task asks for, by type. Built and validated by the front thread, persisted by the scheduler. */
export type TaskContent = TaskRequest & TaskAnnotations;

/** What a client attached to its write (document routes' `customMetadata`), shown on the task as given. */
export interface TaskAnnotations {
  customMetadata?: string;
}

type TaskRequest =
  | {
      type: 'documentAdditionOrUpdate';
      indexUid: string;
      /** replace = POST (whole documents), update = PUT (merge top-level fields). */
      method: 'replace' | 'update';
      /** Name of the NDJSON update file under <db-path>/update-files, written and fsynced before enqueueing. */
      updateFile: string;
      documentCount: number;
      primaryKey: string | null;
      /** false: the requesting key lacks indexes.create, so a missing index fails the task (absent: true). */
      allowIndexCreation?: boolean;
      /** skipCreation=true: documents whose id is not in the index yet are skipped, not created. */
      skipCreation?: boolean;
      /**
       * Cluster sharding (src/network): the network's shard group names when the task was published,
       * and this node's group, set when it applies the task: it keeps only its group's documents.
       */
      shardGroups?: { names: string[]; own: string | null; self?: string | null };
    }
  | { type: 'documentDeletion'; indexUid: string; ids: string[] }
  | { type: 'documentDeletion'; indexUid: string; clear: true }
  /**
   * Delete by filter: `filter` as sent (string or array form), checked when the task is processed.
   * shardGroups: the filter names `_shard` (src/network): the groups it is resolved with, as an addition's.
   */
  | { type: 'documentDeletion'; indexUid: string; byFilter: unknown; shardGroups?: { names: string[]; own: string | null; self?: string | null } }
  /** POST /documents/edit: `filter` as sent (null: every document), the Rhai `function`, its `context` object (src/scheduler/operations/document-edition.ts). */
  | { type: 'documentEdition'; indexUid: string; filter: unknown; context: Record<string, unknown> | null; function: string }
  | { type: 'settingsUpdate'; indexUid: string; settings: Record<string, unknown>; isDeletion: boolean; allowIndexCreation?: boolean }
  | { type: 'indexCreation'; indexUid: string; primaryKey: string | null }
  /** newIndexUid: PATCH /indexes/{uid} with `uid` (a rename, Meilisearch 1.18); absent: none. */
  | { type: 'indexUpdate'; indexUid: string; primaryKey: string | null; newIndexUid?: string | null }
  /** POST /swap-indexes: every pair at once (src/scheduler/operations/index-swap.ts). */
  | { type: 'indexSwap'; swaps: IndexSwapPair[] }
  | { type: 'indexDeletion'; indexUid: string }
  | { type: 'dumpCreation' }
  | TaskFilterContent<'taskCancelation'>
  | TaskFilterContent<'taskDeletion'>
  /** POST /snapshots or --schedule-snapshot (src/scheduler/operations/snapshot-task.ts). */
  | { type: 'snapshotCreation' }
  /**
   * PATCH /network (src/network): with `next`, a change of the shard groups in cluster mode, which
   * moves the documents whose group changed (scheduler/operations/network-move.ts); `previous`: the publisher's
   * groups before (used when no change was applied yet). Without: only records a change (a leader).
   */
  | { type: 'networkTopologyChange'; previous?: Record<string, string[]>; next?: Record<string, string[]> };

/** One element of POST /swap-indexes, as Meilisearch's details show it. */
export interface IndexSwapPair {
  indexes: [string, string];
  /** Move the first index to the second uid (which must not exist) instead of exchanging them. */
  rename: boolean;
}

/** A cancelation or deletion: the query string's filter, matched by the scheduler at enqueue time. */
export interface TaskFilterContent<T extends 'taskCancelation' | 'taskDeletion'> {
  type: T;
  filter: Record<string, string>;
  originalFilter: string;
  matchedUids: number[];
  /** Index patterns of the requesting key (absent or null: every index); only their tasks match. */
  authorizedIndexes?: string[] | null;
  /** Set by the scheduler's own automatic deletion (task-queue-housekeeping.ts): matchedUids are given, not computed from the filter. */
  presetMatches?: boolean;
}

export interface TaskRecord {
  uid: number;
  batchUid: number | null;
  indexUid: string | null;
  status: TaskStatus;
  type: TaskType;
  canceledBy: number | null;
  /** null: the type has no details (the view omits the key). */
  details: Record<string, unknown> | null;
  error: ErrorBody | null;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  content: TaskContent;
}
