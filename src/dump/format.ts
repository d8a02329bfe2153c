// Meilisearch's dump format v6 (crates/dump in its repository): file names, and the records as its
// serde types write them. Tasks in a dump are the internal `TaskDump`, not the API view: the kind is
// an externally tagged `KindDump` (variants camelCase, their fields snake_case), the details an
// externally tagged `Details` (variants PascalCase, fields snake_case); `canceledBy`, `details`,
// `error`, `startedAt`, `finishedAt` are left out when null. Keys are `Key` with snake_case dates.
// Pure: both directions, used by the writer (scheduler thread) and the import (startup).
import roaring from 'roaring';
import type { KeyRecord } from '../auth/key-record.js';
import type { BatchRecord } from '../tasks/batch-record.js';
import type { TaskContent, TaskRecord, TaskStatus, TaskType } from '../tasks/task-record.js';

export const DUMP_VERSION = 'V6';
export const METADATA_FILE = 'metadata.json';
export const INSTANCE_UID_FILE = 'instance_uid.uuid';
export const KEYS_FILE = 'keys.jsonl';
export const TASKS_QUEUE_FILE = 'tasks/queue.jsonl';
export const UPDATE_FILES_DIR = 'tasks/update_files';
export const BATCHES_QUEUE_FILE = 'batches/queue.jsonl';
export const FEATURES_FILE = 'experimental-features.json';
export const NETWORK_FILE = 'network.json';
export const WEBHOOKS_FILE = 'webhooks.json';
export const CHAT_SETTINGS_DIR = 'chat-completions-settings';
export const INDEXES_DIR = 'indexes';

export interface DumpMetadata {
  dumpVersion: string;
  dbVersion: string;
  dumpDate: string;
}

