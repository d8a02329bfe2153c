// The scheduler's state machine. One batch at a time:
//   idle -> selectingBatch -> markingProcessing -> applyingToShards -> committing -> publishing -> idle
// with applyingToShards/committing failures going through rollingBack (shards restored from LMDB,
// every task of the batch failed, in one transaction). A cancelation enqueued while a batch it matches
// is in flight sets the abort flag, checked between steps: the batch is rolled back and its tasks
// re-enqueued, so the cancelation (selected first) then cancels them.
import { BatchAborted } from './batching/batch-plan.js';
import { asSkeinError, SkeinError, type ErrorBody } from '../errors/index.js';
import type { Storage } from '../storage/environment.js';
import type { TaskRecord } from '../tasks/task-record.js';
import { nowRfc3339 } from '../tasks/timestamps.js';
import { commitBatch, commitBatchFailure, markEnqueuedAgain, markProcessing, updateFilesOf, type CommitOutcome } from './batching/batch-commit.js';
import type { BatchPlan, IndexPlan } from './batching/batch-plan.js';
import { planBatch } from './batching/batch-planner.js';
import { canPlanAhead, coveredTasks, takePlan, type PlanAhead } from './batching/plan-ahead.js';
import { DEFAULT_BATCH_LIMITS, selectBatch, type BatchLimits } from './batching/batch-selection.js';
import { planNetworkMoveStep } from './operations/network-move.js';
import type { RemoteClient } from '../network/remote-post.js';
import type { CommitFence } from '../protocol/commit-fence.js';
import type { UploadGauge } from '../protocol/upload-gauge.js';
import { batchStopReason } from './batching/batch-stop-reason.js';
import { traceDuration } from '../tasks/batch-record.js';
import { noFailurePoints, type FailurePointHandler } from './failure-points.js';
import { deleteUpdateFiles, recoverQueue } from './recovery.js';
import { applyCommands, rollbackCommands, type AddressedCommand } from './shards/shard-commands.js';
import { announceCommitted } from './shards/snapshot-commands.js';
import type { ShardCommandSender } from './shards/shard-link.js';
import { appliedLogSeq, checkedContent, newTaskRecord, persistNewTask } from './task-enqueue.js';
import { autoDeletionContent, checkTaskStoreSpace, DEFAULT_TASK_QUEUE_LIMITS, type TaskQueueLimits } from './task-queue-housekeeping.js';
import type { TaskContent } from '../tasks/task-record.js';
import { StoredIdFilter } from './batching/stored-id-filter.js';
import type { StagedIndex } from './batching/staged-index.js';

export type SchedulerState =
  | 'idle' | 'selectingBatch' | 'markingProcessing' | 'applyingToShards' | 'committing' | 'publishing' | 'rollingBack';

const TRACE_STEPS: Record<SchedulerState, string> = {
  idle: 'idle', selectingBatch: 'selecting the batch', markingProcessing: 'marking processing and planning',
  applyingToShards: 'applying to the shards', committing: 'committing', publishing: 'publishing', rollingBack: 'rolling back',
};

export interface SchedulerOptions {
  storage: Storage;
  shards: ShardCommandSender;
  shardsPerIndex: number;
  /** Called after each batch with the uids of the indexes it touched (possibly none). */
  onIndexesChanged: (indexUids: string[]) => void;
  failurePoint?: FailurePointHandler;
  limits?: BatchLimits;
  /** Automatic deletion of old tasks and the task store's size bound (task-queue-housekeeping.ts). */
  taskQueueLimits?: TaskQueueLimits;
  now?: () => string;
  onStateChange?: (state: SchedulerState) => void;
  /** Unexpected internal errors (the thread keeps running). */
  log?: (message: string) => void;
  /** Tasks that reached a final status, once committed (the task log lines). */
  onTasksFinished?: (tasks: readonly TaskRecord[]) => void;
  /** Where dumpCreation tasks write (`--dump-dir`); default 'dumps/'. */
  dumpDir?: string;
  /** Processes snapshotCreation batches (src/scheduler/operations/snapshot-task.ts); absent: they fail. */
  snapshots?: SnapshotBatchRunner;
  /**
   * Cluster mode (src/cluster): every task comes from the task log (enqueueFromLog), its uid is its
   * sequence - 1 on every node; the scheduler registers no task of its own (no automatic deletion).
   */
  clustered?: boolean;
  /** Read-your-writes for the front's caches (protocol/commit-fence.ts): a commit begins before its transaction, ends once announced. */
  commitFence?: CommitFence;
  /** What a topology change asks the other nodes through (network/remote-post.ts); absent: refused as no remote is allowed. */
  remotes?: RemoteClient;
  /** Document uploads under way per index, counted by the front (protocol/upload-gauge.ts); absent: none awaited. */
  uploads?: UploadGauge;
  /** false: planning reads every new external id from LMDB instead of proving it new (stored-id-filter.ts; tests, A/B). */
  storedIdFilter?: boolean;
}

