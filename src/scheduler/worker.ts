// Entry of the scheduler thread (a plain worker_thread), the only writer of LMDB.
//
// Ready signal: once startup recovery is done (interrupted batches re-enqueued, uid counters restored,
// leftover update files deleted), the thread posts ONE `indexesChanged` message carrying the uids of
// ALL indexes. The front awaits that first indexesChanged before serving. (The shard workers load the
// stored indexes themselves when they start, while this thread starts: commands sent meanwhile wait in their ports.) Every later indexesChanged follows a finished
// batch and carries the uids of the indexes it touched (an empty list for task-only batches).
//
// Messages: parentPort receives `enqueueTask` ArrayBuffers and answers each with `taskEnqueued`
// (same requestId) once the task is durably persisted, and `keyCommand` buffers (/keys writes) with
// `keyCommandResult` once committed, and `updateFeatures` (PATCH /experimental-features) with `featuresUpdated`. The default keys are seeded before recovery. Enqueue requests are accepted even before the
// ready signal (recovery is synchronous and runs first); batches start after it.
//
// A shard worker that dies closes its port (shard-link.ts): batches are held until the front brings
// its replacement (replaceShardPort, then shardWorkerReady; protocol/messages.ts says the order). A
// dead scheduler thread is replaced by the front as a whole: the new thread recovers as at start.
import { parentPort, workerData } from 'node:worker_threads';
import { asSkeinError } from '../errors/index.js';
import { isShardWorkerLifecycleMessage, type SchedulerMessage, type SchedulerWorkerData, type ShardWorkerLifecycleMessage } from '../protocol/messages.js';
import { ThreadFailurePoints, type SchedulerThreadFailurePoint } from '../protocol/thread-failure-points.js';
import { errorField, ThreadLog } from '../protocol/thread-log.js';
import { decodeSchedulerMessage, encodeSchedulerMessage } from '../protocol/scheduler-codec.js';
import { openStorage } from '../storage/environment.js';
import { mergeFeatures, readFeatures } from '../storage/experimental-features.js';
import { EXPERIMENTAL_FEATURES } from '../storage/meta-keys.js';
import type { TaskRecord } from '../tasks/task-record.js';
import { summarizedTask } from '../tasks/task-view.js';
import { failurePointHandler, type FailurePoint } from './failure-points.js';
import { applyKeyCommand, seedDefaultKeys } from './config/key-store.js';
import { applyConfigEntry } from './config/config-entry.js';
import { ShardLink } from './shards/shard-link.js';
import { Scheduler } from './state-machine.js';
import { CommitFence } from '../protocol/commit-fence.js';
import { UploadGauge } from '../protocol/upload-gauge.js';
import { MOVE_REMOTE_TIMEOUT_MS } from './operations/network-move.js';
import { IpPolicy } from '../network/ip-policy.js';
import { RemoteClient } from '../network/remote-post.js';
import { saveSnapshots, SnapshotTrigger } from './shards/snapshot-commands.js';
import { SnapshotCreator } from './operations/snapshot-task.js';

if (!parentPort) throw new Error('src/scheduler/worker.ts must run as a worker thread');
const port = parentPort;
const data = workerData as SchedulerWorkerData;

function post(message: SchedulerMessage): void {
  const buffer = encodeSchedulerMessage(message);
  port.postMessage(buffer, [buffer]);
}

