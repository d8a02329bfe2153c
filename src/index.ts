// Embedding API: startServer(options) starts the shard workers, the scheduler thread, the ingest
// pool and the HTTP front on the calling (main) thread, and returns a handle to stop them all.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { masterKeyNotice, parseHttpAddr, resolveOptions, type ResolvedOptions, type SkeinOptions } from './config/options.js';
import type { IngestClient } from './front/threads/ingest-client.js';
import { ServerLog } from './front/ops/server-log.js';
import { WorkerSupervisor } from './front/threads/worker-supervisor.js';
import { ThreadFailureArming, type ThreadFailure } from './protocol/thread-failure-points.js';
import { lockDataFolder, type DataFolderLock } from './storage/data-folder-lock.js';
import { closeStorage, openStorage, type Storage } from './storage/environment.js';
import { importSnapshotAtStart } from './storage/snapshot-archive.js';
import type { ClusterNode } from './cluster/cluster-node.js';
import type { StartHooks } from './cluster/rejoin.js';
import { CommitFence } from './protocol/commit-fence.js';
import { UploadGauge } from './protocol/upload-gauge.js';
import { writeWarmUpsEnabled } from './config/warm-ups.js';

export type { SkeinOptions, ResolvedOptions, SkeinEnv, TestHooksOptions } from './config/options.js';
export type { ThreadEvent } from './front/threads/worker-supervisor.js';
export type { ThreadFailure } from './protocol/thread-failure-points.js';

export interface SkeinServer {
  /** "127.0.0.1:7700", with the real port when 0 was asked. */
  address: string;
  port: number;
  /** `reason` goes in the shutdown line ("received SIGTERM"). */
  close(reason?: string): Promise<void>;
  /** Only when started with `testHooks` (tests; never reachable over HTTP). */
  testHooks?: ServerTestHooks;
}

export interface ServerTestHooks {
  /** The thread named by `failure` dies the next time it reaches the point (once). */
  armThreadFailure(failure: ThreadFailure): void;
  disarmThreadFailures(): void;
  /** Resolves once a thread waits at the pause armed at this point (`how: 'pause'`). */
  whenThreadPaused(failure: Pick<ThreadFailure, 'thread' | 'point'>): Promise<void>;
  /** The threads paused at this point go on. */
  releaseThreadPause(failure: Pick<ThreadFailure, 'thread' | 'point'>): void;
  /** Terminates a shard worker's thread now (an exit without error event). */
  terminateShardWorker(worker: number): Promise<void>;
  /** Dead threads are not replaced until the returned function is called. */
  holdReplacements(): () => void;
  /** Whether the front counts a documents upload to the index as under way (protocol/upload-gauge.ts). */
  uploadsUnderWay(indexUid: string): boolean;
}

const SHARD_WORKER = fileURLToPath(new URL('./shard/worker-entry.js', import.meta.url));
const SCHEDULER_WORKER = fileURLToPath(new URL('./scheduler/worker.js', import.meta.url));
const INGEST_WORKER = fileURLToPath(new URL('./ingest/worker.js', import.meta.url));
const SCHEDULER_READY_TIMEOUT_MS = 30_000;
/** How long close() waits for the shard snapshots (a supervisor's SIGKILL usually follows SIGTERM after ~10 s). */
const SHUTDOWN_SNAPSHOT_TIMEOUT_MS = 7_000;

export async function startServer(input: SkeinOptions = {}): Promise<SkeinServer> {
  // Cluster mode: a gap in the task log restarts the node from the latest cluster snapshot (src/cluster/rejoin.ts).
  // Cluster and dump-import modules (NATS clients, roaring through the dump format...) are imported only
  // when used: the main thread's module loading comes before the shard workers start, on the way to a restart's first answer.
  if (resolveOptions(input).clusterNatsUrls.length > 0) return (await import('./cluster/rejoin.js')).serveRestoringOnGap(input, startServerOnce);
  return startServerOnce(input, null);
}

