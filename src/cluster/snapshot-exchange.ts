// Snapshots between cluster nodes (main thread). The node that published a snapshotCreation task
// uploads its archive to the payload store once its own copy succeeded (every node takes one: the task
// is in the log); a node starting on an empty data folder downloads the latest archive and imports it
// (--import-snapshot's path), then follows the log from the sequence the archive's LMDB applied.
import { existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Storage } from '../storage/environment.js';
import { snapshotFileName } from '../storage/snapshot-archive.js';
import { STREAM, TaskLog } from './task-log.js';
import type { PayloadOwner } from './cluster-writes.js';

export const SNAPSHOT_OBJECT = 'latest-snapshot';
const UPLOAD_WAIT_MS = 10 * 60_000;
/** Metadata of the snapshot object: the log sequence of its snapshotCreation task. */
export const SNAPSHOT_SEQ = 'skein-log-seq';

/**
 * Log compaction: the messages below min(snapshot's sequence, every known node's applied sequence) + 1
 * go; a node then needs nothing purged, and a new one joins from the snapshot. Every node may run it
 * (a purge is idempotent; progress only grows, so a stale read purges less, never too much).
 */
export async function compactLog(taskLog: TaskLog, payloads: PayloadOwner): Promise<number | null> {
  const snapshot = await taskLog.objectInfo(SNAPSHOT_OBJECT);
  const snapshotSeq = Number(snapshot?.metadata?.[SNAPSHOT_SEQ]);
  if (!Number.isInteger(snapshotSeq) || snapshotSeq <= 0) return null;
  let keepFrom = snapshotSeq + 1;
  for (const applied of (await taskLog.nodesProgress()).values()) keepFrom = Math.min(keepFrom, applied + 1);
  const { firstSeq } = await taskLog.streamState();
  // Another node may have purged already: this node's payloads below the log's start go either way.
  await payloads.releasePayloadsBelow(Math.max(firstSeq, keepFrom));
  if (keepFrom <= firstSeq) return null;
  await taskLog.purgeBelow(keepFrom);
  return keepFrom;
}

/** After this node published snapshotCreation task `uid`: waits for it here, then uploads the archive (not awaited by the write). */
export async function uploadSnapshotWhenDone(taskLog: TaskLog, storage: Storage, snapshotDir: string, uid: number,
  log: (level: 'info' | 'warn' | 'error', message: string) => void): Promise<void> {
  const deadline = Date.now() + UPLOAD_WAIT_MS;
  while (Date.now() < deadline) {
    storage.root.resetReadTxn();
    const status = storage.tasks.get(uid)?.status;
    if (status === 'failed' || status === 'canceled' || status === undefined) return;
    if (status === 'succeeded') {
      const path = join(resolve(snapshotDir), snapshotFileName(storage.dbPath));
      const { size } = await stat(path);
      // The archive holds at least every task up to its own (sequence uid + 1): compaction may purge below the next one.
      await taskLog.putObjectFile(SNAPSHOT_OBJECT, path, { [SNAPSHOT_SEQ]: String(uid + 1) });
      log('info', `snapshot of task ${uid} uploaded for joining nodes (${size} bytes)`);
      return;
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  log('warn', `snapshot task ${uid} did not finish in time: not uploaded`);
}

/**
 * Before the data folder is opened: when it holds no database, the latest cluster snapshot (if any)
 * becomes the file to import. Returns its temporary path (removed by the caller after the import), or
 * null. Without a snapshot the node replays the log from sequence 1, which must then still be there.
 */
export async function fetchBootstrapSnapshot(options: { urls: string[]; nodeName: string; replicas: number; dbPath: string;
  log: (level: 'info' | 'warn' | 'error', message: string) => void }): Promise<string | null> {
  if (existsSync(join(options.dbPath, 'lmdb'))) return null;
  const taskLog = await TaskLog.open({ urls: options.urls, nodeName: options.nodeName, replicas: options.replicas, log: options.log });
  try {
    const path = join(tmpdir(), `skein-join-${process.pid}-${Date.now()}.snapshot`);
    if (!await taskLog.getObjectToFile(SNAPSHOT_OBJECT, path).catch(async (cause) => { await rm(path, { force: true }); throw cause; })) {
      await rm(path, { force: true });
      const { firstSeq } = await taskLog.streamStateRetried();
      if (firstSeq > 1) throw new Error(`the task log ${STREAM} starts at sequence ${firstSeq} and no cluster snapshot exists: this node cannot join`);
      return null;
    }
    options.log('info', `joining from the latest cluster snapshot (${(await stat(path)).size} bytes, streamed)`);
    return path;
  } finally {
    await taskLog.close();
  }
}

export async function removeBootstrapSnapshot(path: string | null): Promise<void> {
  if (path) await rm(path, { force: true });
}