/** Lines go to the front's logger over the log port (protocol/thread-log.ts). */
const threadLog = new ThreadLog('scheduler', data.logThresholds);
threadLog.attach(data.logPort ?? null);
const storage = openStorage(data.dbPath);
const processFailurePoint = failurePointHandler(data.failurePoints ?? []);
/** Test hooks: the same named points end only this thread when a test armed them (thread-failure-points.ts). */
const threadFailurePoints = new ThreadFailurePoints<SchedulerThreadFailurePoint>('scheduler', data.threadFailures);
const failurePoint = (point: FailurePoint) => {
  processFailurePoint(point);
  threadFailurePoints.reach(point);
};
const shardLink = new ShardLink(data.shardPorts);
shardLink.onWorkerStopped = (worker) => {
  threadLog.write('index_scheduler', 'info', 'shard worker stopped: batches wait for its replacement', { worker });
  scheduler.hold(shardHold(worker));
};
const log = threadLog.textAt('index_scheduler', 'warn');
/** POST /snapshots and --schedule-snapshot archives (src/scheduler/operations/snapshot-task.ts). */
const snapshotCreator = data.snapshots ? new SnapshotCreator({ storage, shards: shardLink, snapshotDir: data.snapshots.dir, failurePoint, log, clustered: data.clustered === true }) : null;
// Read-your-writes for the front's caches; a thread replacing one that died inside a commit settles it.
const commitFence = data.commitFence ? new CommitFence(data.commitFence) : null;
commitFence?.settle();
const scheduler: Scheduler = new Scheduler({
  storage,
  log,
  onTasksFinished: logFinishedTasks,
  shards: shardLink,
  shardsPerIndex: data.shardsPerIndex,
  ...(data.taskQueueLimits ? { taskQueueLimits: data.taskQueueLimits } : {}),
  failurePoint,
  ...(snapshotCreator ? { snapshots: snapshotCreator } : {}),
  ...(data.dumpDir ? { dumpDir: data.dumpDir } : {}),
  ...(data.clustered ? { clustered: true } : {}),
  // A topology change's pages and phases: the same address policy and bounds as the front's remote requests.
  remotes: new RemoteClient(IpPolicy.fromList(data.allowedIpNetworks ?? []), MOVE_REMOTE_TIMEOUT_MS),
  ...(commitFence ? { commitFence } : {}),
  ...(data.uploads ? { uploads: new UploadGauge(data.uploads) } : {}),
  onIndexesChanged: (indexUids) => {
    post({ kind: 'indexesChanged', indexUids });
    commitFence?.posted();
    snapshotTrigger.poke();
  },
});
// Shard snapshots once indexing has been quiet for a while (src/scheduler/shards/snapshot-commands.ts).
const snapshotTrigger = new SnapshotTrigger(() => scheduler.state === 'idle' && scheduler.enqueuedUids.length === 0,
  () => saveSnapshots(shardLink, log, true));

/** One line per task that reached a final status (target index_scheduler::tasks). */
function logFinishedTasks(tasks: readonly TaskRecord[]): void {
  if (!threadLog.enabled('index_scheduler::tasks', 'info')) return;
  for (const task of tasks) {
    const durationMs = task.startedAt && task.finishedAt ? Date.parse(task.finishedAt) - Date.parse(task.startedAt) : null;
    threadLog.write('index_scheduler::tasks', 'info', 'task finished', {
      taskUid: task.uid, batchUid: task.batchUid, type: task.type, indexUid: task.indexUid, status: task.status, durationMs,
      ...(task.error ? { errorCode: task.error.code } : {}),
    });
  }
}

function shardHold(worker: number): string {
  return `shard worker ${worker}`;
}

/** The front replaces a dead shard worker (protocol/messages.ts: ShardWorkerLifecycleMessage). */
function onShardWorkerLifecycle(message: ShardWorkerLifecycleMessage): void {
  if (message.kind === 'replaceShardPort') {
    shardLink.stopped(message.worker);
    // The batch in process ends first (failed, its surviving shards rolled back): the new thread then
    // loads LMDB while nothing commits, as at start.
    void scheduler.whenIdle().then(() => {
      shardLink.replace(message.worker, message.port);
      port.postMessage({ kind: 'shardPortReplaced', worker: message.worker } satisfies ShardWorkerLifecycleMessage);
    });
  } else if (message.kind === 'shardWorkerReady') {
    scheduler.release(shardHold(message.worker));
    snapshotTrigger.poke(); // shards the new thread rebuilt get their snapshots once things are quiet
  }
}

