// A snapshotCreation batch (POST /snapshots, --schedule-snapshot): every enqueued snapshotCreation
// task together, in a batch of its own, so nothing commits while it runs; searches go on (shard
// workers and the front never wait for it), enqueues are answered between its steps, and the writes
// enqueued meanwhile are applied after it. Layout and import: src/storage/snapshot-archive.ts.
//
// 1. The shard workers save the restart files their committed state lacks (in slices between
//    searches; acknowledged once written), so a server started from the archive restores its shards.
// 2. LMDB's compacting copy (mdb_env_copy2 on a libuv thread: one read transaction, consistent).
// 3. In the copy, the batch's own tasks are removed (as Meilisearch does), so an imported snapshot does
//    not take another one; the update files of the enqueued tasks and the shards' files are linked
//    (copied across file systems) next to it.
// 4. A tar.gz under a temporary name, fsynced, read-only (0444, as Meilisearch), renamed to
//    `<db-name>.snapshot`: a kill at any point leaves the previous snapshot or the new one, never a part;
//    leftovers are removed at the next snapshot and when the scheduler starts.
import { constants, createWriteStream } from 'node:fs';
import { chmod, copyFile, link, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { asSkeinError } from '../../errors/index.js';
import { closeStorage, openStorage, type Storage } from '../../storage/environment.js';
import {
  ARCHIVE_LMDB_FILE, ARCHIVE_SHARD_SNAPSHOTS, ARCHIVE_UPDATE_FILES, snapshotFileName, stagingFolderName, syncFolder, temporaryArchiveName,
} from '../../storage/snapshot-archive.js';
import type { TaskRecord } from '../../tasks/task-record.js';
import { emptyPlan, type BatchPlan } from '../batching/batch-plan.js';
import type { FailurePoint } from '../failure-points.js';
import type { ShardCommandSender } from '../shards/shard-link.js';
import { saveSnapshotsUntilWritten } from '../shards/snapshot-commands.js';

/**
 * zlib's fastest level: on 50k bench movies (busy 2 cores) the archive took 1.9 s at level 1 against
 * 3.4 s at Meilisearch's default 6, for 30.5 MB instead of 28.0 MB (LMDB pages and shard files hold
 * little redundancy).
 */
const GZIP_LEVEL = 1;

export interface SnapshotTaskOptions {
  storage: Storage;
  shards: ShardCommandSender;
  /** --snapshot-dir. */
  snapshotDir: string;
  failurePoint?: (point: FailurePoint) => void;
  log?: (message: string) => void;
  /**
   * Cluster mode (src/cluster): the batch's tasks stay in the copy, as succeeded, since a node that
   * joins from the archive must hold every task uid of the log as the other nodes do.
   */
  clustered?: boolean;
}

export class SnapshotCreator {
  readonly fileName: string;
  /** The leftovers' removal at start; a batch waits for it (it would remove the batch's own files). */
  private readonly startCleanup: Promise<void>;
  /** The native step in process (LMDB's copy, the copy's open/close): stop() waits for it. */
  private nativeStep: Promise<unknown> | null = null;
  /** Stops the archive's stream at shutdown. */
  private readonly stopSignal = new AbortController();
  private stopping = false;

  constructor(private readonly options: SnapshotTaskOptions) {
    this.fileName = snapshotFileName(options.storage.dbPath);
    this.startCleanup = this.removeLeftovers().catch((cause) => {
      options.log?.(`removing an unfinished snapshot failed: ${(cause as Error).message}`);
    });
  }

  /**
   * At shutdown: the snapshot in process stops at its next step and its archive stream is cut; resolves
   * once no native step runs (LMDB's copy must not outlive the thread: lmdb's callback into a thread
   * being torn down aborts the process). Its tasks stay `processing`: the next start does them again.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    await this.nativeStep?.catch(() => {});
  }

  private async native<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    this.nativeStep = running;
    try {
      return await running;
    } finally {
      this.nativeStep = null;
    }
  }

  /** Where the archive lands. */
  get path(): string {
    return join(this.options.snapshotDir, this.fileName);
  }

  /** Leftovers of a snapshot a kill cut short (never at the final name). */
  async removeLeftovers(): Promise<void> {
    const dir = this.options.snapshotDir;
    await rm(join(dir, temporaryArchiveName(this.fileName)), { force: true });
    await rm(join(dir, stagingFolderName(this.fileName)), { recursive: true, force: true });
  }

  /**
   * Processes the batch: every task succeeded with the one archive, or failed with its error.
   * `checkAbort` throws when a cancelation asks for the batch (before the rename: no file then);
   * `enqueued` gives the tasks still enqueued (their update files go along).
   */
  async run(tasks: TaskRecord[], checkAbort: () => void, enqueued: () => Iterable<TaskRecord>): Promise<BatchPlan> {
    const plan = emptyPlan();
    let error = null;
    let aborted = false;
    const check = () => {
      if (this.stopping) throw new Error('the server is shutting down');
      try {
        checkAbort();
      } catch (cause) {
        aborted = true;
        throw cause;
      }
    };
    try {
      await this.create(tasks, check, enqueued);
    } catch (cause) {
      await this.removeLeftovers().catch(() => {});
      // The thread ends: the batch is neither committed nor failed (recovery re-enqueues it).
      if (this.stopping) return new Promise<BatchPlan>(() => {});
      if (aborted) throw cause;
      error = asSkeinError(cause).toBody();
      this.options.log?.(`snapshot creation failed: ${(cause as Error).message}`);
    }
    for (const task of tasks) {
      plan.results.set(task.uid, error === null
        ? { status: 'succeeded', details: null, error: null }
        : { status: 'failed', details: null, error });
    }
    return plan;
  }

  private async create(tasks: TaskRecord[], checkAbort: () => void, enqueued: () => Iterable<TaskRecord>): Promise<void> {
    const { storage, snapshotDir } = this.options;
    await this.startCleanup;
    checkAbort();
    await mkdir(snapshotDir, { recursive: true });
    await this.removeLeftovers();
    const staging = join(snapshotDir, stagingFolderName(this.fileName));
    await mkdir(join(staging, 'lmdb'), { recursive: true });

    const steps = new StepTimes();
    await saveSnapshotsUntilWritten(this.options.shards, this.options.log ?? (() => {}));
    steps.mark('shard files saved');
    checkAbort();

    await this.native(() => storage.root.backup(join(staging, 'lmdb'), true));
    steps.mark('LMDB copied');
    checkAbort();
    await this.native(() => removeTasksFromCopy(staging, tasks, this.options.clustered === true));
    checkAbort();

    // After the copy: the queue can only have grown since (nothing is processed meanwhile), so every
    // task enqueued in the copy has its file here.
    await mkdir(join(staging, ARCHIVE_UPDATE_FILES), { recursive: true });
    for (const task of enqueued()) {
      if (task.content.type !== 'documentAdditionOrUpdate') continue;
      const name = task.content.updateFile;
      await linkOrCopy(join(storage.updateFilesDir, name), join(staging, ARCHIVE_UPDATE_FILES, name));
    }
    await copyShardFiles(join(storage.dbPath, ARCHIVE_SHARD_SNAPSHOTS), join(staging, ARCHIVE_SHARD_SNAPSHOTS));
    checkAbort();

    steps.mark('files linked');
    const temporary = join(snapshotDir, temporaryArchiveName(this.fileName));
    // Packed here, compressed by zlib on the libuv pool (node-tar's own gzip runs on this thread, which
    // must keep answering enqueues), written as it goes.
    const tar = await import('tar'); // here only: its module loading stays off the scheduler thread's start
    await pipeline(
      tar.c({ cwd: staging, portable: true }, [ARCHIVE_LMDB_FILE, ARCHIVE_UPDATE_FILES, ARCHIVE_SHARD_SNAPSHOTS]),
      createGzip({ level: GZIP_LEVEL }),
      createWriteStream(temporary, { flags: 'wx' }),
      { signal: this.stopSignal.signal },
    );
    const handle = await open(temporary, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    steps.mark('archive written');
    await chmod(temporary, 0o444);
    this.options.failurePoint?.('beforeSnapshotRename');
    checkAbort();
    await rename(temporary, this.path);
    syncFolder(snapshotDir);
    await rm(staging, { recursive: true, force: true });
    if (process.env['SKEIN_LOG_SNAPSHOT']) this.options.log?.(`snapshot ${this.path}: ${steps.summary()}`);
  }
}

class StepTimes {
  private last = performance.now();
  private readonly parts: string[] = [];

  mark(step: string): void {
    const now = performance.now();
    this.parts.push(`${step} ${Math.round(now - this.last)} ms`);
    this.last = now;
  }

  summary(): string {
    return this.parts.join(', ');
  }
}

/** The batch's snapshotCreation tasks are not in their own snapshot (Meilisearch's remove_tasks); in cluster mode they are, succeeded. */
async function removeTasksFromCopy(staging: string, tasks: TaskRecord[], keepAsSucceeded: boolean): Promise<void> {
  const copy = openStorage(staging);
  try {
    copy.root.transactionSync(() => {
      for (const task of tasks) {
        if (keepAsSucceeded) copy.tasks.put(task.uid, { ...task, status: 'succeeded', finishedAt: task.startedAt });
        else copy.tasks.remove(task.uid);
      }
      if (keepAsSucceeded && tasks[0]?.batchUid != null) copy.batches.remove(tasks[0].batchUid);
    });
  } finally {
    await closeStorage(copy);
  }
  // The copy's lock file is not part of a data folder to import.
  await rm(join(staging, 'lmdb', 'lock.mdb'), { force: true });
}

/** `<db-path>/snapshots/<index>/<shard>.bin` (finished files only, not the `.tmp` of a save in progress). */
async function copyShardFiles(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  let folders: string[];
  try {
    folders = await readdir(from);
  } catch {
    return;
  }
  for (const folder of folders) {
    let names: string[];
    try {
      names = await readdir(join(from, folder));
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/^\d+\.bin$/.test(name)) continue;
      await mkdir(join(to, folder), { recursive: true });
      await linkOrCopy(join(from, folder, name), join(to, folder, name)).catch((cause) => {
        // Removed meanwhile (index dropped): the archive goes without it.
        if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw cause;
      });
    }
  }
}

/**
 * A hard link keeps the file as it is now (a later save renames a new file over the name, a finished
 * task's update file is unlinked: the link still holds the old content); a copy across file systems.
 */
async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw cause;
    await copyFile(from, to, constants.COPYFILE_EXCL);
  }
}
