// `--import-dump FILE` at start (Meilisearch's dump format v6, src/dump/format.ts): runs in a thread of
// its own (import-worker.ts) before any other thread exists, so it is the only writer of the fresh LMDB
// environment (a thread that wrote LMDB does not close it: lmdb-js's close() then never returns, so the
// thread ends instead, as the scheduler's does). The
// archive is unpacked (streamed through gunzip and tar) into a folder of the data folder; documents
// are then read line by line and written in slices of IMPORT_SLICE documents per transaction, through
// the same staging code as a document addition (ids, shards, field distribution, exact numbers), so
// no file is ever held whole. The shard workers then build their shards from LMDB as at any start.
//
// A failed import leaves no half database: the environment is marked (meta DUMP_IMPORT_IN_PROGRESS)
// from its first write to its last, and removed on failure; a start finding the mark (an import cut
// by a crash) removes it and imports again.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import * as tar from 'tar';
import type { KeyRecord } from '../auth/key-record.js';
import { numbersPrintAsWritten, parseStoredJson } from '../documents/exact-json.js';
import { validateSetting } from '../front/indexes/settings-validation.js';
import { applyDocumentAddition } from '../scheduler/operations/document-operations.js';
import { newIndexRecord } from '../scheduler/operations/index-operations.js';
import { mergeSettings } from '../scheduler/operations/settings-merge.js';
import { StagedIndex } from '../scheduler/batching/staged-index.js';
import { NEXT_TASK_UID } from '../scheduler/task-enqueue.js';
import { NEXT_BATCH_UID } from '../scheduler/batching/batch-commit.js';
import { defaultSettings, SETTING_NAMES } from '../settings/index-settings.js';
import { closeStorage, openStorage, type Storage } from '../storage/environment.js';
import { FEATURE_NAMES, mergeFeatures, readFeatures } from '../storage/experimental-features.js';
import { EXPERIMENTAL_FEATURES, INSTANCE_UID } from '../storage/meta-keys.js';
import type { IndexRecord } from '../storage/records.js';
import type { BatchRecord } from '../tasks/batch-record.js';
import { awaitThreadEnd } from '../front/threads/thread-end.js';
import type { TaskContent, TaskRecord } from '../tasks/task-record.js';
import {
  BATCHES_QUEUE_FILE, batchFromDump, DUMP_VERSION, DumpFormatError, FEATURES_FILE, INDEXES_DIR, INSTANCE_UID_FILE, KEYS_FILE, keyFromDump, METADATA_FILE,
  TASKS_QUEUE_FILE, taskFromDump, UPDATE_FILES_DIR, type BatchDump, type DumpIndexMetadata, type DumpKey, type TaskDump,
} from './format.js';

/** Documents per LMDB transaction: 1M documents in 20 transactions. */
export const IMPORT_SLICE = 50_000;
const TASK_SLICE = 10_000;
export const DUMP_IMPORT_IN_PROGRESS = 'dumpImportInProgress';

/** Task types the scheduler can run once imported enqueued; enqueued tasks of other types are imported failed. */
const RUNNABLE = new Set(['documentAdditionOrUpdate', 'documentEdition', 'documentDeletion', 'settingsUpdate', 'indexCreation', 'indexUpdate',
  'indexDeletion', 'taskCancelation', 'taskDeletion', 'dumpCreation', 'snapshotCreation']);

export interface DumpImportOptions {
  dbPath: string;
  importDump: string | null;
  ignoreDumpIfDbExists: boolean;
  ignoreMissingDump: boolean;
  shardsPerIndex: number;
  log?: (message: string) => void;
}

export interface DumpImportSummary {
  indexes: number;
  documents: number;
  tasks: number;
  keys: number;
  millis: number;
}

/** Meilisearch's start rules; null when nothing was imported. Throws an Error (start refused) as Meilisearch. */
export async function importDumpAtStart(options: DumpImportOptions): Promise<DumpImportSummary | null> {
  const file = options.importDump;
  if (file === null) return null;
  await removeInterruptedImport(options.dbPath);
  const dbExists = existsSync(join(options.dbPath, 'lmdb', 'data.mdb'));
  const fileExists = existsSync(file);
  if (!dbExists && fileExists) return importInWorker(options.dbPath, file, options);
  if (dbExists && !options.ignoreDumpIfDbExists) {
    throw new Error(`database already exists at ${JSON.stringify(realpathSync(options.dbPath))}, try to delete it or rename it`);
  }
  if (!fileExists && !options.ignoreMissingDump) throw new Error(`dump doesn't exist at ${JSON.stringify(file)}`);
  return null;
}