async function startServerOnce(input: SkeinOptions, hooks: StartHooks | null): Promise<SkeinServer> {
  const options = resolveOptions(input);
  const { host, port: wantedPort } = parseHttpAddr(options.httpAddr);
  // The server's one logger: the front's lines and, over their log ports, the threads' (front/ops/server-log.ts).
  const log = new ServerLog({ level: options.logLevel, mode: options.logsMode, destination: input.logDestination ?? 2 });
  const serverLog = log.for('meilisearch');
  // Before anything opens the folder: a second process on it would run a second scheduler.
  const lock = lockDataFolder(options.dbPath);
  // Cluster mode, empty data folder: the latest cluster snapshot is imported first (src/cluster/snapshot-exchange.ts).
  const exchange = options.clusterNatsUrls.length > 0 ? await import('./cluster/snapshot-exchange.js') : null;
  const clusterNodeName = exchange ? (await import('./cluster/cluster-node.js')).clusterNodeName : null;
  const joinSnapshot = exchange && clusterNodeName && options.importSnapshot === null
    ? await exchange.fetchBootstrapSnapshot({
      urls: options.clusterNatsUrls, nodeName: clusterNodeName(options.clusterNodeName, options.httpAddr), replicas: options.clusterReplicas,
      dbPath: options.dbPath, log: (level, message) => serverLog[level]({ cluster: true }, message),
    }).catch((cause) => { lock.release(); throw cause; })
    : null;
  await importSnapshotOrUnlock(joinSnapshot ? { ...options, importSnapshot: joinSnapshot } : options, lock);
  await exchange?.removeBootstrapSnapshot(joinSnapshot);
  // --import-dump: before any thread exists (src/dump/import.ts); a refusal or a failed import ends the start.
  if (options.importDump !== null) {
    const { importDumpAtStart } = await import('./dump/import.js');
    await importDumpAtStart({ ...options, log: (message) => console.error(`[dump] ${message}`) }).catch((cause) => {
      lock.release();
      throw cause;
    });
  }
  const storage = openStorageOrUnlock(options.dbPath, lock);
  const failures = input.testHooks ? new ThreadFailureArming() : null;
  const commitFence = new CommitFence();
  const uploads = new UploadGauge();
  const threads = new WorkerSupervisor({
    shardWorkerFile: SHARD_WORKER,
    schedulerFile: SCHEDULER_WORKER,
    dbPath: options.dbPath,
    workers: options.workers,
    scheduler: {
      dbPath: options.dbPath, workerCount: options.workers, shardsPerIndex: options.shardsPerIndex, failurePoints: options.failurePoints,
      taskQueueLimits: { maxNumberOfTasks: options.maxNumberOfTasks, maxTaskDbSize: options.maxTaskDbSize },
      dumpDir: options.dumpDir,
      snapshots: { dir: resolve(options.snapshotDir), scheduleSeconds: options.scheduleSnapshot },
      ...(options.clusterNatsUrls.length > 0 ? { clustered: true } : {}),
      allowedIpNetworks: options.experimentalAllowedIpNetworks,
      commitFence: commitFence.buffer,
      uploads: uploads.buffer,
    },
    schedulerReadyTimeoutMs: SCHEDULER_READY_TIMEOUT_MS,
    failures,
    log,
    ...(input.testHooks?.shardWorkerResourceLimits ? { shardWorkerResourceLimits: input.testHooks.shardWorkerResourceLimits } : {}),
    ...(input.testHooks?.onThreadEvent ? { onThreadEvent: input.testHooks.onThreadEvent } : {}),
  });
  let ingest: IngestClient | null = null;
  let cluster: ClusterNode | null = null;
  const stopAll = async () => {
    try {
      await cluster?.close();
      await threads.beginClose();
      await threads.stopThreads();
      if (ingest) await ingest.close();
      await closeStorage(storage);
    } finally {
      lock.release();
      serverLog.info('stopped');
      await log.close();
    }
  };
  try {
    // Each shard worker is a one-thread Piscina pool (that is what pins a shard to one thread); they
    // load their shards in parallel while the scheduler thread starts (front/threads/worker-supervisor.ts).
    const shardWorkers = threads.startShardWorkers();
    // The rest of the front's modules, loaded while the workers restore their shards (front/front-modules.ts).
    const {
      uws, createAuthorizer, KeyCache, createHttpApp, IndexCatalog, IngestClient, listenExclusively, warmUpFront, warmUpIngest, ServerMetrics,
      buildRouter, SchedulerClient, StoredDocumentCache, SearchDispatcher, SplitChoiceCache, NetworkConfig, NetworkNode, IpPolicy, RemoteClient,
    } = await import('./front/front-modules.js');
    const indexes = new IndexCatalog(storage, commitFence);
    const storedDocuments = new StoredDocumentCache(storage.documents, commitFence);
    const splitChoices = new SplitChoiceCache(commitFence);
    const schedulerClient = new SchedulerClient(threads.createSchedulerThread(shardWorkers.schedulerPorts), (uids) => {
      indexes.invalidate(uids);
      storedDocuments.forget(uids);
      splitChoices.forget();
      commitFence.handled();
    }, () => storage.root.resetReadTxn());
    threads.adoptScheduler(schedulerClient);
    await shardWorkers.loaded;
    await schedulerClient.ready(SCHEDULER_READY_TIMEOUT_MS);
    const networkConfig = new NetworkConfig(options.dbPath);
    // Cluster mode (src/cluster): writes go through the JetStream task log, which feeds this scheduler.
    if (options.clusterNatsUrls.length > 0) {
      const clusterLog = log.for('meilisearch');
      const { startClusterNode } = await import('./cluster/cluster-node.js');
      cluster = await startClusterNode({
        urls: options.clusterNatsUrls, nodeName: options.clusterNodeName, replicas: options.clusterReplicas, httpAddr: options.httpAddr,
        snapshotDir: options.snapshotDir,
        storage, scheduler: schedulerClient, log: (level, message) => clusterLog[level]({ cluster: true }, message), network: networkConfig,
        ...(hooks ? { onGap: (reason: string) => hooks.onClusterGap(reason, (message) => clusterLog.warn({ cluster: true }, message)) } : {}),
      });
    }
    const keys = KeyCache.fromStorage(options.masterKey, storage);
    schedulerClient.onKeysChanged = () => keys.invalidate();
    ingest = IngestClient.create(INGEST_WORKER, Math.max(1, Math.min(2, options.workers)));
    const search = new SearchDispatcher(threads.runners(), options.maxQueuedSearches, splitChoices);
    const metrics = new ServerMetrics({ storage, indexes, search, storedDocuments, restartCounts: threads.restartCounts });
    const front = createHttpApp({
      router: buildRouter(),
      context: {
        options, storage, indexes, storedDocuments, scheduler: schedulerClient, search, ingest, keys, metrics, log,
        ...(cluster ? { cluster } : {}),
        network: new NetworkNode(networkConfig, search, storage.meta,
          new RemoteClient(IpPolicy.fromList(options.experimentalAllowedIpNetworks), options.remoteTimeoutMs)),
        // Cluster mode: also unavailable while the node catches up with the task log (src/cluster/log-follower.ts).
        threads: cluster ? { get available() { return threads.available && (cluster?.available ?? true); } } : threads,
      },
      authorize: createAuthorizer(options.masterKey, keys),
      payloadLimit: options.httpPayloadSizeLimit,
      requests: metrics.requests,
      uploads,
      log,
    });
    await hooks?.beforeListen();
    const listenSocket = await listenExclusively(front.app, host, wantedPort);
    const port = uws.us_socket_local_port(listenSocket);
    // Off the request path and bounded (front/threads/warm-up.ts): every worker answers a few batches once.
    void warmUpFront(search, Math.max(options.workers, options.shardsPerIndex));
    if (writeWarmUpsEnabled()) void warmUpIngest(ingest, options.httpPayloadSizeLimit);
    const notice = masterKeyNotice(options);
    if (notice) serverLog.warn(notice);
    serverLog.info({ dbPath: options.dbPath, env: options.env, workers: options.workers, shardsPerIndex: options.shardsPerIndex },
      `Skein is listening on http://${host.includes(':') ? `[${host}]` : host}:${port}`);
    let closing: Promise<void> | null = null;
    return {
      address: `${host}:${port}`,
      port,
      close(reason?: string) {
        closing ??= (async () => {
          serverLog.info(reason ? { reason } : {}, 'shutting down');
          uws.us_listen_socket_close(listenSocket);
          front.refuseNewRequests();
          search.abortAll();
          await cluster?.close();
          cluster = null;
          await threads.beginClose();
          await threads.stopScheduler(SHUTDOWN_SNAPSHOT_TIMEOUT_MS);
          // Kept-alive connections would otherwise still be served, on stopped threads and closed storage.
          front.closeConnections();
          await stopAll();
        })();
        return closing;
      },
      ...(failures ? {
        testHooks: {
          armThreadFailure: (failure: ThreadFailure) => failures.arm(failure),
          disarmThreadFailures: () => failures.clear(),
          whenThreadPaused: (failure: Pick<ThreadFailure, 'thread' | 'point'>) => failures.whenPaused(failure),
          releaseThreadPause: (failure: Pick<ThreadFailure, 'thread' | 'point'>) => failures.release(failure),
          terminateShardWorker: (worker: number) => threads.terminateShardWorker(worker),
          holdReplacements: () => threads.holdReplacements(),
          uploadsUnderWay: (indexUid) => uploads.underWay(indexUid),
        },
      } : {}),
    };
  } catch (cause) {
    serverLog.error({ err: cause }, 'could not start');
    await stopAll().catch(() => {});
    throw cause;
  }
}

/** --import-snapshot, before LMDB is opened (src/storage/snapshot-archive.ts). */
async function importSnapshotOrUnlock(options: ResolvedOptions, lock: DataFolderLock): Promise<void> {
  try {
    await importSnapshotAtStart(options);
  } catch (cause) {
    lock.release();
    throw cause;
  }
}

function openStorageOrUnlock(dbPath: string, lock: DataFolderLock): Storage {
  try {
    return openStorage(dbPath);
  } catch (cause) {
    lock.release();
    throw cause;
  }
}
