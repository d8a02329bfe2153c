// User-facing snapshots (POST /snapshots, --schedule-snapshot, --import-snapshot): the archive's name
// and layout, and the import at start. Not the shards' own restart files (<db-path>/snapshots/, see
// src/shard/snapshot/snapshot-files.ts), which an archive carries along so a server started from it restores
// its shards instead of rebuilding them.
//
// `<snapshot-dir>/<db-name>.snapshot` (Meilisearch's name: the data folder's name + `.snapshot`) is a
// tar.gz of a data folder:
//   lmdb/data.mdb                      LMDB's compacting copy (one read transaction: consistent)
//   update-files/<name>                the payloads of the tasks still enqueued
//   snapshots/<index>/<shard>.bin      the shards' restart files
// The creating side is src/scheduler/operations/snapshot-task.ts.
import { existsSync, fsyncSync, closeSync, openSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { LOCK_FILE_NAME } from './data-folder-lock.js';

export const ARCHIVE_LMDB_FILE = 'lmdb/data.mdb';
export const ARCHIVE_UPDATE_FILES = 'update-files';
export const ARCHIVE_SHARD_SNAPSHOTS = 'snapshots';
/** What a data folder holds once a snapshot is imported (the archive's top-level entries). */
const IMPORTED_ENTRIES = [ARCHIVE_UPDATE_FILES, ARCHIVE_SHARD_SNAPSHOTS, 'lmdb'];

/** `data.skein` for `./data.skein`; Meilisearch's fallback name when the path has none. */
export function snapshotFileName(dbPath: string): string {
  return `${basename(resolve(dbPath)) || 'data.skein'}.snapshot`;
}

/** The archive written under this name first (fsynced, then renamed): never taken for a snapshot. */
export function temporaryArchiveName(fileName: string): string {
  return `.${fileName}.tmp`;
}

/** The flat copy the archive is made from. */
export function stagingFolderName(fileName: string): string {
  return `.${fileName}.staging`;
}

/** A snapshot's extraction in progress, inside the (locked) data folder. */
const IMPORT_STAGING = '.import-snapshot.staging';
/** Present while an extracted snapshot is moved into place: a start that finds it undoes the import. */
const IMPORT_PENDING = '.import-snapshot.pending';

export interface SnapshotImportOptions {
  dbPath: string;
  importSnapshot: string | null;
  ignoreSnapshotIfDbExists: boolean;
  ignoreMissingSnapshot: boolean;
}

/**
 * Run at start with the data folder locked, before LMDB is opened. Undoes an import a crash cut short,
 * then imports `importSnapshot` as Meilisearch does (meilisearch/src/lib.rs): into an empty data folder
 * only; `database already exists` unless --ignore-snapshot-if-db-exists; `snapshot doesn't exist` unless
 * --ignore-missing-snapshot. Throws a plain Error (a startup failure). Returns whether it imported.
 */
export async function importSnapshotAtStart(options: SnapshotImportOptions): Promise<boolean> {
  const { dbPath } = options;
  undoInterruptedImport(dbPath);
  const path = options.importSnapshot;
  if (path === null) return false;
  const emptyDb = isEmptyDataFolder(dbPath);
  const exists = existsSync(path);
  if (emptyDb && exists) {
    await importInto(dbPath, path);
    return true;
  }
  if (!emptyDb && !options.ignoreSnapshotIfDbExists) {
    throw new Error(`database already exists at ${JSON.stringify(canonical(dbPath))}, try to delete it or rename it`);
  }
  if (!exists && !options.ignoreMissingSnapshot) throw new Error(`snapshot doesn't exist at ${path}`);
  return false;
}

/** Meilisearch's rule (a non-empty folder is a database) but for the lock file this process just took. */
function isEmptyDataFolder(dbPath: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dbPath);
  } catch {
    return true;
  }
  return names.every((name) => name === LOCK_FILE_NAME || name.startsWith(`${LOCK_FILE_NAME}.`) || name === IMPORT_STAGING);
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Extracts into a staging folder inside the data folder, checks it, then moves its entries into place
 * under a pending marker (removed last): a failure or a crash at any point leaves the folder empty,
 * never half a database.
 */
async function importInto(dbPath: string, archive: string): Promise<void> {
  const staging = join(dbPath, IMPORT_STAGING);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    // tar is loaded here only (its ~70 ms of module loading stays off every start's way to the shard workers).
    const tar = await import('tar');
    await tar.x({
      file: archive,
      cwd: staging,
      strict: true,
      // Plain files and folders only: no links that could point out of the data folder.
      filter: (_path, entry) => 'type' in entry && (entry.type === 'File' || entry.type === 'Directory'),
    });
    const lmdbFile = join(staging, ARCHIVE_LMDB_FILE);
    if (!existsSync(lmdbFile) || !statSync(lmdbFile).isFile()) {
      throw new Error(`${archive} is not a Skein snapshot: it holds no ${ARCHIVE_LMDB_FILE}`);
    }
    fsyncTree(staging);
    writeFileSync(join(dbPath, IMPORT_PENDING), '');
    syncFolder(dbPath);
    for (const entry of IMPORTED_ENTRIES) {
      const from = join(staging, entry);
      if (existsSync(from)) renameSync(from, join(dbPath, entry));
    }
    syncFolder(dbPath);
    rmSync(join(dbPath, IMPORT_PENDING));
    syncFolder(dbPath);
  } catch (cause) {
    undoInterruptedImport(dbPath);
    throw new Error(`importing the snapshot ${archive} failed: ${(cause as Error).message}`, { cause });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A pending marker means entries were being moved in: they are removed (the folder was empty before). */
function undoInterruptedImport(dbPath: string): void {
  rmSync(join(dbPath, IMPORT_STAGING), { recursive: true, force: true });
  if (!existsSync(join(dbPath, IMPORT_PENDING))) return;
  for (const entry of IMPORTED_ENTRIES) rmSync(join(dbPath, entry), { recursive: true, force: true });
  rmSync(join(dbPath, IMPORT_PENDING), { force: true });
}

function fsyncTree(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) fsyncTree(path);
    else if (entry.isFile()) syncPath(path, 'r');
  }
  syncFolder(folder);
}

export function syncFolder(folder: string): void {
  syncPath(folder, 'r');
}

function syncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