export interface DumpIndexMetadata {
  uid: string;
  primaryKey: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Meilisearch's `Key` as serialized (description and name left out when null). */
export interface DumpKey {
  description?: string;
  name?: string;
  uid: string;
  actions: string[];
  indexes: string[];
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskDump {
  uid: number;
  batchUid?: number | null;
  indexUid?: string | null;
  status: TaskStatus;
  type: unknown;
  canceledBy?: number;
  details?: unknown;
  error?: unknown;
  enqueuedAt: string;
  startedAt?: string;
  finishedAt?: string;
}

/** `<dumpUid>` as Meilisearch formats the task's start: YYYYMMDD-HHMMSSmmm (UTC). */
export function dumpUidOf(startedAt: string): string {
  const date = new Date(startedAt);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}-`
    + `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}${pad(date.getUTCMilliseconds(), 3)}`;
}

export function keyToDump(record: KeyRecord): DumpKey {
  const key: DumpKey = {} as DumpKey;
  if (record.description !== null) key.description = record.description;
  if (record.name !== null) key.name = record.name;
  key.uid = record.uid;
  key.actions = record.actions;
  key.indexes = record.indexes;
  key.expires_at = record.expiresAt;
  key.created_at = record.createdAt;
  key.updated_at = record.updatedAt;
  return key;
}

export function keyFromDump(key: DumpKey): KeyRecord {
  requireFields('key', key, ['uid', 'actions', 'indexes', 'created_at', 'updated_at']);
  return {
    uid: key.uid,
    name: key.name ?? null,
    description: key.description ?? null,
    actions: key.actions,
    indexes: key.indexes,
    expiresAt: key.expires_at ?? null,
    createdAt: key.created_at,
    updatedAt: key.updated_at,
  };
}

// ---------------------------------------------------------------- batches

/** A line of `batches/queue.jsonl`: Meilisearch's `Batch` (its progress is never serialized). */
export interface BatchDump {
  uid: number;
  details: Record<string, unknown>;
  stats: BatchRecord['stats'];
  startedAt: string;
  finishedAt: string | null;
  enqueuedAt?: { earliest: string; oldest: string } | null;
  stopReason?: string;
}

export function batchToDump(record: BatchRecord): BatchDump {
  const { uid, details, stats, startedAt, finishedAt, enqueuedAt, stopReason } = record;
  return { uid, details, stats, startedAt, finishedAt, enqueuedAt, stopReason };
}

/** A dumped batch as Skein keeps it; `taskUids` are the imported tasks that name it. */
export function batchFromDump(dump: BatchDump, taskUids: number[]): BatchRecord {
  requireFields('batch', dump, ['uid', 'details', 'stats', 'startedAt']);
  const stats = { ...dump.stats, progressTrace: dump.stats.progressTrace ?? {} };
  return {
    uid: dump.uid, details: dump.details, stats, startedAt: dump.startedAt, finishedAt: dump.finishedAt ?? null,
    enqueuedAt: dump.enqueuedAt ?? { earliest: dump.startedAt, oldest: dump.startedAt }, stopReason: dump.stopReason ?? '', taskUids,
  };
}

// ---------------------------------------------------------------- tasks: Skein -> dump

export function taskToDump(task: TaskRecord, keys: DumpKey[] = []): TaskDump {
  const dump = { uid: task.uid, batchUid: task.batchUid, indexUid: task.indexUid, status: task.status, type: kindToDump(task, keys) } as TaskDump;
  if (task.canceledBy !== null) dump.canceledBy = task.canceledBy;
  const details = detailsToDump(task);
  if (details !== null) dump.details = details;
  if (task.error !== null) dump.error = task.error;
  dump.enqueuedAt = task.enqueuedAt;
  if (task.startedAt !== null) dump.startedAt = task.startedAt;
  if (task.finishedAt !== null) dump.finishedAt = task.finishedAt;
  return dump;
}

function portableBitmap(uids: readonly number[]): number[] {
  return [...new roaring.RoaringBitmap32(uids).serialize(true)];
}

function kindToDump(task: TaskRecord, keys: DumpKey[]): unknown {
  const content = task.content as TaskContent & Record<string, unknown>;
  switch (content.type) {
    case 'documentAdditionOrUpdate':
      return { documentImport: {
        primary_key: content.primaryKey, method: content.method === 'update' ? 'UpdateDocuments' : 'ReplaceDocuments',
        documents_count: content.documentCount, allow_index_creation: content.allowIndexCreation !== false,
      } };
    case 'documentDeletion':
      if ('clear' in content) return 'documentClear';
      if ('byFilter' in content) return { documentDeletionByFilter: { filter: content.byFilter } };
      return { documentDeletion: { documents_ids: content.ids } };
    case 'documentEdition':
      return { documentEdition: { filter: content.filter ?? null, context: content.context ?? null, function: content.function } };
    case 'settingsUpdate':
      return { settings: { settings: content.settings, is_deletion: content.isDeletion, allow_index_creation: content.allowIndexCreation !== false } };
    case 'indexCreation':
      return { indexCreation: { primary_key: content.primaryKey } };
    case 'indexUpdate':
      return { indexUpdate: { primary_key: content.primaryKey, uid: (content as { newIndexUid?: string }).newIndexUid ?? null } };
    case 'indexDeletion':
      return 'indexDeletion';
    case 'taskCancelation':
      return { taskCancelation: { query: content.originalFilter, tasks: portableBitmap(content.matchedUids) } };
    case 'taskDeletion':
      return { tasksDeletion: { query: content.originalFilter, tasks: portableBitmap(content.matchedUids) } };
    default:
      return otherKindToDump(task.type, content, keys);
  }
}

/** Types whose content other parts of Skein define (dumps, snapshots, swaps): from the type and what the content names. */
function otherKindToDump(type: TaskType, content: Record<string, unknown>, keys: DumpKey[]): unknown {
  switch (type) {
    case 'dumpCreation': return { dumpCreation: { keys, instance_uid: null } };
    case 'snapshotCreation': return 'snapshotCreation';
    case 'indexSwap': return { indexSwap: { swaps: swapsOf(content.swaps) } };
    default: return type;
  }
}

function swapsOf(swaps: unknown): unknown[] {
  if (!Array.isArray(swaps)) return [];
  return swaps.map((swap) => ({ indexes: (swap as { indexes: unknown }).indexes, rename: (swap as { rename?: boolean }).rename === true }));
}

/** Skein keeps details in the API view's shape (camelCase, by task type); the dump's Details enum says which variant. */
function detailsToDump(task: TaskRecord): unknown {
  const d = task.details;
  if (d === null) return null;
  const content = task.content as TaskContent & Record<string, unknown>;
  switch (task.type) {
    case 'documentAdditionOrUpdate':
      return { DocumentAdditionOrUpdate: { received_documents: d.receivedDocuments ?? 0, indexed_documents: d.indexedDocuments ?? null } };
    case 'settingsUpdate':
      return { SettingsUpdate: { settings: d } };
    case 'indexCreation':
    case 'indexUpdate':
      return { IndexInfo: { primary_key: d.primaryKey ?? null, new_index_uid: d.newIndexUid ?? null, old_index_uid: d.oldIndexUid ?? null } };
    case 'indexDeletion':
      return { ClearAll: { deleted_documents: d.deletedDocuments ?? null } };
    case 'documentEdition':
      return { DocumentEdition: { deleted_documents: d.deletedDocuments ?? null, edited_documents: d.editedDocuments ?? null,
        original_filter: d.originalFilter ?? null, context: d.context ?? null, function: d.function ?? '' } };
    case 'documentDeletion':
      if ('clear' in content) return { ClearAll: { deleted_documents: d.deletedDocuments ?? null } };
      if ('byFilter' in content) return { DocumentDeletionByFilter: { original_filter: d.originalFilter ?? '', deleted_documents: d.deletedDocuments ?? null } };
      return { DocumentDeletion: { provided_ids: d.providedIds ?? 0, deleted_documents: d.deletedDocuments ?? null } };
    case 'taskCancelation':
      return { TaskCancelation: { matched_tasks: d.matchedTasks ?? 0, canceled_tasks: d.canceledTasks ?? null, original_filter: d.originalFilter ?? '' } };
    case 'taskDeletion':
      return { TaskDeletion: { matched_tasks: d.matchedTasks ?? 0, deleted_tasks: d.deletedTasks ?? null, original_filter: d.originalFilter ?? '' } };
    case 'dumpCreation':
      return { Dump: { dump_uid: d.dumpUid ?? null } };
    case 'indexSwap':
      return { IndexSwap: { swaps: swapsOf(d.swaps) } };
    default:
      return null;
  }
}

// ---------------------------------------------------------------- tasks: dump -> Skein

export const TASK_STATUS_NAMES = ['enqueued', 'processing', 'succeeded', 'failed', 'canceled'];

export class DumpFormatError extends Error {}

function requireFields(what: string, value: unknown, fields: string[]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DumpFormatError(`${what} is not an object`);
  for (const field of fields) {
    if (!Object.hasOwn(value, field)) throw new DumpFormatError(`${what} lacks the field \`${field}\``);
  }
}