/** An import cut by a crash left a marked environment: it is not a database. */
async function removeInterruptedImport(dbPath: string): Promise<void> {
  if (!existsSync(join(dbPath, 'lmdb', 'data.mdb'))) return;
  const storage = openStorage(dbPath);
  const marked = storage.meta.get(DUMP_IMPORT_IN_PROGRESS) !== undefined;
  await closeStorage(storage);
  if (marked) await removeDatabase(dbPath);
}

async function removeDatabase(dbPath: string): Promise<void> {
  await rm(join(dbPath, 'lmdb'), { recursive: true, force: true });
  await rm(join(dbPath, 'update-files'), { recursive: true, force: true });
  await rm(join(dbPath, 'snapshots'), { recursive: true, force: true });
}

const IMPORT_WORKER = new URL('./import-worker.js', import.meta.url);
/** How long the import thread may take to end itself after its answer before it is terminated. */
const IMPORT_THREAD_END_WAIT_MS = 5_000;

/** Runs importInto in its own thread; on failure the half-written environment is removed once that thread ended. */
async function importInWorker(dbPath: string, file: string, options: DumpImportOptions): Promise<DumpImportSummary> {
  const worker = new Worker(IMPORT_WORKER, { workerData: { dbPath, file, shardsPerIndex: options.shardsPerIndex } });
  type Outcome = { summary?: DumpImportSummary; error?: string };
  const exited = new Promise<void>((done) => worker.once('exit', () => done()));
  const outcome = await new Promise<Outcome>((settle) => {
    worker.once('message', settle);
    worker.once('error', (cause) => settle({ error: cause.message }));
    void exited.then(() => settle({ error: 'the import thread ended without an answer' }));
  });
  // It ends itself once it answered (import-worker.ts); terminated only if it has not within the bound.
  await awaitThreadEnd(worker, IMPORT_THREAD_END_WAIT_MS);
  if (outcome.summary) {
    options.log?.(`dump ${file} imported: ${outcome.summary.indexes} indexes, ${outcome.summary.documents} documents, `
      + `${outcome.summary.tasks} tasks, ${outcome.summary.keys} keys in ${outcome.summary.millis} ms`);
    return outcome.summary;
  }
  await removeDatabase(dbPath);
  throw new Error(`cannot import dump ${resolve(file)}: ${outcome.error}`);
}

/** The import itself (import-worker.ts runs it). Throws an Error saying why; the caller removes what was written. */
export async function importInto(dbPath: string, file: string, shardsPerIndex: number): Promise<DumpImportSummary> {
  const started = Date.now();
  const unpacked = await mkdtemp(join(dbPath, '.dump-import-'));
  try {
    await tar.x({ file, cwd: unpacked, strict: true, filter: (path) => !path.split('/').some((part) => part.startsWith('._')) });
    const metadata = JSON.parse(await readFile(join(unpacked, METADATA_FILE), 'utf8')) as { dumpVersion?: string };
    if (metadata.dumpVersion !== DUMP_VERSION) {
      throw new DumpFormatError(`the dump's version is \`${metadata.dumpVersion}\`; Skein imports dumps of version ${DUMP_VERSION} (Meilisearch v1.x)`);
    }
    const db = openStorage(dbPath);
    db.root.transactionSync(() => db.meta.put(DUMP_IMPORT_IN_PROGRESS, 1));
    const summary = { indexes: 0, documents: 0, tasks: 0, keys: 0, millis: 0 };
    summary.keys = await importKeys(db, unpacked);
    await importGlobals(db, unpacked);
    for (const entry of await readdirIfPresent(join(unpacked, INDEXES_DIR))) {
      const dir = join(unpacked, INDEXES_DIR, entry);
      if (!(await stat(dir)).isDirectory()) continue;
      summary.documents += await importIndex(db, dir, shardsPerIndex);
      summary.indexes++;
    }
    summary.tasks = await importTasks(db, unpacked);
    db.root.transactionSync(() => db.meta.remove(DUMP_IMPORT_IN_PROGRESS));
    summary.millis = Date.now() - started;
    return summary;
  } catch (cause) {
    throw new Error(cause instanceof DumpFormatError || cause instanceof SyntaxError ? `the dump is malformed: ${cause.message}` : (cause as Error).message);
  } finally {
    await rm(unpacked, { recursive: true, force: true });
  }
}

