// Where shard snapshots live and how they reach the disk: <db-path>/snapshots/<indexUid>/<shard>.bin,
// each written whole to a temporary file, fsynced, then renamed over the old one (and the folder
// fsynced), so a reader sees the previous file or the new one, never a part.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
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

/** A reader of the file (checked: SnapshotFormatError when bad), or null when there is none. */
export function openSnapshotFile(path: string): SnapshotReader | null {
  try {
    return SnapshotReader.fromFile(path);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cause;
  }
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
