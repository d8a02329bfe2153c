// The front's side of the scheduler thread: enqueue requests correlated by requestId, and cache
// invalidations. The front never waits on indexing, only on the (fast) enqueue answer.
//
// When the thread dies, the requests it did not answer fail with `internal` (an enqueue may have been
// persisted just before: it is then processed by the next thread, never sent twice), and so does
// every request until the front attached a replacement thread (attach(), worker-supervisor.ts).
import type { Worker } from 'node:worker_threads';
import { SkeinError, fromBody } from '../../errors/index.js';
import { decodeSchedulerMessage, encodeSchedulerMessage } from '../../protocol/scheduler-codec.js';
import { isShardWorkerLifecycleMessage, type KeyCommand, type SchedulerMessage, type ShardWorkerLifecycleMessage } from '../../protocol/messages.js';
import type { TaskContent } from '../../tasks/task-record.js';

/** The summarized task the scheduler answers an enqueue with (taskUid, indexUid, status, type, enqueuedAt). */
export type TaskSummary = Record<string, unknown>;

interface PendingRequest {
  resolve: (answer: unknown) => void;
  reject: (error: SkeinError) => void;
}

export class SchedulerClient {
  private readonly pending = new Map<number, PendingRequest>();
  private nextRequestId = 1;
  private failure: SkeinError | null = null;
  private worker!: Worker;
  /** Called when a key command's result arrives, before its caller resumes: the key cache drops. */
  onKeysChanged: () => void = () => {};
  /** Called once when the attached thread is gone (error or exit), after its requests failed. */
  onStopped: (error: SkeinError) => void = () => {};
  /** The scheduler's answers about replaced shard workers (worker-supervisor.ts). */
  onShardWorkerLifecycle: (message: ShardWorkerLifecycleMessage) => void = () => {};
  private readySignal!: Promise<void>;
  private markReady!: () => void;
  private failReady!: (error: Error) => void;

  constructor(
    worker: Worker,
    private readonly onIndexesChanged: (uids: string[]) => void,
    private readonly onTaskEnqueued: () => void = () => {},
  ) {
    this.attach(worker);
  }