async function readdirIfPresent(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw cause;
  }
}

function lines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
}

async function importKeys(storage: Storage, dir: string): Promise<number> {
  const records: KeyRecord[] = [];
  for await (const line of lines(join(dir, KEYS_FILE))) {
    if (line.trim() !== '') records.push(keyFromDump(JSON.parse(line) as DumpKey));
  }
  storage.root.transactionSync(() => {
    for (const record of records) storage.keys.put(record.uid, record as unknown as Record<string, unknown>);
  });
  return records.length;
}

async function importGlobals(storage: Storage, dir: string): Promise<void> {
  const features = await readOptional(join(dir, FEATURES_FILE));
  const instanceUid = await readOptional(join(dir, INSTANCE_UID_FILE));
  storage.root.transactionSync(() => {
    if (features !== null) {
      const parsed = JSON.parse(features) as Record<string, unknown>;
      const known = Object.fromEntries(FEATURE_NAMES.flatMap((name) => (typeof parsed[name] === 'boolean' ? [[name, parsed[name] as boolean]] : [])));
      storage.meta.put(EXPERIMENTAL_FEATURES, JSON.stringify(mergeFeatures(readFeatures(storage.meta), known)));
    }
    if (instanceUid !== null && instanceUid.trim() !== '') storage.meta.put(INSTANCE_UID, instanceUid.trim());
  });
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cause;
  }
}

/** The dumped settings Skein knows, each checked as a PATCH would be; others (newer Meilisearch features) are left out. */
function importedSettings(dumped: Record<string, unknown>): IndexRecord['settings'] {
  const known: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    if (!Object.hasOwn(dumped, name)) continue;
    const value = dumped[name];
    if (value !== null) validateSetting(name, value, `.${name}`);
    known[name] = value;
  }
  return mergeSettings(defaultSettings(), known, false);
}

async function importIndex(storage: Storage, dir: string, shardsPerIndex: number): Promise<number> {
  const metadata = JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')) as DumpIndexMetadata;
  if (typeof metadata.uid !== 'string' || typeof metadata.createdAt !== 'string' || typeof metadata.updatedAt !== 'string') {
    throw new DumpFormatError(`${dir}/metadata.json lacks uid, createdAt or updatedAt`);
  }
  const record = newIndexRecord(metadata.uid, metadata.primaryKey ?? null, shardsPerIndex, metadata.createdAt);
  record.settings = importedSettings(JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>);
  const stage = new StagedIndex(storage, metadata.uid, record);
  const content = { type: 'documentAdditionOrUpdate', indexUid: metadata.uid, method: 'replace', updateFile: '', documentCount: 0, primaryKey: metadata.primaryKey ?? null } as const;
  let slice: Array<{ text: string; document: Record<string, unknown> }> = [];
  const flush = () => {
    if (slice.length === 0) return;
    applyDocumentAddition(stage, { ...content, primaryKey: stage.record!.primaryKey ?? content.primaryKey }, slice);
    slice = [];
    storage.root.transactionSync(() => {
      for (const [docId, text] of stage.documents) storage.documents.put([metadata.uid, docId], text!);
      for (const [externalId, docId] of stage.externalIds) storage.externalIds.put([metadata.uid, externalId], docId!);
    });
    stage.documents = new Map();
    stage.externalIds = new Map();
  };
  for await (const line of lines(join(dir, 'documents.jsonl'))) {
    const text = line.trim();
    if (text === '') continue;
    const document = parseStoredJson(text);
    if (document === null || typeof document !== 'object' || Array.isArray(document)) throw new DumpFormatError(`a document of \`${metadata.uid}\` is not an object`);
    slice.push({ text, document: document as Record<string, unknown> });
    if (slice.length >= IMPORT_SLICE) flush();
  }
  flush();
  const imported = stage.record!;
  imported.updatedAt = metadata.updatedAt;
  imported.commitSeq = 0;
  storage.root.transactionSync(() => storage.indexes.put(metadata.uid, imported));
  return imported.documentCount;
}

