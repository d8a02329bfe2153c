// The tasks of the batches sent and not yet confirmed, in file order. One polling loop asks for every
// unfinished one at once (GET /tasks?uids=...), every 25 ms while tasks finish, backing off to 1 s while
// none does. The confirmed position advances over the leading batches whose tasks succeeded.
import type { ReadPosition } from './records.js';
import type { ServerClient, ServerTask } from './server-client.js';
import { Interrupted, sleep } from './server-client.js';

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 1000;

export interface TrackedBatch {
  taskUid: number | null;
  start: ReadPosition;
  end: ReadPosition;
  documents: number;
  firstLine: number;
  lastLine: number;
  status: 'pending' | 'succeeded' | 'failed';
  indexed: number;
  error: { code: string; message: string } | null;
}

export interface Confirmed extends ReadPosition {
  documents: number;
}

export class TaskTracker {
  /** Batches after the confirmed position, in file order. */
  readonly batches: TrackedBatch[] = [];
  readonly failed: TrackedBatch[] = [];
  succeededTasks = 0;
  indexedDocuments = 0;
  private pendingCount = 0;
  private wake: (() => void) | null = null;
  private changed: (() => void) | null = null;
  private loopError: unknown = null;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly client: ServerClient,
    public confirmed: Confirmed,
    private readonly onChange: () => void,
    private readonly signal: AbortSignal,
  ) {}

  get pending(): number {
    return this.pendingCount;
  }

  add(batch: TrackedBatch): void {
    this.batches.push(batch);
    if (batch.status === 'pending') this.pendingCount++;
    this.loop ??= this.pollLoop();
    this.wake?.();
  }

  /** Resolves once fewer than `limit` tasks are unfinished. */
  async waitUntilBelow(limit: number): Promise<void> {
    while (this.pendingCount >= limit) await this.nextChange();
  }

  async drain(): Promise<void> {
    await this.waitUntilBelow(1);
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private nextChange(): Promise<void> {
    if (this.loopError !== null) return Promise.reject(this.loopError);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new Interrupted());
      if (this.signal.aborted) return onAbort();
      this.signal.addEventListener('abort', onAbort, { once: true });
      const previous = this.changed;
      this.changed = () => {
        this.signal.removeEventListener('abort', onAbort);
        previous?.();
        if (this.loopError !== null) reject(this.loopError);
        else resolve();
      };
    });
  }

  private notify(): void {
    const changed = this.changed;
    this.changed = null;
    changed?.();
  }

  private async pollLoop(): Promise<void> {
    let delay = FIRST_POLL_MS;
    try {
      while (!this.stopped) {
        if (this.pendingCount === 0) {
          await new Promise<void>((resolve) => { this.wake = resolve; });
          this.wake = null;
          delay = FIRST_POLL_MS;
          continue;
        }
        await sleep(delay, this.signal);
        const waiting = this.batches.filter((batch) => batch.status === 'pending' && batch.taskUid !== null);
        const tasks = await this.client.tasks(waiting.map((batch) => batch.taskUid!));
        const progressed = this.apply(waiting, tasks);
        delay = progressed ? FIRST_POLL_MS : Math.min(Math.round(delay * 1.5), MAX_POLL_MS);
        if (progressed) {
          this.onChange();
          this.notify();
        }
      }
    } catch (cause) {
      this.loopError = cause;
      this.notify();
    }
  }

  private apply(waiting: TrackedBatch[], tasks: ServerTask[]): boolean {
    const byUid = new Map(tasks.map((task) => [task.uid, task]));
    let progressed = false;
    for (const batch of waiting) {
      const task = byUid.get(batch.taskUid!);
      if (task === undefined) {
        batch.status = 'failed';
        batch.error = { code: 'task_not_found', message: `Task \`${batch.taskUid}\` not found.` };
      } else if (task.status === 'succeeded') {
        batch.status = 'succeeded';
        batch.indexed = task.details?.indexedDocuments ?? batch.documents;
      } else if (task.status === 'failed' || task.status === 'canceled') {
        batch.status = 'failed';
        batch.error = task.error ?? { code: task.status, message: `the task was ${task.status}` };
      } else {
        continue;
      }
      progressed = true;
      this.pendingCount--;
      if (batch.status === 'succeeded') {
        this.succeededTasks++;
        this.indexedDocuments += batch.indexed;
      } else {
        this.failed.push(batch);
      }
    }
    while (this.batches.length > 0 && this.batches[0]!.status === 'succeeded') {
      const batch = this.batches.shift()!;
      this.confirmed = { ...batch.end, documents: this.confirmed.documents + batch.documents };
    }
    return progressed;
  }
}
