// The on-disk layout: one LMDB environment under <db-path>/lmdb shared by every thread of the
// process (each thread opens its own handle; LMDB serializes writers). Only the scheduler thread
// writes; the front thread and the shard workers read. A task's effects and its new status are
// committed in one LMDB transaction, which is what makes a task apply whole or not at all.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { BatchRecord } from '../tasks/batch-record.js';
import type { TaskRecord } from '../tasks/task-record.js';
import type { IndexRecord } from './records.js';

export interface Storage {
  root: RootDatabase;
  /** Counters: nextTaskUid, nextBatchUid, and the layout version. */
  meta: Database<number | string, string>;
  tasks: Database<TaskRecord, number>;
  /** Batches the scheduler processed (GET /batches); uid -> record, written with their tasks. */
  batches: Database<BatchRecord, number>;
  indexes: Database<IndexRecord, string>;
  /** [storageKey, docId] -> the stored document as JSON text (storageKey: records.ts storageKeyOf, the uid unless swapped or renamed). */
  documents: Database<string, [string, number]>;
  /** [storageKey, externalId] -> docId. */
  externalIds: Database<number, [string, string]>;
  /** API keys (the keys issue); uid -> record. */
  keys: Database<Record<string, unknown>, string>;
  updateFilesDir: string;
  dbPath: string;
}

export const LAYOUT_VERSION = 1;

export function openStorage(dbPath: string): Storage {
  const updateFilesDir = join(dbPath, 'update-files');
  mkdirSync(updateFilesDir, { recursive: true });
  const root = open({ path: join(dbPath, 'lmdb'), maxDbs: 16, mapSize: 64 * 1024 ** 3 });
  return {
    root,
    meta: root.openDB({ name: 'meta' }),
    tasks: root.openDB({ name: 'tasks', keyEncoding: 'uint32' }),
    batches: root.openDB({ name: 'batches', keyEncoding: 'uint32' }),
    indexes: root.openDB({ name: 'indexes' }),
    documents: root.openDB({ name: 'documents', encoding: 'string' }),
    externalIds: root.openDB({ name: 'external-ids' }),
    keys: root.openDB({ name: 'keys' }),
    updateFilesDir,
    dbPath,
  };
}

export async function closeStorage(storage: Storage): Promise<void> {
  await storage.root.close();
}

/**
 * Documents of one index in internal id order (= insertion order), as the browse route, shard loading and dumps need.
 * `storageKey`: the index record's storageKeyOf (records.ts), which differs from its uid after a swap or rename.
 */
export function documentRange(storage: Storage, storageKey: string, transaction?: import('lmdb').Transaction) {
  return storage.documents.getRange({ start: [storageKey, 0], end: [storageKey, 0xffffffff + 1], ...(transaction ? { transaction } : {}) });
}