/** How long a batch that emptied the queue waits for an upload of its index under way before building (prepareSearchWhenLast). */
export const UPLOAD_WAIT_MS = 1000;
/** How often that wait looks at the gauge again (an upload ending in a refusal enqueues nothing). */
const UPLOAD_POLL_MS = 5;

export interface SnapshotBatchRunner {
  run(tasks: TaskRecord[], checkAbort: () => void, enqueued: () => Iterable<TaskRecord>): Promise<BatchPlan>;
}


/** What the front drops from its caches: the index's uid and, when its data is stored under another name, that key; a swap's uids. */
function changedNames(plan: BatchPlan): string[] {
  if (plan.index) return [...new Set([plan.index.uid, plan.index.stage.key])];
  return plan.swap?.changed ?? [];
}

export class Scheduler {
  private stateValue: SchedulerState = 'idle';
  private stateSince = 0;
  /** Owned for one batch (set when it is marked processing, dropped when it ends): milliseconds per state. */
  private trace: Map<SchedulerState, number> | null = null;
  /** Enqueued tasks by uid, kept in uid order. */
  private queue = new Map<number, TaskRecord>();
  private nextTaskUid = 0;
  private nextBatchUid = 0;
  private started = false;
  private paused = false;
  /** Why batches are held (a shard worker being replaced); none: they run. Apart from pause(), which is for good. */
  private readonly holds = new Set<string>();
  private loop: Promise<void> | null = null;
  private wakeRequested = false;
  private inFlight: ReadonlySet<number> = new Set();
  private abortRequested = false;
  /** The next batch, planned while the shards applied the previous one (plan-ahead.ts). */
  private ahead: PlanAhead | null = null;
  private plannedAheadCount = 0;
  /** Resolved by the next enqueue: a batch being applied waits on it to plan a task that arrives late. */
  private enqueueSignal: { promise: Promise<void>; resolve: () => void } | null = null;
  private readonly now: () => string;
  private readonly failurePoint: FailurePointHandler;
  private readonly log: (message: string) => void;
  /** The indexes' stored external ids, so planning skips the LMDB read of a new one (stored-id-filter.ts). */
  private readonly storedIds: StoredIdFilter | undefined;

  constructor(private readonly options: SchedulerOptions) {
    this.storedIds = options.storedIdFilter === false ? undefined : new StoredIdFilter();
    this.now = options.now ?? nowRfc3339;
    this.failurePoint = options.failurePoint ?? noFailurePoints;
    this.log = options.log ?? ((message) => console.error(`[scheduler] ${message}`));
  }

  get state(): SchedulerState {
    return this.stateValue;
  }

  /** Batches whose plan was computed ahead, while the batch before was applied (tests, figures). */
  get batchesPlannedAhead(): number {
    return this.plannedAheadCount;
  }

  /** Uids of the enqueued tasks, in order. */
  get enqueuedUids(): number[] {
    return [...this.queue.keys()];
  }

