// Long background work of a shard worker (quiet-time snapshot saves, full builds of the structures
// searches use) cut into slices of a few milliseconds, so that the query batches arriving meanwhile
// are answered between two slices instead of waiting seconds behind the whole job.
//
// A job is a generator: each `yield` ends a step (a bounded piece of work); yielding a promise waits
// for it (a file write) without running other steps of that job. Jobs run one at a time, in the
// order they were queued; a key queued again while its job is pending is ignored. Cancelling runs the
// jobs' `finally` blocks (generator.return), which is where a job undoes what it must not leave.

export type SlicedJob = Generator<Promise<unknown> | void, void, unknown>;

/**
 * Work per step of a sliced job (each ~1-2 ms); tests lower them to get many steps. documentsPerStep:
 * documents a build visits (forward-index reading); the snapshot encode (shard/snapshot/): bitmaps
 * serialized, words listed, and bytes checksummed per step.
 */
export const SLICE_POLICY = { documentsPerStep: 4096, bitmapsPerStep: 1024, wordsPerStep: 4096, bytesPerStep: 1 << 20 };

/** Whether a sliced job at item `index` should end its step first, `perStep` items a step (SLICE_POLICY). */
export function stepEndsEvery(index: number, perStep: number): boolean {
  return index > 0 && index % perStep === 0;
}

/** Whether a sliced build visiting documents[index] should end its step first. */
export function stepEndsAt(index: number): boolean {
  return index > 0 && index % SLICE_POLICY.documentsPerStep === 0;
}

export interface SlicedJobsOptions {
  /** Milliseconds of steps per turn of the event loop. */
  sliceMs?: number;
  /** How the next slice is scheduled (tests drive slices by hand). */
  schedule?: (run: () => void) => void;
  now?: () => number;
  onError?: (key: unknown, cause: unknown) => void;
}

/**
 * A job searches wait on (they take slower paths until it ends) gets CATCH_UP_SHARE times as long as
 * the work between its slices took (query batches, writes), up to CATCH_UP_MAX_SLICE_MS (the longest
 * a query batch waits behind one slice), so that it ends soon after a light load starts it. Under a
 * full load no share was good enough: at 1M documents, right after a bulk load under 16 connections,
 * the searches on the slow paths answered 788 queries in 25 s with an equal share and 274 with this
 * one, against 4,001 when everything was built at once (none in the first 15 s); full query batches
 * build at once instead (ShardEngine.prepareStaleShards).
 */
export const CATCH_UP_SHARE = 3;
export const CATCH_UP_MAX_SLICE_MS = 1000;

export interface JobOptions {
  /** Searches wait on it: a fair share of the thread, not just the gaps between messages (CATCH_UP_MAX_SLICE_MS). */
  catchUp?: boolean;
  /** With catchUp: the longest a catch-up slice of it may run before a query batch (default CATCH_UP_MAX_SLICE_MS). */
  maxSliceMs?: number;
  /** Called once when the job leaves the queue: finished, failed or cancelled (started or not). */
  onLeave?: () => void;
  /**
   * Runs only while no other job waits: a job queued later goes ahead of it, even once it started (it
   * resumes after). A warm-up (worker.ts) must never hold a build a commit waits for.
   */
  idle?: boolean;
}

interface Entry {
  key: unknown;
  start: () => SlicedJob;
  job: SlicedJob | null;
  options: JobOptions;
}

export class SlicedJobs {
  private readonly queue: Entry[] = [];
  /** A slice is scheduled. */
  private scheduled = false;
  /** The running job waits for the promise its step yielded (its outcome is the job's to read). */
  private awaiting = false;
  /** Bumped by cancelAll: a promise settling after it belongs to a cancelled job. */
  private epoch = 0;
  /** When the last slice ended (null: none since the queue was last empty); what ran since is what a catch-up slice matches. */
  private lastSliceEnd: number | null = null;
  private readonly sliceMs: number;
  private readonly schedule: (run: () => void) => void;
  private readonly now: () => number;
  private readonly onError: (key: unknown, cause: unknown) => void;

  constructor(options: SlicedJobsOptions = {}) {
    this.sliceMs = options.sliceMs ?? 4;
    this.schedule = options.schedule ?? ((run) => setImmediate(run));
    this.now = options.now ?? (() => performance.now());
    this.onError = options.onError ?? (() => {});
  }

  /** Jobs queued or running. */
  get pending(): number {
    return this.queue.length;
  }

  /** Keys are compared by identity (a shard, the snapshot keeper...). */
  has(key: unknown): boolean {
    return this.queue.some((entry) => entry.key === key);
  }

