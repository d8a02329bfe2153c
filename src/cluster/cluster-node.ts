// Cluster mode's composition (main thread, src/index.ts calls it when --cluster-nats-urls is given):
// the task log connection, the follower that feeds this node's scheduler from it, and the write path
// that publishes to it. Without the option nothing here runs and Skein is the single node it was.
import { hostname } from 'node:os';
import type { SchedulerClient } from '../front/threads/scheduler-client.js';
import type { Storage } from '../storage/environment.js';
import { appliedLogSeq } from '../scheduler/task-enqueue.js';
import { ClusterWrites } from './cluster-writes.js';
import { ConfigLog } from './config-log.js';
import { FinishedBarrier } from './finished-barrier.js';
import { PayloadLedger } from './payload-ledger.js';
import { LogFollower } from './log-follower.js';
import { TaskLog } from './task-log.js';
import { compactLog, uploadSnapshotWhenDone } from './snapshot-exchange.js';
import type { NetworkConfig } from '../network/network-config.js';
import { withShardGroupNames } from '../network/network-node.js';

/** How often a node tries to compact the log (cheap when there is nothing to purge). */
const COMPACT_EVERY_MS = 2000;

export interface ClusterNodeOptions {
  urls: string[];
  nodeName: string | null;
  replicas: number;
  httpAddr: string;
  /** --snapshot-dir: where this node's snapshotCreation archives are (uploaded for joining nodes). */
  snapshotDir: string;
  storage: Storage;
  scheduler: SchedulerClient;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** /network's shard groups: document additions are split over them (src/network). */
  network?: NetworkConfig;
  /** A gap in the task log this node cannot fill by following it (rejoin.ts restores the latest snapshot). */
  onGap?: (reason: string) => void;
}

export interface ClusterNode {
  readonly nodeName: string;
  readonly follower: LogFollower;
  /** GET /health: false while catching up with the log or after a gap (log-follower.ts). */
  readonly available: boolean;
  /** DELETE /cluster/nodes/{name}: compaction forgets that node (false: it never reported). */
  forgetNode(name: string): Promise<boolean>;
  close(): Promise<void>;
}

export function clusterNodeName(nodeName: string | null, httpAddr: string): string {
  return nodeName ?? `${hostname()}:${httpAddr.split(':').pop()}`;
}

export async function startClusterNode(options: ClusterNodeOptions): Promise<ClusterNode> {
  const nodeName = clusterNodeName(options.nodeName, options.httpAddr);
  const taskLog = await TaskLog.open({ urls: options.urls, nodeName, replicas: options.replicas, log: options.log });
  const appliedSeq = appliedLogSeq(options.storage);
  const nextTaskUid = [...options.storage.tasks.getKeys({ reverse: true, limit: 1 })][0];
  if (appliedSeq === 0 && typeof nextTaskUid === 'number') {
    await taskLog.close();
    throw new Error('this data folder holds tasks of a single node: a cluster node starts from an empty folder (or a cluster snapshot)');
  }
  let stopping = false;
  const barrier = new FinishedBarrier(options.storage, () => stopping);
  const follower = new LogFollower({ taskLog, scheduler: options.scheduler, updateFilesDir: options.storage.updateFilesDir, appliedSeq, log: options.log, barrier,
    network: options.network, ...(options.onGap ? { onGap: options.onGap } : {}) });
  follower.start();
  const payloads = new PayloadLedger(options.storage.dbPath);
  const writes = new ClusterWrites(taskLog, follower, options.storage.updateFilesDir, nodeName, (uid) => {
    void uploadSnapshotWhenDone(taskLog, options.storage, options.snapshotDir, uid, options.log)
      .catch((cause) => options.log('warn', `snapshot upload failed: ${(cause as Error).message}`));
  }, payloads);
  const config = new ConfigLog(taskLog, options.scheduler, options.storage, options.replicas, nodeName, options.log);
  try {
    await config.start();
    if (payloads.size > 0) await payloads.boundUnacknowledged((await taskLog.streamStateRetried()).lastSeq);
  } catch (cause) {
    stopping = true;
    await config.stop();
    await follower.stop();
    await taskLog.close();
    throw cause;
  }
  // After the payload list's bounds: a write in flight must not be bounded by them.
  options.scheduler.enqueueThrough = (content) => writes.enqueue(options.network ? withShardGroupNames(options.network, content) : content);
  options.scheduler.configThrough = config;
  options.log('info', `cluster node ${nodeName}: task log applied up to sequence ${appliedSeq}`);
  let compacting = false;
  const compactor = setInterval(() => {
    if (compacting) return;
    compacting = true;
    void compactLog(taskLog, writes).then((keepFrom) => {
      if (keepFrom !== null) options.log('info', `task log compacted: sequences below ${keepFrom} purged`);
    }, () => {}).finally(() => { compacting = false; });
  }, COMPACT_EVERY_MS);
  compactor.unref();
  return {
    nodeName,
    follower,
    get available() {
      return follower.available && config.available;
    },
    forgetNode: (name) => taskLog.forgetNode(name),
    async close() {
      clearInterval(compactor);
      stopping = true;
      options.scheduler.enqueueThrough = null;
      options.scheduler.configThrough = null;
      await config.stop();
      await follower.stop();
      await taskLog.close();
    },
  };
}