  /**
   * Startup recovery. Synchronous in effect (enqueueing works right after the call), async so a later
   * startup step can await. Resolves with every index uid. The shard workers load the stored indexes
   * themselves when they start (before this thread exists), so nothing is sent to them here.
   * Batches start at the next wake(): the caller posts its ready signal first.
   */
  async start(): Promise<string[]> {
    const { storage } = this.options;
    const recovered = recoverQueue(storage);
    this.queue = new Map(recovered.enqueued.map((task) => [task.uid, task]));
    this.nextTaskUid = recovered.nextTaskUid;
    this.nextBatchUid = recovered.nextBatchUid;
    this.started = true;
    return [...storage.indexes.getKeys({})];
  }

  /** Persists a new task durably and returns it; throws a SkeinError for a malformed content. */
  enqueue(rawContent: unknown): TaskRecord {
    if (this.options.clustered) throw new SkeinError('internal', 'In cluster mode, tasks are enqueued through the task log.');
    const content = checkedContent(rawContent);
    if ('presetMatches' in content) delete content.presetMatches; // the scheduler's own deletions only
    return this.register(content, true);
  }

  /**
   * Cluster mode: the task at sequence `seq` of the task log, enqueued as task `seq - 1` with the
   * publisher's enqueuedAt, the sequence stored in the same transaction. Idempotent by sequence: an
   * already applied one answers its record (null when it was deleted since). A gap is refused.
   */
  enqueueFromLog(rawContent: unknown, seq: number, enqueuedAt: string): TaskRecord | null {
    const applied = appliedLogSeq(this.options.storage);
    if (seq <= applied) return this.options.storage.tasks.get(seq - 1) ?? null;
    if (seq !== applied + 1 || seq - 1 !== this.nextTaskUid) {
      throw new SkeinError('internal', `Task log sequence ${seq} does not follow the last applied one (${applied}, next task uid ${this.nextTaskUid}).`);
    }
    const content = checkedContent(rawContent);
    if ('presetMatches' in content) delete content.presetMatches;
    return this.register(content, false, { seq, enqueuedAt });
  }

  private get taskQueueLimits(): TaskQueueLimits {
    return this.options.taskQueueLimits ?? DEFAULT_TASK_QUEUE_LIMITS;
  }

  /** checkSpace: refuse it when the task store is full (a deletion or cancelation is judged by what it matched). */
  private register(content: TaskContent, checkSpace = false, log: { seq: number; enqueuedAt: string } | null = null): TaskRecord {
    const record = newTaskRecord(this.options.storage, this.nextTaskUid, content, log?.enqueuedAt ?? this.now());
    if (checkSpace) checkTaskStoreSpace(this.options.storage, record.content, this.taskQueueLimits);
    persistNewTask(this.options.storage, record, log?.seq ?? null);
    this.nextTaskUid = record.uid + 1;
    this.queue.set(record.uid, record);
    const signal = this.enqueueSignal;
    this.enqueueSignal = null;
    signal?.resolve();
    if (record.content.type === 'taskCancelation' && record.content.matchedUids.some((uid) => this.inFlight.has(uid))) {
      this.abortRequested = true;
    }
    this.wake();
    return record;
  }

  /** No new batch starts until resume() (the running one finishes). Tests and maintenance use it. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake();
  }

  /**
   * No new batch starts until every hold is released; the batch in process ends first (whenIdle()).
   * A dead shard worker holds batches until its replacement loaded the committed state.
   */
  hold(reason: string): void {
    this.holds.add(reason);
  }

  release(reason: string): void {
    if (this.holds.delete(reason)) this.wake();
  }

  private get held(): boolean {
    return this.paused || this.holds.size > 0;
  }

  /**
   * Starts processing if it is not running; batches continue until the queue is empty. The loop
   * starts on a later turn: the caller answers its enqueue first, and tasks enqueued in the same
   * turn are seen together by the autobatcher.
   */
  wake(): void {
    if (!this.started || this.held) return;
    this.wakeRequested = true;
    this.loop ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .finally(() => { this.loop = null; });
  }

