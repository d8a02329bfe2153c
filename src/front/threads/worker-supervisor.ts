// The lifecycle of the shard worker threads and of the scheduler thread: creation, attach, death,
// replacement. The one owner of the Piscina pools, the query ports and the scheduler's Worker.
//
// A shard worker that dies (an error event, an exit, heap exhaustion) fails the searches it was sent
// at once (its query port); its pool is destroyed and, after a backoff, a new pool's thread is attached
// again: the scheduler first holds its batches (its batch in process fails, surviving shards rolled
// back) and takes the port to the new thread, which then loads its shards as at start (snapshots when
// valid, else LMDB) while nothing commits; then batches run again (messages.ts:
// ShardWorkerLifecycleMessage). Searches to that worker answer `internal` until it is back.
//
// A scheduler thread that dies fails the front's requests it did not answer (scheduler-client.ts).
// After a backoff every shard worker is attached to a new scheduler port and reloads the committed
// state (the dead thread may have left uncommitted writes in the shards), then a new scheduler thread
// recovers from LMDB as at start (`processing` tasks back to `enqueued`).
//
// Replacements run one at a time. /health answers `unavailable` while any thread is missing.
import { MessageChannel, Worker, type MessagePort, type ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import type { AttachWorkerPorts, SchedulerWorkerData, ShardWorkerData, ShardWorkerLifecycleMessage } from '../../protocol/messages.js';
import { ThreadFailureArming } from '../../protocol/thread-failure-points.js';
import { errorField } from '../../protocol/thread-log.js';
import { QueryPort } from './query-port.js';
import { awaitThreadEnd } from './thread-end.js';
import type { SchedulerClient } from './scheduler-client.js';
import type { ServerLog } from '../ops/server-log.js';

/** A thread's death or replacement, for tests (startServer's testHooks.onThreadEvent) and logs. */
export interface ThreadEvent {
  thread: 'shard' | 'scheduler';
  /** The shard worker's index (shard events only). */
  worker?: number;
  /**
   * stopping: close() asks the scheduler thread to end. ended / terminated: at close(), a shard thread
   * ended itself, or had to be terminated (it had not ended in time).
   */
  event: 'died' | 'replaced' | 'stopping' | 'ended' | 'terminated';
}

export interface SupervisorOptions {
  shardWorkerFile: string;
  schedulerFile: string;
  dbPath: string;
  workers: number;
  /** workerData of the scheduler thread but its ports. */
  scheduler: Omit<SchedulerWorkerData, 'shardPorts' | 'threadFailures'>;
  schedulerReadyTimeoutMs: number;
  /** Test hooks: failures the threads can be armed with (thread-failure-points.ts); null without hooks. */
  failures: ThreadFailureArming | null;
  shardWorkerResourceLimits?: ResourceLimits;
  onThreadEvent?: (event: ThreadEvent) => void;
  /** Thread deaths and replacements are logged here; each thread gets a log port it drains. */
  log: ServerLog;
}

/**
 * Restarts of one thread within RESTART_WINDOW_MS: the first is immediate, each next one waits twice
 * as long as the one before (from 500 ms), at most 30 s, so a thread that dies as soon as it starts
 * costs a start every 30 s, not a spinning core.
 */
const RESTART_WINDOW_MS = 60_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** How long close() waits for a replacement under way before it stops the threads anyway. */
const CLOSE_WAIT_MS = 5_000;
/** How long close() waits for a shard thread to end itself (it ends at its next turn) before terminating it. */
const SHARD_END_WAIT_MS = 5_000;

interface ShardSlot {
  readonly index: number;
  /** The current thread's pool; null while the worker is dead. */
  pool: Piscina | null;
  /** Failed (rejects at once) while the worker is dead or loading. */
  queryPort: QueryPort;
  up: boolean;
  /** Why the last thread died (its error event), for the log. */
  lastError: string | null;
}

export class WorkerSupervisor {
  private readonly slots: ShardSlot[];
  private scheduler: SchedulerClient | null = null;
  private schedulerUp = false;
  private closing = false;
  private schedulerStopAsked = false;
  /** Replacements, one after the other. */
  private jobs: Promise<void> = Promise.resolve();
  private readonly restarts = new Map<string, number[]>();
  /** Restarts (replacement attempts) since start, by thread: "scheduler", "shard 0", ... (/metrics). */
  readonly restartCounts = new Map<string, number>();
  private readonly sleeping = new Set<() => void>();
  /** Test hooks: replacements wait for this (holdReplacements()), so a test sees the server without the thread. */
  private replacementGate: Promise<void> | null = null;
  /** Resolvers of replaceShardPort requests, by worker: true once the scheduler took the port, false when it died first. */
  private readonly portReplaced = new Map<number, (replaced: boolean) => void>();
  private markClosed!: () => void;
  private readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  private readonly log: Logger;

  constructor(private readonly options: SupervisorOptions) {
    this.log = options.log.for('meilisearch::supervisor');
    this.slots = Array.from({ length: options.workers }, (_, index) => ({
      index, pool: null, queryPort: failedQueryPort(`shard worker ${index} is not started`), up: false, lastError: null,
    }));
  }

  /** Per worker: sends a QueryBatch to its current thread (SearchDispatcher's runners). */
  runners(): ((batch: ArrayBuffer) => Promise<ArrayBuffer>)[] {
    return this.slots.map((slot) => (batch: ArrayBuffer, onPartial?: (answer: ArrayBuffer) => void) => slot.queryPort.run(batch, onPartial));
  }

  /** Every thread is there (GET /health). */
  get available(): boolean {
    return !this.closing && this.schedulerUp && this.slots.every((slot) => slot.up);
  }

  /**
   * At start: every shard worker loads its shards, in parallel; `loaded` settles once all did (rejects
   * when one died first). The scheduler's ends of their ports are given at once: the scheduler thread
   * starts meanwhile (its startup was 0.3-0.6 s after the load on the way to the first answer of a
   * restart), and what it sends waits in the ports until each worker loaded. LMDB holds still for the
   * loads all the same: every commit that changes documents or index settings waits for the workers' acks.
   */
  startShardWorkers(): { schedulerPorts: MessagePort[]; loaded: Promise<void> } {
    const schedulerPorts: MessagePort[] = [];
    const attached: Promise<boolean>[] = [];
    for (const slot of this.slots) {
      const channel = new MessageChannel();
      schedulerPorts.push(channel.port1);
      attached.push(this.startShardThread(slot, channel.port2));
    }
    const loaded = Promise.all(attached).then((results) => {
      const failed = results.findIndex((ok) => !ok);
      if (failed >= 0) throw new Error(`shard worker ${failed} failed to start: ${this.slots[failed]!.lastError ?? 'it stopped'}`);
    });
    loaded.catch(() => {}); // awaited by the start, after the scheduler thread is created
    return { schedulerPorts, loaded };
  }

  /** A scheduler thread talking to the shard workers over `shardPorts`. */
  createSchedulerThread(shardPorts: MessagePort[]): Worker {
    const logChannel = new MessageChannel();
    this.options.log.drain(logChannel.port1);
    const workerData: SchedulerWorkerData = {
      ...this.options.scheduler, shardPorts, threadFailures: this.options.failures?.buffer ?? null,
      logThresholds: this.options.log.thresholds.buffer as SharedArrayBuffer, logPort: logChannel.port2,
    };
    return new Worker(this.options.schedulerFile, { workerData, transferList: [...shardPorts, logChannel.port2] });
  }

  /** The client of the scheduler thread started at start; the supervisor replaces the thread when it dies. */
  adoptScheduler(client: SchedulerClient): void {
    this.scheduler = client;
    this.schedulerUp = true;
    client.onStopped = (error) => this.schedulerDied(error.message);
    client.onShardWorkerLifecycle = (message) => {
      if (message.kind === 'shardPortReplaced') this.settlePortReplaced(message.worker, true);
    };
  }

  /** Test hooks: the thread dies right away (an exit without error event). */
  async terminateShardWorker(worker: number): Promise<void> {
    await Promise.all(this.slots[worker]?.pool?.threads.map((thread) => thread.terminate()) ?? []);
  }

  /** Test hooks: replacements wait until the returned function is called. */
  holdReplacements(): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.replacementGate = gate;
    return () => {
      if (this.replacementGate === gate) this.replacementGate = null;
      release();
    };
  }

  /** No replacement from now on (the server closes); what is under way is waited for, briefly. */
  async beginClose(): Promise<void> {
    this.closing = true;
    this.markClosed();
    for (const worker of [...this.portReplaced.keys()]) this.settlePortReplaced(worker, false);
    for (const wake of this.sleeping) wake();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.jobs, new Promise<void>((resolve) => { timer = setTimeout(resolve, CLOSE_WAIT_MS); })]);
    clearTimeout(timer);
  }

  /**
   * At close, after beginClose: the scheduler starts no new batch, the shard workers save their
   * snapshots and the scheduler thread ends itself (SchedulerClient.prepareShutdown); at most `timeoutMs`.
   */
  async stopScheduler(timeoutMs: number): Promise<void> {
    if (!this.scheduler) return;
    this.schedulerStopAsked = true;
    this.options.onThreadEvent?.({ thread: 'scheduler', event: 'stopping' });
    await this.scheduler.prepareShutdown(timeoutMs);
  }

  /** Stops every thread (after beginClose). */
  async stopThreads(): Promise<void> {
    this.closing = true;
    // It ended itself after stopScheduler (never inside a write transaction); terminated only when it did not
    // (a start that failed, or a thread stuck past the bound), which deadlocks if it is inside one.
    if (this.scheduler?.alive) {
      if (this.schedulerStopAsked) this.log.warn('the scheduler thread did not end by itself; terminating it');
      await this.scheduler.thread.terminate();
    }
    // A shard thread ends itself when its query port closes (shard/worker.ts): never terminated inside an
    // LMDB call. Terminated only if it has not ended within SHARD_END_WAIT_MS (thread-end.ts).
    for (const slot of this.slots) slot.queryPort.close();
    await Promise.allSettled(this.slots.map(async (slot) => {
      const threads = slot.pool?.threads ?? [];
      const ended = await Promise.all(threads.map((thread) => awaitThreadEnd(thread, SHARD_END_WAIT_MS)));
      if (ended.includes(false)) this.log.warn({ worker: slot.index }, 'the shard worker did not end by itself; it was terminated');
      for (const done of ended) this.options.onThreadEvent?.({ thread: 'shard', worker: slot.index, event: done ? 'ended' : 'terminated' });
    }));
    await Promise.allSettled(this.slots.map((slot) => slot.pool?.destroy()));
  }

  /**
   * A new Piscina pool (its one thread) for the slot, attached with its ports; it loads its shards.
   * Resolves false when the thread died first (its death schedules the next replacement).
   */
  private async startShardThread(slot: ShardSlot, schedulerPort: MessagePort): Promise<boolean> {
    const workerData: ShardWorkerData = {
      dbPath: this.options.dbPath, workerIndex: slot.index, workerCount: this.options.workers,
      threadFailures: this.options.failures?.buffer ?? null, logThresholds: this.options.log.thresholds.buffer as SharedArrayBuffer,
    };
    // atomics 'disabled': with the default ('sync') an idle worker blocks in Atomics.wait and never
    // processes the messages arriving on its ports. Piscina runs one task per thread (the attach):
    // query batches travel on the worker's query port (front/threads/query-port.ts says why).
    const pool = new Piscina({
      // minThreads 0: Piscina never starts a thread of its own in place of one that ended (the attach
      // starts the one thread; a replacement is a new pool, made by this supervisor after its backoff).
      filename: this.options.shardWorkerFile, minThreads: 0, maxThreads: 1, idleTimeout: Infinity, workerData, atomics: 'disabled',
      recordTiming: false, ...(this.options.shardWorkerResourceLimits ? { resourceLimits: this.options.shardWorkerResourceLimits } : {}),
    });
    slot.pool = pool;
    slot.lastError = null;
    // The pool must not crash the process on a worker's error; the death itself is its workerDestroy,
    // which follows an error, an exit, or heap exhaustion alike.
    pool.on('error', (error: Error) => {
      this.log.error({ worker: slot.index, err: error }, 'shard worker error');
      if (slot.pool === pool || slot.pool === null) slot.lastError = error.message;
    });
    // After the current call: Piscina emits the error (the reason, for the log and the searches' message) right after workerDestroy.
    pool.on('workerDestroy', () => queueMicrotask(() => this.shardDied(slot, pool)));
    const queryChannel = new MessageChannel();
    const logChannel = new MessageChannel();
    this.options.log.drain(logChannel.port1);
    const attach: AttachWorkerPorts = { kind: 'attachWorkerPorts', schedulerPort, queryPort: queryChannel.port2, load: true, logPort: logChannel.port2 };
    try {
      await pool.run(attach, { transferList: [schedulerPort, queryChannel.port2, logChannel.port2] });
    } catch (cause) {
      queryChannel.port1.close();
      if (slot.pool === pool) {
        // The attach failed without the thread dying (an error in the load): the thread is replaced all the same.
        slot.lastError ??= (cause as Error).message;
        this.shardDied(slot, pool);
      }
      return false;
    }
    if (slot.pool !== pool || this.closing) {
      queryChannel.port1.close();
      return false;
    }
    slot.queryPort = new QueryPort(queryChannel.port1);
    slot.up = true;
    return true;
  }

  private shardDied(slot: ShardSlot, pool: Piscina): void {
    if (slot.pool !== pool || this.closing) return;
    slot.pool = null;
    slot.up = false;
    const reason = slot.lastError ?? 'its thread stopped';
    this.log.warn({ worker: slot.index, reason }, 'shard worker died; replacing it');
    // What it was sent will never be answered: those searches answer `internal` now.
    slot.queryPort.fail(new Error(`shard worker ${slot.index} stopped (${reason})`));
    slot.queryPort = failedQueryPort(`shard worker ${slot.index} is being replaced`);
    // A new pool is made after the backoff (this one, minThreads 0, starts no thread in its place).
    void pool.destroy().catch(() => {});
    this.options.onThreadEvent?.({ thread: 'shard', worker: slot.index, event: 'died' });
    this.schedule(() => this.replaceShardWorker(slot));
  }

  private async replaceShardWorker(slot: ShardSlot): Promise<void> {
    await this.backoff(`shard ${slot.index}`);
    if (this.closing || slot.up || slot.pool) return;
    const scheduler = this.scheduler;
    // A dead scheduler's replacement starts every missing shard worker itself.
    if (!scheduler || !this.schedulerUp) return;
    const startedAt = performance.now();
    const channel = new MessageChannel();
    const replaced = new Promise<boolean>((resolve) => this.portReplaced.set(slot.index, resolve));
    scheduler.postLifecycle({ kind: 'replaceShardPort', worker: slot.index, port: channel.port1 } satisfies ShardWorkerLifecycleMessage, [channel.port1]);
    if (!await replaced || this.closing) {
      channel.port2.close();
      return;
    }
    const portAt = performance.now();
    if (!await this.startShardThread(slot, channel.port2)) return;
    scheduler.postLifecycle({ kind: 'shardWorkerReady', worker: slot.index });
    const ms = (from: number, to: number) => Math.round(to - from);
    this.log.info({ worker: slot.index, durationMs: ms(startedAt, performance.now()), portMs: ms(startedAt, portAt), loadMs: ms(portAt, performance.now()) },
      'shard worker replaced (the scheduler took its port, the new thread started and loaded its shards)');
    this.options.onThreadEvent?.({ thread: 'shard', worker: slot.index, event: 'replaced' });
  }

  private settlePortReplaced(worker: number, replaced: boolean): void {
    this.portReplaced.get(worker)?.(replaced);
    this.portReplaced.delete(worker);
  }

  /** Called once per thread (the client's onStopped), also for a replacement that died before it was ready. */
  private schedulerDied(reason: string): void {
    if (this.closing) return;
    this.schedulerUp = false;
    this.log.warn({ reason }, 'scheduler thread died; replacing it');
    for (const worker of [...this.portReplaced.keys()]) this.settlePortReplaced(worker, false);
    this.options.onThreadEvent?.({ thread: 'scheduler', event: 'died' });
    this.schedule(() => this.replaceScheduler());
  }

  private async replaceScheduler(): Promise<void> {
    await this.backoff('scheduler');
    const client = this.scheduler;
    if (this.closing || this.schedulerUp || !client) return;
    const startedAt = performance.now();
    // Every shard worker gets a port to the new thread and reloads the committed state (the dead
    // thread may have left writes it never committed in the shards); a missing one is started anew.
    // Nothing commits meanwhile: the scheduler is the only writer.
    const schedulerPorts: MessagePort[] = [];
    const attached: Promise<unknown>[] = [];
    for (const slot of this.slots) {
      const channel = new MessageChannel();
      schedulerPorts.push(channel.port1);
      if (slot.up && slot.pool) {
        const attach: AttachWorkerPorts = { kind: 'attachWorkerPorts', schedulerPort: channel.port2, queryPort: null, load: true, logPort: null };
        const pool = slot.pool;
        attached.push(pool.run(attach, { transferList: [channel.port2] }).catch((cause: Error) => {
          slot.lastError ??= cause.message;
          this.shardDied(slot, pool);
        }));
      } else if (!slot.pool) {
        attached.push(this.startShardThread(slot, channel.port2).then((ok) => {
          if (ok) this.options.onThreadEvent?.({ thread: 'shard', worker: slot.index, event: 'replaced' });
        }));
      } else {
        channel.port2.close(); // a replacement of it is under way elsewhere: the scheduler sees it stopped
      }
    }
    await Promise.all(attached);
    if (this.closing) {
      for (const port of schedulerPorts) port.close();
      return;
    }
    client.attach(this.createSchedulerThread(schedulerPorts));
    try {
      await client.ready(this.options.schedulerReadyTimeoutMs);
    } catch (cause) {
      // Died again before ready: its exit schedules the next attempt (after a longer backoff).
      this.log.error({ err: errorField(cause) }, 'the new scheduler thread did not start');
      if (client.alive) await client.thread.terminate();
      return;
    }
    if (this.closing) return;
    // A key write the dead thread committed without answering: the front's key cache reads LMDB again.
    client.onKeysChanged();
    this.schedulerUp = true;
    this.log.info({ durationMs: Math.round(performance.now() - startedAt) }, 'scheduler thread replaced (shard workers reloaded, recovery done)');
    this.options.onThreadEvent?.({ thread: 'scheduler', event: 'replaced' });
  }

  private schedule(job: () => Promise<void>): void {
    this.jobs = this.jobs.then(async () => {
      // Test hooks: held replacements wait (close() does not: it stops them).
      while (this.replacementGate && !this.closing) await Promise.race([this.replacementGate, this.closed]);
      await job();
    }).catch((cause: unknown) => {
      this.log.error({ err: errorField(cause) }, 'a thread replacement failed');
    });
  }

  /** Waits as the thread's recent restarts say (RESTART_WINDOW_MS), cut short by close(). */
  private async backoff(thread: string): Promise<void> {
    const now = Date.now();
    const recent = (this.restarts.get(thread) ?? []).filter((at) => now - at < RESTART_WINDOW_MS);
    recent.push(now);
    this.restarts.set(thread, recent);
    this.restartCounts.set(thread, (this.restartCounts.get(thread) ?? 0) + 1);
    if (recent.length <= 1 || this.closing) return;
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (recent.length - 2));
    this.log.warn({ thread, restarts: recent.length, delayMs: delay }, 'restarts within a minute: waiting before the next');
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleeping.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, delay);
      this.sleeping.add(wake);
    });
  }
}

/** A query port whose every batch fails at once with `message` (a worker dead or not started). */
function failedQueryPort(message: string): QueryPort {
  const { port1, port2 } = new MessageChannel();
  port2.close();
  const port = new QueryPort(port1);
  port.fail(new Error(message));
  port1.close();
  return port;
}
