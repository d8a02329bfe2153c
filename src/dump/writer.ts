// Writes a dump (Meilisearch's format v6, src/dump/format.ts) from one LMDB read transaction, so the
// dump is one committed state: the scheduler runs a dumpCreation as a batch of its own, and tasks
// enqueued meanwhile are not in the snapshot. Runs on the scheduler thread, yielding to its event
// loop at every buffered write (enqueues are answered meanwhile).
//
// Files go to a private folder `<dumpDir>/.tmp-<dumpUid>/`, then are packed (tar + gzip) into
// `<dumpDir>/.tmp-<dumpUid>.dump.partial`, fsynced and renamed to `<dumpUid>.dump`: no file named
// `*.dump` is ever partial. Leftovers of a dump cut by a crash are removed by the next dump.
// Documents are written as their stored JSON text (numbers as written), never re-serialised.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as tar from 'tar';
import type { Transaction } from 'lmdb';
import type { KeyRecord } from '../auth/key-record.js';
import { defaultSettings, SETTING_NAMES, type IndexSettings } from '../settings/index-settings.js';
import { documentRange, type Storage } from '../storage/environment.js';
import { readFeatures } from '../storage/experimental-features.js';
import { INSTANCE_UID } from '../storage/meta-keys.js';
import { storageKeyOf } from '../storage/records.js';
import type { TaskRecord } from '../tasks/task-record.js';
import {
  BATCHES_QUEUE_FILE, batchToDump, CHAT_SETTINGS_DIR, dumpUidOf, DUMP_VERSION, FEATURES_FILE, INDEXES_DIR, INSTANCE_UID_FILE, KEYS_FILE,
  keyToDump, METADATA_FILE, NETWORK_FILE, TASKS_QUEUE_FILE, taskToDump, UPDATE_FILES_DIR, WEBHOOKS_FILE, type DumpIndexMetadata,
} from './format.js';

/** The Meilisearch version whose API Skein speaks (front/indexes/stats-routes.ts COMPATIBLE_MEILISEARCH_VERSION). */
export const DUMP_DB_VERSION = '1.50.0';
const CHUNK_BYTES = 1 << 20;
const TMP_PREFIX = '.tmp-';

export interface DumpRequest {
  storage: Storage;
  dumpDir: string;
  /** The dumpCreation task being processed (its startedAt names the dump). */
  task: TaskRecord;
  now: () => string;
  /** Called once the archive is written, before it takes its final name (crash tests). */
  beforeRename?: () => void;
}