  /** Talks to `worker` from now on (a replacement thread): requests are accepted again, ready() waits for its signal. */
  attach(worker: Worker): void {
    this.worker = worker;
    this.failure = null;
    this.readySignal = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.failReady = reject;
    });
    // Nobody may be waiting yet; the rejection is observed through ready().
    this.readySignal.catch(() => {});
    worker.on('message', (message: unknown) => {
      if (this.worker === worker) this.receive(message);
    });
    worker.on('error', (error) => this.stopped(worker, new SkeinError('internal', `The scheduler thread failed: ${error.message}. It is being restarted.`)));
    worker.on('exit', (code) => this.stopped(worker, new SkeinError('internal', `The scheduler thread exited with code ${code}. It is being restarted.`)));
  }

  /** Whether the attached thread is alive (not failed). */
  get alive(): boolean {
    return this.failure === null;
  }

  /** Posts a message that is not a flatbuffer (it may carry ports) to the attached thread. */
  postLifecycle(message: ShardWorkerLifecycleMessage, transferList: import('node:worker_threads').Transferable[] = []): void {
    this.worker.postMessage(message, transferList);
  }

  /** The thread itself, for the supervisor (terminate at close or in tests). */
  get thread(): Worker {
    return this.worker;
  }

  /** Resolves when the scheduler says it is ready; rejects after `timeoutMs` or if it dies first. */
  ready(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the scheduler thread was not ready after ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([this.readySignal, timeout]).finally(() => clearTimeout(timer));
  }

  /** Cluster mode: writes go to the task log instead (src/cluster/cluster-writes.ts), which feeds enqueueFromLog. */
  enqueueThrough: ((content: TaskContent) => Promise<TaskSummary>) | null = null;

  enqueue(content: TaskContent): Promise<TaskSummary> {
    if (this.enqueueThrough) return this.enqueueThrough(content);
    return this.request((requestId) => ({ kind: 'enqueueTask', requestId, content })) as Promise<TaskSummary>;
  }

  /** Cluster mode: the task at `seq` of the task log; resolves with its summary (null: applied before, and deleted since). */
  enqueueFromLog(content: TaskContent, seq: number, enqueuedAt: string): Promise<TaskSummary | null> {
    return this.request((requestId) => ({ kind: 'enqueueTask', requestId, content, log: { seq, enqueuedAt } })) as Promise<TaskSummary | null>;
  }

  /** Cluster mode: /keys writes and features changes go through the skein-config stream (src/cluster/config-log.ts), which calls the two below with its sequence. */
  configThrough: {
    keyCommand(command: KeyCommand): Promise<unknown>; updateFeatures(patch: Record<string, boolean>): Promise<Record<string, boolean>>;
    /** Every config entry the log holds now applied here (false: not within `timeoutMs`; cluster/config-log.ts). */
    appliedAll(timeoutMs?: number): Promise<boolean>;
  } | null = null;

  /** A /keys write; resolves with the stored record (null after a delete) once committed. */
  keyCommand(command: KeyCommand, logSeq?: number): Promise<unknown> {
    if (this.configThrough && logSeq === undefined) return this.configThrough.keyCommand(command);
    return this.request((requestId) => ({ kind: 'keyCommand', requestId, command, ...(logSeq ? { logSeq } : {}) }));
  }

  /** PATCH /experimental-features: resolves with every stored flag once the change is committed. */
  updateFeatures(patch: Record<string, boolean>, logSeq?: number): Promise<Record<string, boolean>> {
    if (this.configThrough && logSeq === undefined) return this.configThrough.updateFeatures(patch);
    return this.request((requestId) => ({ kind: 'updateFeatures', requestId, patch, ...(logSeq ? { logSeq } : {}) })) as Promise<Record<string, boolean>>;
  }

  /**
   * At close: the scheduler starts no new batch, the shard workers save their snapshots, then the
   * thread ends itself (scheduler/worker.ts: never inside a write transaction). Resolves once it
   * exited, or after `timeoutMs` (a restart then rebuilds what was not saved), never rejects.
   */
  async prepareShutdown(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
    const exited = this.whenExited();
    const prepared = this.request((requestId) => ({ kind: 'prepareShutdown', requestId })).then(() => exited, () => exited);
    await Promise.race([prepared, timeout]);
    clearTimeout(timer);
  }

  /** Resolves when the attached thread is gone (at once when it is). */
  whenExited(): Promise<void> {
    const worker = this.worker;
    if (!this.alive || worker.threadId === -1) return Promise.resolve();
    return new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  /** Sends one message that the scheduler answers, matched by requestId. */
  private request(message: (requestId: number) => SchedulerMessage): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { resolve, reject });
      const buffer = encodeSchedulerMessage(message(requestId));
      this.worker.postMessage(buffer, [buffer]);
    });
  }

  private receive(message: unknown): void {
    if (isShardWorkerLifecycleMessage(message)) {
      this.onShardWorkerLifecycle(message);
      return;
    }
    if (isReadySignal(message)) {
      this.markReady();
      return;
    }
    if (!(message instanceof ArrayBuffer) && !(message instanceof Uint8Array)) return;
    const decoded = decodeSchedulerMessage(message);
    if (decoded.kind === 'indexesChanged') {
      this.onIndexesChanged(decoded.indexUids);
      // The scheduler's ready signal is its first indexesChanged (all index uids, after recovery).
      this.markReady();
    } else if (decoded.kind === 'taskEnqueued') {
      const pending = this.pending.get(decoded.requestId);
      if (!pending) return;
      this.pending.delete(decoded.requestId);
      this.onTaskEnqueued();
      if (decoded.error) pending.reject(fromBody(decoded.error));
      else pending.resolve(decoded.summary as TaskSummary);
    } else if (decoded.kind === 'shutdownPrepared') {
      this.pending.get(decoded.requestId)?.resolve(null);
      this.pending.delete(decoded.requestId);
    } else if (decoded.kind === 'featuresUpdated') {
      const pending = this.pending.get(decoded.requestId);
      // The committed flags must be visible to the next GET on this thread.
      this.onTaskEnqueued();
      if (!pending) return;
      this.pending.delete(decoded.requestId);
      if (decoded.error) pending.reject(fromBody(decoded.error));
      else pending.resolve(decoded.features);
    } else if (decoded.kind === 'keyCommandResult') {
      const pending = this.pending.get(decoded.requestId);
      // The committed write must be visible to the next read on this thread.
      this.onTaskEnqueued();
      this.onKeysChanged();
      if (!pending) return;
      this.pending.delete(decoded.requestId);
      if (decoded.error) pending.reject(fromBody(decoded.error));
      else pending.resolve(decoded.record);
    }
  }

  private stopped(worker: Worker, error: SkeinError): void {
    if (this.worker !== worker || this.failure) return;
    this.fail(error);
    this.onStopped(error);
  }

  private fail(error: SkeinError): void {
    this.failure ??= error;
    this.failReady(error);
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

function isReadySignal(message: unknown): boolean {
  if (message === 'ready') return true;
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'ready';
}