  /** Resolves when no batch is running and nothing is left to process. */
  async whenIdle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  private async drain(): Promise<void> {
    try {
      while (this.wakeRequested) {
        this.wakeRequested = false;
        while (!this.held && await this.runNextBatch()) this.wakeRequested = false;
        // Paused: writes sent ahead must not stay in the shards uncommitted meanwhile.
        const ahead = this.ahead;
        this.ahead = null;
        if (ahead) await this.dropAhead(ahead);
      }
    } catch (cause) {
      this.setState('idle');
      this.log(`batch processing stopped: ${(cause as Error).stack ?? cause}`);
    }
  }

  /** Processes one batch; false when nothing is enqueued. */
  async runNextBatch(): Promise<boolean> {
    const { storage } = this.options;
    this.setState('selectingBatch');
    this.cleanUpTaskQueue();
    const queued = [...this.queue.values()];
    const limits = this.options.limits ?? DEFAULT_BATCH_LIMITS;
    const batch = selectBatch(queued, limits);
    // A plan made ahead is valid for this batch only (it assumed the batch before was the last commit).
    const ahead = this.ahead;
    this.ahead = null;
    const covered = ahead && batch ? coveredTasks(ahead, batch) : null;
    if (ahead && !covered) {
      // Its writes (if sent) are undone first; then the batch is selected again (the queue may have changed meanwhile).
      await this.dropAhead(ahead);
      return true;
    }
    if (!batch) {
      this.setState('idle');
      return false;
    }
    this.trace = new Map();
    this.setState('markingProcessing');
    const tasks = markProcessing(storage, covered ?? batch.tasks, this.nextBatchUid++, this.now(), batchStopReason(batch, queued, limits));
    for (const task of tasks) this.queue.delete(task.uid);
    this.inFlight = new Set(tasks.map((task) => task.uid));
    this.abortRequested = false;
    this.failurePoint('afterMarkingProcessing');
    let plan: BatchPlan | null = null;
    let outcome: CommitOutcome | null = null;
    let fenced = false;
    try {
      if (covered) this.plannedAheadCount++;
      plan = covered ? takePlan(ahead!, tasks[0].startedAt!) : batch.kind === 'snapshotCreation' ? await this.runSnapshot(tasks)
        : batch.kind === 'networkTopologyChange' ? await planNetworkMoveStep(tasks[0]!, { storage, now: tasks[0]!.startedAt!, ...(this.options.remotes ? { remotes: this.options.remotes } : {}) }) : await planBatch({ ...batch, tasks } as typeof batch, {
        storage, shardsPerIndex: this.options.shardsPerIndex, now: tasks[0].startedAt!, isEnqueued: (uid) => this.queue.has(uid), checkAbort: () => this.checkAbort(),
        ...(this.storedIds ? { storedIds: this.storedIds } : {}),
        dump: { dumpDir: this.options.dumpDir ?? 'dumps/', now: this.now, failurePoint: this.failurePoint },
      });
      this.checkAbort();
      this.setState('applyingToShards');
      if (plan.index) await this.applyToShards(plan.index, covered ? ahead!.sent : null, batch.kind !== 'networkTopologyChange');
      if (plan.index) await this.prepareSearchWhenLast(plan.index);
      this.failurePoint('afterShardsApplied');
      this.checkAbort();
      this.setState('committing');
      this.failurePoint('beforeCommit');
      this.options.commitFence?.begin();
      fenced = true;
      // Before the transaction: the filter stays a superset of the stored ids even if it fails.
      if (plan.index) this.noteIndexWrites(plan.index.stage);
      outcome = commitBatch(storage, tasks, plan, this.now(), this.progressTrace(), () => this.failurePoint('duringCommit'));
      this.failurePoint('afterCommit');
      for (const task of outcome.canceled) this.queue.delete(task.uid);
      if (outcome.requeued) {
        // A step of a topology change (network-move.ts): back in the queue, in uid order, to run next.
        this.queue = new Map([...this.queue.values(), ...outcome.requeued].sort((a, b) => a.uid - b.uid).map((task) => [task.uid, task]));
      }
    } catch (cause) {
      await this.recoverFromFailedBatch(tasks, plan, cause);
    } finally {
      this.inFlight = new Set();
      this.trace = null;
      if (fenced && !outcome) this.options.commitFence?.end(); // nothing committed: nothing to announce
    }
    // Outside the try: once committed, nothing may turn the batch into a failure.
    if (outcome) {
      this.options.onTasksFinished?.([...outcome.finished, ...outcome.canceled]);
      this.publish(plan, outcome.updateFiles);
      if (fenced) this.options.commitFence?.end(); // after its indexesChanged was posted
    }
    // Not while the next batch's writes, sent ahead, are in the shards uncommitted (plan-ahead.ts).
    if (outcome && plan?.index && !this.hasWritesSentAhead()) this.announceCommitted(plan.index.uid);
    this.setState('idle');
    return true;
  }

