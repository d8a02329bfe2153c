// Where shard snapshots live and how they reach the disk: <db-path>/snapshots/<indexUid>/<shard>.bin,
// each written whole to a temporary file, fsynced, then renamed over the old one (and the folder
// fsynced), so a reader sees the previous file or the new one, never a part.
import { closeSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { SnapshotReader } from './snapshot-container.js';

/**
 * A file name stays under NAME_MAX (255 bytes) while an index uid may have 400 characters: long uids
 * get a digest instead (the file's header names its index, so a collision can only miss, never mislead).
 */
const LONGEST_FOLDER_NAME = 128;

export function snapshotFolder(dbPath: string, indexUid: string): string {
  const name = indexUid.length <= LONGEST_FOLDER_NAME ? indexUid
    : `${indexUid.slice(0, 32)}-${createHash('sha256').update(indexUid).digest('hex')}`;
  return join(dbPath, 'snapshots', name);
}

export function snapshotPath(dbPath: string, indexUid: string, shard: number): string {
  return join(snapshotFolder(dbPath, indexUid), `${shard}.bin`);
}

export function temporaryPathOf(path: string): string {
  return `${path}.tmp`;
}

export function writeFileAtomically(path: string, folder: string, chunks: readonly Uint8Array[]): void {
  mkdirSync(folder, { recursive: true });
  // One temporary name per shard (only its owner writes it): a save cut short by a kill leaves at most
  // one stray file per shard, truncated by the next save, instead of one per crash.
  const temporary = temporaryPathOf(path);
  const fd = openSync(temporary, 'w');
  try {
    for (const chunk of chunks) {
      for (let written = 0; written < chunk.byteLength;) written += writeSync(fd, chunk, written, chunk.byteLength - written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const folderFd = openSync(folder, 'r');
  try {
    fsyncSync(folderFd);
  } finally {
    closeSync(folderFd);
  }
}

/** Bytes written per step of writeFileInSteps (a few ms into the page cache). */
const BYTES_PER_STEP = 4 * 2 ** 20;

/**
 * writeFileAtomically in steps (a quiet-time save between searches): the chunks written a piece per
 * step, the fsync awaited off the thread (the step yields its promise), then — only if `stillValid()`
 * (the state encoded is still the one held) — the rename. Its temporary file has a name of its own,
 * so a save that runs meanwhile (shutdown) never shares it. Stopped early (generator.return(): a
 * write to the index), it leaves no file behind. Returns whether the file was renamed into place.
 */
export function* writeFileInSteps(path: string, folder: string, chunks: readonly Uint8Array[],
  stillValid: () => boolean): Generator<Promise<void> | void, boolean, unknown> {
  mkdirSync(folder, { recursive: true });
  const temporary = `${path}.bg${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'w');
  let closed = false;
  let renamed = false;
  let syncing: Promise<void> | null = null;
  try {
    for (const chunk of chunks) {
      for (let written = 0; written < chunk.byteLength;) {
        const end = Math.min(chunk.byteLength, written + BYTES_PER_STEP);
        while (written < end) written += writeSync(fd, chunk, written, end - written);
        yield;
      }
    }
    let failure: Error | null = null;
    syncing = new Promise<void>((resolve) => fsync(fd, (error) => {
      failure = error;
      resolve();
    }));
    yield syncing;
    syncing = null;
    if (failure) throw failure;
    closeSync(fd);
    closed = true;
    if (!stillValid()) return false;
    renameSync(temporary, path);
    renamed = true;
    const folderFd = openSync(folder, 'r');
    try {
      fsyncSync(folderFd);
    } finally {
      closeSync(folderFd);
    }
    return true;
  } finally {
    // An fsync still running keeps its descriptor until it ends (a descriptor closed under it could be reused by another file).
    if (!closed) {
      if (syncing === null) closeSync(fd);
      else void syncing.then(() => closeSync(fd));
    }
    if (!renamed) rmSync(temporary, { force: true });
  }
}

/** Removes the temporary files of saves of this snapshot cut short (a kill during a save). */
export function removeTemporaryFiles(path: string): void {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(prefix) && name.endsWith('.tmp')) rmSync(join(dirname(path), name), { force: true });
}

/** A reader of the file (checked: SnapshotFormatError when bad), or null when there is none. */
export function openSnapshotFile(path: string): SnapshotReader | null {
  try {
    return SnapshotReader.fromFile(path);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cause;
  }
}

/** openSnapshotFile, read asynchronously (SnapshotReader.fromFileAsync). */
export async function readSnapshotFile(path: string): Promise<SnapshotReader | null> {
  try {
    return await SnapshotReader.fromFileAsync(path);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cause;
  }
}

/** A file read ahead: its reader, null when there is none, or what the read threw. */
export type ReadAhead = SnapshotReader | null | Error;

/** The file's read, settled with its outcome (never rejected: a read nobody awaits must not be an unhandled rejection). */
export function readAheadOf(path: string): Promise<ReadAhead> {
  return readSnapshotFile(path).catch((cause: unknown) => (cause instanceof Error ? cause : new Error(String(cause))));
}

/**
 * What a shard worker reads as soon as its thread starts, before its modules are loaded (shard/worker-entry.ts):
 * the snapshot files of the shards it is the primary owner of (`shard % workerCount`), in every index
 * folder, read on libuv's threads while this one compiles. Only bytes: whether a file is the committed
 * state of a shard is checked by `restore` against the records, as for any file; one nobody takes is dropped.
 */
export function readSnapshotsEarly(dbPath: string, workerIndex: number, workerCount: number): Map<string, Promise<ReadAhead>> {
  const reads = new Map<string, Promise<ReadAhead>>();
  const root = join(dbPath, 'snapshots');
  let folders: string[];
  try {
    folders = readdirSync(root);
  } catch {
    return reads;
  }
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(join(root, folder));
    } catch {
      continue;
    }
    for (const name of names) {
      const shard = /^(\d+)\.bin$/.exec(name)?.[1];
      if (shard === undefined || Number(shard) % workerCount !== workerIndex) continue;
      const path = join(root, folder, name);
      reads.set(path, readAheadOf(path));
    }
  }
  return reads;
}

/** Removes the index's snapshot files of the shards `owns` accepts (and the folder once empty). */
export function removeSnapshots(dbPath: string, indexUid: string, owns: (shard: number) => boolean): void {
  const folder = snapshotFolder(dbPath, indexUid);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const shard = Number.parseInt(name, 10);
    if (Number.isInteger(shard) && owns(shard)) rmSync(join(folder, name), { force: true });
  }
  try {
    rmdirSync(folder);
  } catch {
    // Another worker's files are still there: it removes the folder.
  }
}