  /** Queues the job `start` makes (made when its turn comes), unless one with this key is pending; ahead of idle jobs. */
  enqueue(key: unknown, start: () => SlicedJob, options: JobOptions = {}): void {
    if (this.has(key)) return;
    const entry: Entry = { key, start, job: null, options };
    // Ahead of the idle jobs, but never of the one awaiting a promise (the first: its resume runs it).
    const from = this.awaiting ? 1 : 0;
    const at = options.idle === true ? -1 : this.queue.findIndex((queued, index) => index >= from && queued.options.idle === true);
    if (at < 0) this.queue.push(entry);
    else this.queue.splice(at, 0, entry);
    this.wake();
  }

  /** Stops every job but the one of key `except` (their finally blocks run now) and forgets them. */
  cancelAll(except?: unknown): void {
    this.cancelWhere((key) => except === undefined || key !== except);
  }

  /** Stops the job of this key, if queued. */
  cancel(key: unknown): void {
    this.cancelWhere((queued) => queued === key);
  }

  private cancelWhere(matches: (key: unknown) => boolean): void {
    const entries = this.queue.filter((entry) => matches(entry.key));
    if (entries.length === 0) return;
    // A job awaiting a promise is the first one: cancelled, nothing awaits any more.
    if (entries[0] === this.queue[0]) {
      this.epoch++;
      this.awaiting = false;
    }
    this.queue.splice(0, this.queue.length, ...this.queue.filter((entry) => !matches(entry.key)));
    for (const entry of entries) {
      try {
        entry.job?.return();
      } catch (cause) {
        this.onError(entry.key, cause);
      }
      this.left(entry);
    }
    this.wake();
  }

  /** Runs every queued job to its end now, without slices (tests; a shutdown). Promises are not awaited. */
  drainSync(): void {
    while (this.queue.length > 0) this.step(Infinity);
  }

  private wake(): void {
    if (this.scheduled || this.awaiting || this.queue.length === 0) return;
    this.scheduled = true;
    this.schedule(() => this.runSlice());
  }

  private runSlice(): void {
    this.scheduled = false;
    this.slice();
    this.wake();
  }

  /**
   * A slice now, when a catch-up job is queued (the shard worker calls it before each query
   * batch): under a steady load of searches their batches wait in the thread's port back to back,
   * and Node hands them over one after the other without reaching the scheduled slices (measured:
   * a near-pair build got 2.7% of the worker while searches waited on it).
   */
  runCatchUpSlice(): void {
    if (!this.catchingUp()) return;
    this.slice();
    this.wake();
  }

  private slice(): void {
    if (this.awaiting) return;
    const start = this.now();
    const sinceLastSlice = this.lastSliceEnd === null ? 0 : start - this.lastSliceEnd;
    this.step(start + (this.catchingUp() ? Math.min(this.catchUpCap(), Math.max(this.sliceMs, CATCH_UP_SHARE * sinceLastSlice)) : this.sliceMs));
    this.lastSliceEnd = this.queue.length === 0 ? null : this.now();
  }

  /** A catch-up job is queued: the jobs before it (a snapshot save queued first at quiet time) get its share too, or it would wait behind them. */
  private catchingUp(): boolean {
    return this.queue.some((entry) => entry.options.catchUp === true);
  }

  /** The longest catch-up slice the queued catch-up jobs allow. */
  private catchUpCap(): number {
    let cap = CATCH_UP_MAX_SLICE_MS;
    for (const entry of this.queue) if (entry.options.catchUp === true) cap = Math.min(cap, entry.options.maxSliceMs ?? CATCH_UP_MAX_SLICE_MS);
    return cap;
  }

  private left(entry: Entry): void {
    try {
      entry.options.onLeave?.();
    } catch (cause) {
      this.onError(entry.key, cause);
    }
  }

  /** Runs steps until the deadline, a promise to await, or an empty queue. */
  private step(deadline: number): void {
    while (this.queue.length > 0) {
      const entry = this.queue[0]!;
      let result: IteratorResult<Promise<unknown> | void>;
      try {
        entry.job ??= entry.start();
        result = entry.job.next();
      } catch (cause) {
        this.onError(entry.key, cause);
        this.queue.shift();
        this.left(entry);
        continue;
      }
      if (result.done) {
        this.queue.shift();
        this.left(entry);
      } else if (result.value instanceof Promise) {
        if (deadline === Infinity) continue;
        const epoch = this.epoch;
        this.awaiting = true;
        const resume = (): void => {
          if (epoch !== this.epoch) return; // cancelled meanwhile: cancelAll ran the job's finally
          this.awaiting = false;
          this.wake();
        };
        result.value.then(resume, resume);
        return;
      }
      if (this.now() >= deadline) return;
    }
  }
}


/** Runs a generator of steps to its end at once and gives its result (a sliced build called synchronously). */
export function finishSteps<T>(steps: Generator<unknown, T, unknown>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The build's steps while `stale()` holds before each (it is stopped, unfinished, once not). */
export function* whileStale(stale: () => boolean, build: Generator<void, void, unknown>): Generator<void, void, unknown> {
  try {
    while (stale()) {
      if (build.next().done) return;
      yield;
    }
  } finally {
    build.return();
  }
}