  /** Meilisearch's cleanup_task_queue: past maxNumberOfTasks, a taskDeletion of the oldest finished tasks is registered. */
  private cleanUpTaskQueue(): void {
    if (this.options.clustered) return; // a task of its own would take a uid the log gives to another
    try {
      const content = autoDeletionContent(this.options.storage, [...this.queue.values()], this.taskQueueLimits);
      if (content === null) return;
      this.log(`the task queue is almost full: deleting the oldest ${(content as { matchedUids: number[] }).matchedUids.length} finished tasks`);
      this.register(content);
    } catch (cause) {
      this.log(`task queue cleanup failed: ${(cause as Error).message}`);
    }
  }

  private runSnapshot(tasks: TaskRecord[]): Promise<BatchPlan> {
    if (!this.options.snapshots) throw new Error('this scheduler was started without a snapshot folder');
    return this.options.snapshots.run(tasks, () => this.checkAbort(), () => this.queue.values());
  }

  private hasWritesSentAhead(): boolean {
    return this.ahead !== null && this.ahead.sent !== null;
  }

  private checkAbort(): void {
    if (this.abortRequested) throw new BatchAborted('batch interrupted by a task cancelation');
  }

  /** sentAhead: the acknowledgement of the plan's writes when they were sent ahead (plan-ahead.ts). */
  private async applyToShards(plan: IndexPlan, sentAhead: Promise<void> | null, mayPlanAhead = true): Promise<void> {
    let acknowledged = sentAhead;
    if (acknowledged === null) {
      const { prepare, writes } = applyCommands(plan, this.options.shards.workerCount);
      await this.sendAll(prepare);
      acknowledged = this.sendAll(writes);
      acknowledged.catch(() => {}); // awaited below; not an unhandled rejection while planning ahead
    }
    if (mayPlanAhead) await this.planAheadWhileApplying(plan, acknowledged);
    await acknowledged;
  }

  /**
   * planAhead now, or, when nothing is enqueued yet, as soon as a task arrives before the shards
   * acknowledge: during a bulk load the next upload often lands while this batch is applied, and
   * planning it only after the commit left the shard workers idle meanwhile.
   */
  private async planAheadWhileApplying(current: IndexPlan, acknowledged: Promise<void>): Promise<void> {
    let settled = false;
    const done = acknowledged.then(() => { settled = true; }, () => { settled = true; });
    while (await this.planAhead(current) === 'nothingEnqueued' && !settled && !this.abortRequested) {
      await Promise.race([done, this.nextEnqueue()]);
      if (settled) return;
    }
  }