/** Writes `<dumpUid>.dump` and returns the dumpUid. */
export async function writeDump(request: DumpRequest): Promise<string> {
  const { storage, dumpDir, task } = request;
  const dumpUid = dumpUidOf(task.startedAt!);
  await mkdir(dumpDir, { recursive: true });
  await removeLeftovers(dumpDir);
  const folder = join(dumpDir, `${TMP_PREFIX}${dumpUid}`);
  const partial = join(dumpDir, `${TMP_PREFIX}${dumpUid}.dump.partial`);
  await mkdir(folder, { recursive: true });
  try {
    const txn = storage.root.useReadTransaction();
    try {
      await writeContent(request, folder, dumpUid, txn);
    } finally {
      txn.done();
    }
    const entries = (await readdir(folder)).sort();
    await tar.c({ gzip: true, cwd: folder, file: partial, portable: true }, entries);
    const handle = await open(partial, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    request.beforeRename?.();
    await rename(partial, join(dumpDir, `${dumpUid}.dump`));
  } finally {
    await rm(folder, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
  return dumpUid;
}

async function removeLeftovers(dumpDir: string): Promise<void> {
  for (const name of await readdir(dumpDir)) {
    if (name.startsWith(TMP_PREFIX)) await rm(join(dumpDir, name), { recursive: true, force: true });
  }
}

async function writeContent(request: DumpRequest, folder: string, dumpUid: string, txn: Transaction): Promise<void> {
  const { storage, task } = request;
  const read = { transaction: txn };
  await writeFile(join(folder, METADATA_FILE), JSON.stringify({ dumpVersion: DUMP_VERSION, dbVersion: DUMP_DB_VERSION, dumpDate: request.now() }));
  const instanceUid = storage.meta.get(INSTANCE_UID, read);
  await writeFile(join(folder, INSTANCE_UID_FILE), typeof instanceUid === 'string' ? instanceUid : randomUUID());

  const keys = [...storage.keys.getRange({ transaction: txn })].map(({ value }) => keyToDump(value as unknown as KeyRecord));
  await writeFile(join(folder, KEYS_FILE), keys.map((key) => `${JSON.stringify(key)}\n`).join(''));

  await mkdir(join(folder, UPDATE_FILES_DIR), { recursive: true });
  const tasks = new LineWriter(join(folder, TASKS_QUEUE_FILE));
  for (const { value } of storage.tasks.getRange({ transaction: txn })) {
    let record = value;
    if (record.uid === task.uid) {
      // Itself: dumped finished, as Meilisearch does (an import must not run it again).
      record = { ...record, status: 'succeeded', startedAt: task.startedAt, finishedAt: request.now(), details: { dumpUid } };
    }
    await tasks.line(JSON.stringify(taskToDump(record, record.uid === task.uid ? keys : [])));
    if (record.status === 'enqueued' && record.content.type === 'documentAdditionOrUpdate') {
      await copyUpdateFile(join(storage.updateFilesDir, record.content.updateFile), join(folder, UPDATE_FILES_DIR, `${record.uid}.jsonl`));
    }
  }
  await tasks.close();
  await mkdir(join(folder, 'batches'));
  const batches = new LineWriter(join(folder, BATCHES_QUEUE_FILE));
  for (const { value } of storage.batches.getRange({ transaction: txn })) {
    let record = value;
    if (record.uid === task.batchUid && record.finishedAt === null) {
      // The dump's own batch, finished as its task is dumped finished.
      record = { ...record, details: { dumpUid }, finishedAt: request.now(), stats: { ...record.stats, status: { succeeded: record.stats.totalNbTasks } } };
    }
    await batches.line(JSON.stringify(batchToDump(record)));
  }
  await batches.close();
  await mkdir(join(folder, CHAT_SETTINGS_DIR));

  await mkdir(join(folder, INDEXES_DIR));
  for (const { value: record } of storage.indexes.getRange({ transaction: txn })) {
    const dir = join(folder, INDEXES_DIR, record.uid);
    await mkdir(dir);
    const metadata: DumpIndexMetadata = { uid: record.uid, primaryKey: record.primaryKey, createdAt: record.createdAt, updatedAt: record.updatedAt };
    await writeFile(join(dir, 'metadata.json'), JSON.stringify(metadata));
    await writeFile(join(dir, 'settings.json'), JSON.stringify(fullSettings(record.settings)));
    const documents = new LineWriter(join(dir, 'documents.jsonl'));
    for (const { value: text } of documentRange(storage, storageKeyOf(record), txn)) await documents.line(text);
    await documents.close();
  }

  const features = readFeatures({ get: (key: string) => storage.meta.get(key, read) } as Parameters<typeof readFeatures>[0]);
  await writeFile(join(folder, FEATURES_FILE), JSON.stringify(features));
  await writeFile(join(folder, NETWORK_FILE), JSON.stringify({ self: null, remotes: {}, shards: {}, leader: null, version: '00000000-0000-0000-0000-000000000000' }));
  await writeFile(join(folder, WEBHOOKS_FILE), JSON.stringify({ webhooks: {} }));
}

/** Every setting, in Meilisearch's GET /settings order, defaults for what the record lacks. */
function fullSettings(settings: Partial<IndexSettings>): IndexSettings {
  const defaults = defaultSettings();
  const out = {} as Record<string, unknown>;
  for (const name of SETTING_NAMES) out[name] = settings[name] ?? defaults[name];
  return out as unknown as IndexSettings;
}

/** An update file's documents, one JSON object a line, without the decoder's exact-numbers mark (a leading space). */
async function copyUpdateFile(from: string, to: string): Promise<void> {
  const out = new LineWriter(to);
  const lines = createInterface({ input: createReadStream(from, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    const text = line.trim();
    if (text !== '') await out.line(text);
  }
  await out.close();
}

/** Buffered line output: one write per MiB, awaiting the stream (and so yielding to the event loop). */
class LineWriter {
  private readonly stream: WriteStream;
  private buffer: string[] = [];
  private bytes = 0;

  constructor(path: string) {
    this.stream = createWriteStream(path);
  }

  async line(text: string): Promise<void> {
    this.buffer.push(text, '\n');
    this.bytes += text.length + 1;
    if (this.bytes >= CHUNK_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.bytes = 0;
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }

  async close(): Promise<void> {
    if (this.bytes > 0) await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
  }
}