// Cluster mode: the default keys come through the config log instead (the same records on every node).
if (data.clustered !== true) seedDefaultKeys(storage);
const ready = scheduler.start();
// --schedule-snapshot: a snapshotCreation task every period, shown in /tasks like one from POST /snapshots
// (Meilisearch registers it as a task the same way, the first one a period after the start).
// Not in cluster mode: a task of the scheduler's own would take a uid the task log gives to another (src/cluster).
const scheduleSeconds = data.clustered ? null : data.snapshots?.scheduleSeconds ?? null;
if (scheduleSeconds !== null) {
  setInterval(() => {
    try {
      scheduler.enqueue({ type: 'snapshotCreation' });
    } catch (cause) {
      log(`scheduling a snapshot failed: ${(cause as Error).message}`);
    }
  }, scheduleSeconds * 1000).unref();
}

port.on('message', (buffer: ArrayBuffer | Uint8Array | ShardWorkerLifecycleMessage) => {
  if (isShardWorkerLifecycleMessage(buffer)) {
    onShardWorkerLifecycle(buffer);
    return;
  }
  let message: SchedulerMessage;
  try {
    message = decodeSchedulerMessage(buffer);
  } catch {
    return; // not a scheduler message; nobody waits for an answer
  }
  if (message.kind === 'keyCommand') {
    try {
      const { command } = message;
      const record = message.logSeq ? applyConfigEntry(storage, message.logSeq, () => applyKeyCommand(storage, command)) : applyKeyCommand(storage, command);
      post({ kind: 'keyCommandResult', requestId: message.requestId, error: null, record });
    } catch (cause) {
      post({ kind: 'keyCommandResult', requestId: message.requestId, error: asSkeinError(cause).toBody(), record: null });
    }
    return;
  }
  if (message.kind === 'updateFeatures') {
    // PATCH /experimental-features: merged with the stored flags and committed (synced) before the answer.
    try {
      const merge = () => storage.root.transactionSync(() => {
        const merged = mergeFeatures(readFeatures(storage.meta), message.patch);
        storage.meta.put(EXPERIMENTAL_FEATURES, JSON.stringify(merged));
        return merged;
      });
      const features = message.logSeq ? applyConfigEntry(storage, message.logSeq, merge) ?? readFeatures(storage.meta) : merge();
      post({ kind: 'featuresUpdated', requestId: message.requestId, error: null, features });
    } catch (cause) {
      post({ kind: 'featuresUpdated', requestId: message.requestId, error: asSkeinError(cause).toBody(), features: null });
    }
    return;
  }
  if (message.kind === 'prepareShutdown') {
    // No new batch; the shards save what is committed (an index whose batch is in flight is skipped by its worker).
    scheduler.pause();
    snapshotTrigger.stop();
    // A snapshotCreation in process stops after its current step first (snapshot-task.ts).
    // Then the thread ends itself, here, between two turns: never inside a write transaction (they are
    // synchronous). A terminate() from the front could land inside one (a batch in flight commits
    // meanwhile), and lmdb-js's cleanup of the thread then waits forever on the write lock the thread
    // itself holds: close() hung (PrepareSearch made it likely: the shutdown's save acks it, so the batch commits now).
    void (snapshotCreator?.stop() ?? Promise.resolve())
      .then(() => saveSnapshots(shardLink, log, false))
      .then(() => {
        post({ kind: 'shutdownPrepared', requestId: message.requestId });
        process.exit(0);
      });
    return;
  }
  if (message.kind !== 'enqueueTask') return;
  try {
    const record = message.log ? scheduler.enqueueFromLog(message.content, message.log.seq, message.log.enqueuedAt) : scheduler.enqueue(message.content);
    failurePoint('afterEnqueuePersisted');
    post({ kind: 'taskEnqueued', requestId: message.requestId, error: null, summary: record ? summarizedTask(record) : null });
  } catch (cause) {
    post({ kind: 'taskEnqueued', requestId: message.requestId, error: asSkeinError(cause).toBody(), summary: null });
  }
});

ready.then(
  (indexUids) => {
    post({ kind: 'indexesChanged', indexUids });
    commitFence?.posted();
    scheduler.wake();
    snapshotTrigger.poke(); // shards rebuilt at start get their snapshots once things are quiet
  },
  (cause) => threadLog.write('index_scheduler', 'error', 'startup failed', { err: errorField(cause) }),
);