  private nextEnqueue(): Promise<void> {
    if (this.enqueueSignal === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => (resolve = settle));
      this.enqueueSignal = { promise, resolve };
    }
    return this.enqueueSignal.promise;
  }

  /** The next batch's writes, sent before this one commits when they need no LoadIndex first; null when not sent. */
  private sendAhead(plan: BatchPlan): Promise<void> | null {
    if (!plan.index || this.abortRequested) return null;
    const { prepare, writes } = applyCommands(plan.index, this.options.shards.workerCount);
    if (prepare.length > 0 || writes.length === 0) return null;
    const acknowledged = this.sendAll(writes);
    acknowledged.catch(() => {}); // awaited by the batch that takes the plan, or dropped with a rollback
    this.failurePoint('afterSentAhead');
    return acknowledged;
  }

  /** A plan made ahead that no batch takes: the writes sent ahead (if any) are undone from LMDB, then the stamp announced. */
  private async dropAhead(ahead: PlanAhead): Promise<void> {
    if (!ahead.sent || !ahead.plan.index) return;
    this.setState('rollingBack');
    try {
      await this.sendAll(this.toLiveWorkers(rollbackCommands(ahead.plan.index, this.options.shards.workerCount)));
      this.announceCommitted(ahead.plan.index.uid);
    } catch (cause) {
      this.log(`shard rollback of the writes sent ahead failed: ${(cause as Error).message}`);
    }
  }

  /** While the shards index this batch: plan the next one over this batch's stage (plan-ahead.ts). */
  /** The filter of stored ids learns the ids a commit writes, or forgets a deleted index's. */
  private noteIndexWrites(stage: StagedIndex): void {
    if (stage.record === null) this.storedIds?.forget(stage.key);
    else this.storedIds?.noteWritten(stage.key, stage.externalIds);
  }

  private async planAhead(current: IndexPlan): Promise<'planned' | 'nothingEnqueued' | 'notPlanned'> {
    const next = selectBatch([...this.queue.values()], this.options.limits ?? DEFAULT_BATCH_LIMITS);
    if (!next) return 'nothingEnqueued';
    if (!canPlanAhead(next, current)) return 'notPlanned';
    const plannedAt = this.now();
    try {
      const plan = await planBatch(next, {
        storage: this.options.storage, shardsPerIndex: this.options.shardsPerIndex, now: plannedAt,
        isEnqueued: (uid) => this.queue.has(uid), base: current.stage,
      });
      this.ahead = { tasks: next.tasks, plan, plannedAt, sent: this.sendAhead(plan) };
      return 'planned';
    } catch (cause) {
      this.log(`planning ahead failed (the batch will be planned when it starts): ${(cause as Error).message}`);
      return 'notPlanned';
    }
  }

  /**
   * The last batch before an empty queue: the workers build the index's stale search structures
   * (pair tables, sole-word fields, rank / position lists) before the commit, so its tasks succeed
   * with the index answering at full speed. Built later, in slices or at once by the first searches,
   * they held the first 10 s after a bulk load of 100,000 real npm packages to a p99 of ~900 ms
   * under 64 connections (bench/cold-start-probe.mjs). Between the batches of a bulk load, the
   * queue holds the next: no build (it would be redone after every batch). Never fails the batch.
   */
  private async prepareSearchWhenLast(plan: IndexPlan): Promise<void> {
    // SKEIN_PREPARE_SEARCH=0 turns it off (figures: bench/cold-start-probe.mjs on vs off).
    if (process.env['SKEIN_PREPARE_SEARCH'] === '0') return;
    if (this.queue.size > 0 || this.hasWritesSentAhead() || plan.stage.record === null) return;
    if (await this.taskFromUploadUnderWay(plan)) return;
    const indexUid = plan.stage.key;
    const workers = Array.from({ length: this.options.shards.workerCount }, (_, worker) => worker);
    try {
      await this.sendAll(this.toLiveWorkers(workers.map((worker) => ({ worker, command: { kind: 'prepareSearch', indexUid } }))));
    } catch (cause) {
      this.log(`preparing ${indexUid} for search failed: ${(cause as Error).message}`);
    }
  }

  /**
   * The queue emptied while the client's next payload for this index is on its way (a bulk load sends
   * one after another): wait for its task, at most UPLOAD_WAIT_MS, instead of building what the next
   * batch makes stale again (at 1M npm rows the build takes ~5 s; each rebuild at the current size).
   * True when a task came: it is planned (and sent) ahead now, and the build waits for a later batch.
   */
  private async taskFromUploadUnderWay(plan: IndexPlan): Promise<boolean> {
    const uploads = this.options.uploads;
    if (!uploads) return false;
    const deadline = performance.now() + UPLOAD_WAIT_MS;
    while (this.queue.size === 0 && !this.abortRequested && uploads.underWay(plan.uid) && performance.now() < deadline) {
      await Promise.race([this.nextEnqueue(), new Promise<void>((resolve) => setTimeout(resolve, UPLOAD_POLL_MS))]);
    }
    if (this.queue.size === 0) return false;
    if (this.ahead === null && !this.abortRequested) await this.planAhead(plan);
    return true;
  }

  /** A dead worker gets no rollback: its replacement loads the committed state from LMDB itself. */
  private toLiveWorkers(commands: AddressedCommand[]): AddressedCommand[] {
    const shards = this.options.shards;
    return shards.isUp ? commands.filter(({ worker }) => shards.isUp!(worker)) : commands;
  }

  private async sendAll(commands: AddressedCommand[]): Promise<void> {
    const results = await Promise.allSettled(commands.map(({ worker, command }) => this.options.shards.send(worker, command)));
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** rollingBack: shards back to the committed state, then the tasks re-enqueued (abort) or failed. */
  private async recoverFromFailedBatch(tasks: TaskRecord[], plan: BatchPlan | null, cause: unknown): Promise<void> {
    this.setState('rollingBack');
    const ahead = this.ahead;
    this.ahead = null; // planned over this batch's stage, which is not committed
    if (plan?.index) {
      const workerCount = this.options.shards.workerCount;
      // Writes sent ahead are undone first: this batch's rollback may drop the index they were planned over.
      const undoAhead = ahead?.sent && ahead.plan.index ? rollbackCommands(ahead.plan.index, workerCount) : [];
      try {
        await this.sendAll(this.toLiveWorkers([...undoAhead, ...rollbackCommands(plan.index, workerCount)]));
        this.announceCommitted(plan.index.uid);
      } catch (rollbackError) {
        this.log(`shard rollback failed: ${(rollbackError as Error).message}`);
      }
    }
    if (cause instanceof BatchAborted) {
      const requeued = markEnqueuedAgain(this.options.storage, tasks);
      this.queue = new Map([...this.queue.values(), ...requeued].sort((a, b) => a.uid - b.uid).map((task) => [task.uid, task]));
      return;
    }
    const error: ErrorBody = asSkeinError(cause).toBody();
    this.log(`batch of tasks ${tasks.map((task) => task.uid).join(',')} failed: ${error.message}`);
    // Not inside `onTasksFinished?.(...)`: an optional call does not evaluate its arguments when absent.
    const failed = commitBatchFailure(this.options.storage, tasks, error, this.now(), this.progressTrace());
    this.options.onTasksFinished?.(failed);
    this.publish(plan, updateFilesOf(tasks));
  }

  /** The workers' shards of the index hold its committed state again: its stamp, for their snapshots (not awaited). */
  private announceCommitted(indexUid: string): void {
    void announceCommitted(this.options.storage, this.options.shards, indexUid, this.log);
  }

  private publish(plan: BatchPlan | null, updateFiles: string[]): void {
    this.setState('publishing');
    try {
      this.options.onIndexesChanged(plan ? changedNames(plan) : []);
    } catch (cause) {
      this.log(`publishing indexesChanged failed: ${(cause as Error).message}`);
    }
    deleteUpdateFiles(this.options.storage, updateFiles);
  }

  /** The current batch's time per step so far, as GET /batches shows it (stats.progressTrace). */
  private progressTrace(): Record<string, string> {
    this.closeStep();
    const trace: Record<string, string> = {};
    for (const [step, milliseconds] of this.trace ?? []) trace[`processing tasks > ${TRACE_STEPS[step]}`] = traceDuration(milliseconds);
    return trace;
  }

  private closeStep(): void {
    const now = performance.now();
    if (this.trace) this.trace.set(this.stateValue, (this.trace.get(this.stateValue) ?? 0) + now - this.stateSince);
    this.stateSince = now;
  }

  private setState(state: SchedulerState): void {
    this.closeStep();
    this.stateValue = state;
    this.options.onStateChange?.(state);
  }
}
