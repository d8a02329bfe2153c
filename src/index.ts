// Embedding API: startServer(options) starts the shard workers, the scheduler thread, the ingest
// pool and the HTTP front on the calling (main) thread, and returns a handle to stop them all.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import uws from './front/uws.js';
import { parseHttpAddr, resolveOptions, type SkeinOptions } from './config/options.js';
import { createAuthorizer, KeyCache } from './front/authorization.js';
import { createHttpApp } from './front/http-server.js';
import { IndexCatalog } from './front/index-catalog.js';
import { IngestClient } from './front/ingest-client.js';
import { listenExclusively } from './front/listen.js';
import { buildRouter } from './front/routes.js';
import { SchedulerClient } from './front/scheduler-client.js';
import { StoredDocumentCache } from './front/stored-document-cache.js';
import { QueryPort } from './front/query-port.js';
import { SearchDispatcher } from './front/search-dispatcher.js';
import type { AttachWorkerPorts, SchedulerWorkerData, ShardWorkerData } from './protocol/messages.js';
import { lockDataFolder, type DataFolderLock } from './storage/data-folder-lock.js';
import { closeStorage, openStorage, type Storage } from './storage/environment.js';

export type { SkeinOptions, ResolvedOptions, SkeinEnv } from './config/options.js';

export interface SkeinServer {
  /** "127.0.0.1:7700", with the real port when 0 was asked. */
  address: string;
  port: number;
  close(): Promise<void>;
}

const SHARD_WORKER = fileURLToPath(new URL('./shard/worker.js', import.meta.url));
const SCHEDULER_WORKER = fileURLToPath(new URL('./scheduler/worker.js', import.meta.url));
const INGEST_WORKER = fileURLToPath(new URL('./ingest/worker.js', import.meta.url));
const SCHEDULER_READY_TIMEOUT_MS = 30_000;
/** How long close() waits for the shard snapshots (a supervisor's SIGKILL usually follows SIGTERM after ~10 s). */
const SHUTDOWN_SNAPSHOT_TIMEOUT_MS = 7_000;

export async function startServer(input: SkeinOptions = {}): Promise<SkeinServer> {
  const options = resolveOptions(input);
  const { host, port: wantedPort } = parseHttpAddr(options.httpAddr);
  // Before anything opens the folder: a second process on it would run a second scheduler.
  const lock = lockDataFolder(options.dbPath);
  const storage = openStorageOrUnlock(options.dbPath, lock);
  const pools: Piscina[] = [];
  const queryPorts: QueryPort[] = [];
  let scheduler: Worker | null = null;
  let ingest: IngestClient | null = null;
  const stopAll = async () => {
    try {
      if (scheduler) await scheduler.terminate();
      for (const port of queryPorts) port.close();
      await Promise.allSettled(pools.map((pool) => pool.destroy()));
      if (ingest) await ingest.close();
      await closeStorage(storage);
    } finally {
      lock.release();
    }
  };
  try {
    // One single-thread pool per shard worker: that is what pins a shard to one thread.
    const schedulerPorts: MessagePort[] = [];
    // Attached together: each worker loads its shards before it answers, and they load in parallel.
    const attached: Promise<unknown>[] = [];
    for (let workerIndex = 0; workerIndex < options.workers; workerIndex++) {
      const workerData: ShardWorkerData = { dbPath: options.dbPath, workerIndex, workerCount: options.workers };
      // atomics 'disabled': with the default ('sync') an idle worker blocks in Atomics.wait and never
      // processes the messages arriving on its ports. Piscina runs one task per worker (the attach):
      // query batches travel on the worker's query port (front/query-port.ts says why).
      const pool = new Piscina({
        filename: SHARD_WORKER, minThreads: 1, maxThreads: 1, idleTimeout: Infinity, workerData, atomics: 'disabled', recordTiming: false,
      });
      pools.push(pool);
      const schedulerChannel = new MessageChannel();
      const queryChannel = new MessageChannel();
      const queryPort = new QueryPort(queryChannel.port1);
      queryPorts.push(queryPort);
      // The pool must not crash the process on a worker's error. A worker gone for any reason (an
      // error, an exit, the pool's destruction) fails what its query port still waits for, which no
      // one would answer (SearchDispatcher turns it into `internal` errors).
      pool.on('error', (error: Error) => process.emitWarning(`shard worker ${workerIndex} failed: ${error.message}`));
      pool.on('workerDestroy', () => queryPort.fail(new Error(`shard worker ${workerIndex} stopped`)));
      const attach: AttachWorkerPorts = { kind: 'attachWorkerPorts', schedulerPort: schedulerChannel.port2, queryPort: queryChannel.port2 };
      attached.push(pool.run(attach, { transferList: [schedulerChannel.port2, queryChannel.port2] }));
      schedulerPorts.push(schedulerChannel.port1);
    }
    await Promise.all(attached);
    const indexes = new IndexCatalog(storage);
    const schedulerData: SchedulerWorkerData = {
      dbPath: options.dbPath,
      workerCount: options.workers,
      shardPorts: schedulerPorts,
      shardsPerIndex: options.shardsPerIndex,
      failurePoints: options.failurePoints,
    };
    scheduler = new Worker(SCHEDULER_WORKER, { workerData: schedulerData, transferList: schedulerPorts });
    const storedDocuments = new StoredDocumentCache(storage.documents);
    const schedulerClient = new SchedulerClient(scheduler, (uids) => {
      indexes.invalidate(uids);
      storedDocuments.forget(uids);
    }, () => storage.root.resetReadTxn());
    await schedulerClient.ready(SCHEDULER_READY_TIMEOUT_MS);
    const keys = KeyCache.fromStorage(options.masterKey, storage);
    schedulerClient.onKeysChanged = () => keys.invalidate();
    ingest = IngestClient.create(INGEST_WORKER, Math.max(1, Math.min(2, options.workers)));
    const search = new SearchDispatcher(queryPorts.map((port) => port.run), options.maxQueuedSearches);
    const front = createHttpApp({
      router: buildRouter(),
      context: { options, storage, indexes, storedDocuments, scheduler: schedulerClient, search, ingest, keys },
      authorize: createAuthorizer(options.masterKey, keys),
      payloadLimit: options.httpPayloadSizeLimit,
    });
    const listenSocket = await listenExclusively(front.app, host, wantedPort);
    const port = uws.us_socket_local_port(listenSocket);
    let closing: Promise<void> | null = null;
    return {
      address: `${host}:${port}`,
      port,
      close() {
        closing ??= (async () => {
          uws.us_listen_socket_close(listenSocket);
          front.refuseNewRequests();
          search.abortAll();
          await schedulerClient.prepareShutdown(SHUTDOWN_SNAPSHOT_TIMEOUT_MS);
          // Kept-alive connections would otherwise still be served, on stopped threads and closed storage.
          front.closeConnections();
          await stopAll();
        })();
        return closing;
      },
    };
  } catch (cause) {
    await stopAll().catch(() => {});
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