/** The kind's variant name and its fields (unit variants are bare strings). */
function variant(value: unknown, what: string): [string, Record<string, unknown>] {
  if (typeof value === 'string') return [value, {}];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [name, fields] = entries[0]!;
      return [name, fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? fields as Record<string, unknown> : { value: fields }];
    }
  }
  throw new DumpFormatError(`${what} is not an externally tagged enum value`);
}

function bitmapUids(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return roaring.RoaringBitmap32.deserialize(Buffer.from(value as number[]), true).toArray();
}

/**
 * A dumped task as Skein stores it. `updateFile`: the name its payload was copied to (enqueued
 * document imports), else null. Kinds Skein cannot run keep their type and history; enqueued ones
 * are imported as failed (the caller decides).
 */
export function taskFromDump(dump: TaskDump, updateFile: string | null): TaskRecord {
  requireFields('task', dump, ['uid', 'status', 'type', 'enqueuedAt']);
  if (!TASK_STATUS_NAMES.includes(dump.status)) throw new DumpFormatError(`task ${dump.uid} has the unknown status \`${dump.status}\``);
  const [kind, fields] = variant(dump.type, `task ${dump.uid}'s type`);
  const indexUid = dump.indexUid ?? null;
  const [type, content] = contentFromKind(kind, fields, indexUid, updateFile);
  return {
    uid: dump.uid,
    batchUid: dump.batchUid ?? null,
    indexUid,
    status: dump.status,
    type,
    canceledBy: dump.canceledBy ?? null,
    details: detailsFromDump(dump.details, type),
    error: (dump.error as TaskRecord['error']) ?? null,
    enqueuedAt: dump.enqueuedAt,
    startedAt: dump.startedAt ?? null,
    finishedAt: dump.finishedAt ?? null,
    content,
  };
}