async function importTasks(storage: Storage, dir: string): Promise<number> {
  let count = 0;
  let maxUid = -1;
  let maxBatchUid = -1;
  /** batch uid -> the imported tasks that name it (a batch record lists its stored tasks). */
  const batchTasks = new Map<number, number[]>();
  let pending: TaskRecord[] = [];
  const write = () => {
    const records = pending;
    pending = [];
    storage.root.transactionSync(() => {
      for (const record of records) storage.tasks.put(record.uid, record);
    });
  };
  for await (const line of lines(join(dir, TASKS_QUEUE_FILE))) {
    if (line.trim() === '') continue;
    const dumped = JSON.parse(line) as TaskDump;
    const waiting = dumped.status === 'enqueued' || dumped.status === 'processing';
    const payload = join(dir, UPDATE_FILES_DIR, `${dumped.uid}.jsonl`);
    const updateFile = waiting && existsSync(payload) ? await copyPayload(payload, storage.updateFilesDir) : null;
    let record = taskFromDump(dumped, updateFile);
    if (waiting) record = { ...record, status: 'enqueued', batchUid: null, startedAt: null, finishedAt: null };
    if (waiting && !runnable(record)) {
      record = { ...record, status: 'failed', finishedAt: record.enqueuedAt, error: {
        message: `Skein cannot run a task of type \`${record.type}\` imported from a dump.`, code: 'internal', type: 'internal',
        link: 'https://docs.meilisearch.com/errors#internal',
      } };
    }
    maxUid = Math.max(maxUid, record.uid);
    if (record.batchUid !== null) {
      maxBatchUid = Math.max(maxBatchUid, record.batchUid);
      const uids = batchTasks.get(record.batchUid);
      if (uids === undefined) batchTasks.set(record.batchUid, [record.uid]);
      else uids.push(record.uid);
    }
    pending.push(record);
    count++;
    if (pending.length >= TASK_SLICE) write();
  }
  write();
  maxBatchUid = Math.max(maxBatchUid, await importBatches(storage, dir, batchTasks));
  storage.root.transactionSync(() => {
    storage.meta.put(NEXT_TASK_UID, maxUid + 1);
    storage.meta.put(NEXT_BATCH_UID, maxBatchUid + 1);
  });
  return count;
}

/** `batches/queue.jsonl` (absent in dumps of Meilisearch before v1.13): batches none of whose tasks was imported are left out. Returns the largest uid read. */
async function importBatches(storage: Storage, dir: string, batchTasks: ReadonlyMap<number, number[]>): Promise<number> {
  const path = join(dir, BATCHES_QUEUE_FILE);
  if (!existsSync(path)) return -1;
  let maxUid = -1;
  let pending: BatchRecord[] = [];
  const write = () => {
    const records = pending;
    pending = [];
    storage.root.transactionSync(() => {
      for (const record of records) storage.batches.put(record.uid, record);
    });
  };
  for await (const line of lines(path)) {
    if (line.trim() === '') continue;
    const dumped = JSON.parse(line) as BatchDump;
    const taskUids = batchTasks.get(dumped.uid);
    if (taskUids === undefined) continue;
    const record = batchFromDump(dumped, taskUids);
    maxUid = Math.max(maxUid, record.uid);
    pending.push(record);
    if (pending.length >= TASK_SLICE) write();
  }
  write();
  return maxUid;
}

function runnable(record: TaskRecord): boolean {
  if (!RUNNABLE.has(record.type)) return false;
  const content = record.content as TaskContent;
  return content.type !== 'documentAdditionOrUpdate' || content.updateFile !== '';
}

/** A dumped payload as a Skein update file: NDJSON, lines with numbers JavaScript would rewrite marked with a leading space. */
async function copyPayload(from: string, updateFilesDir: string): Promise<string> {
  await mkdir(updateFilesDir, { recursive: true });
  const name = `${randomUUID()}.ndjson`;
  const out = createWriteStream(join(updateFilesDir, name));
  for await (const line of lines(from)) {
    const text = line.trim();
    if (text === '') continue;
    const marked = numbersPrintAsWritten(text) ? `${text}\n` : ` ${text}\n`;
    if (!out.write(marked)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return name;
}