function contentFromKind(kind: string, f: Record<string, unknown>, indexUid: string | null, updateFile: string | null): [TaskType, TaskContent] {
  const uid = indexUid ?? '';
  switch (kind) {
    case 'documentImport':
      return ['documentAdditionOrUpdate', {
        type: 'documentAdditionOrUpdate', indexUid: uid, method: f.method === 'UpdateDocuments' ? 'update' : 'replace',
        updateFile: updateFile ?? '', documentCount: Number(f.documents_count ?? 0), primaryKey: (f.primary_key as string | null) ?? null,
        allowIndexCreation: f.allow_index_creation !== false,
      }];
    case 'documentDeletion':
      return ['documentDeletion', { type: 'documentDeletion', indexUid: uid, ids: (f.documents_ids as string[]) ?? [] }];
    case 'documentClear':
      return ['documentDeletion', { type: 'documentDeletion', indexUid: uid, clear: true }];
    case 'documentDeletionByFilter':
      return ['documentDeletion', { type: 'documentDeletion', indexUid: uid, byFilter: f.filter }];
    case 'settings':
      return ['settingsUpdate', { type: 'settingsUpdate', indexUid: uid, settings: (f.settings as Record<string, unknown>) ?? {},
        isDeletion: f.is_deletion === true, allowIndexCreation: f.allow_index_creation !== false }];
    case 'indexCreation':
      return ['indexCreation', { type: 'indexCreation', indexUid: uid, primaryKey: (f.primary_key as string | null) ?? null }];
    case 'indexUpdate':
      return ['indexUpdate', { type: 'indexUpdate', indexUid: uid, primaryKey: (f.primary_key as string | null) ?? null }];
    case 'indexDeletion':
      return ['indexDeletion', { type: 'indexDeletion', indexUid: uid }];
    case 'taskCancelation':
    case 'tasksDeletion': {
      const type = kind === 'taskCancelation' ? 'taskCancelation' : 'taskDeletion';
      const query = typeof f.query === 'string' ? f.query : '';
      return [type, { type, filter: Object.fromEntries(new URLSearchParams(query.replace(/^\?/, ''))), originalFilter: query,
        matchedUids: bitmapUids(f.tasks) } as TaskContent];
    }
    case 'dumpCreation': return ['dumpCreation', { type: 'dumpCreation' } as unknown as TaskContent];
    case 'snapshotCreation': return ['snapshotCreation', { type: 'snapshotCreation' } as unknown as TaskContent];
    case 'indexSwap': return ['indexSwap', { type: 'indexSwap', swaps: f.swaps ?? [] } as unknown as TaskContent];
    case 'documentEdition':
      return ['documentEdition', { type: 'documentEdition', indexUid: uid, filter: f.filter ?? null,
        context: (f.context as Record<string, unknown> | null) ?? null, function: typeof f.function === 'string' ? f.function : '' }];
    case 'export': return ['export', { type: 'export' } as unknown as TaskContent];
    case 'upgradeDatabase': return ['upgradeDatabase', { type: 'upgradeDatabase' } as unknown as TaskContent];
    case 'indexCompaction': return ['indexCompaction', { type: 'indexCompaction', indexUid: uid } as unknown as TaskContent];
    case 'networkTopologyChange': return ['networkTopologyChange', { type: 'networkTopologyChange' } as unknown as TaskContent];
    default: throw new DumpFormatError(`unknown task type \`${kind}\``);
  }
}

const SNAKE = /_([a-z])/g;
function camel(name: string): string {
  return name.replace(SNAKE, (_, letter: string) => letter.toUpperCase());
}

/** The Details variant's fields in the API view's names and order (tasks.md §2). */
function detailsFromDump(value: unknown, type: TaskType): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  const [name, f] = variant(value, 'task details');
  switch (name) {
    case 'DocumentAdditionOrUpdate': return { receivedDocuments: f.received_documents ?? 0, indexedDocuments: f.indexed_documents ?? null };
    case 'SettingsUpdate': return { ...(f.settings as Record<string, unknown> ?? {}) };
    case 'IndexInfo': return { primaryKey: f.primary_key ?? null };
    case 'DocumentDeletion': return { providedIds: f.provided_ids ?? 0, deletedDocuments: f.deleted_documents ?? null, originalFilter: null };
    case 'DocumentDeletionByFilter': return { providedIds: 0, deletedDocuments: f.deleted_documents ?? null, originalFilter: f.original_filter ?? null };
    case 'ClearAll': return { deletedDocuments: f.deleted_documents ?? null };
    case 'TaskCancelation': return { matchedTasks: f.matched_tasks ?? 0, canceledTasks: f.canceled_tasks ?? null, originalFilter: f.original_filter ?? '' };
    case 'TaskDeletion': return { matchedTasks: f.matched_tasks ?? 0, deletedTasks: f.deleted_tasks ?? null, originalFilter: f.original_filter ?? '' };
    case 'Dump': return { dumpUid: f.dump_uid ?? null };
    case 'IndexSwap': return { swaps: f.swaps ?? [] };
    default: return Object.fromEntries(Object.entries(f).map(([key, v]) => [camel(key), v]));
  }
  void type;
}
