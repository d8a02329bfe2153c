// Named points where a thread dies, for the thread-recovery tests (test/http/thread-recovery.test.ts):
// the shard workers' and the scheduler's. Unlike the scheduler's process failure points
// (src/scheduler/failure-points.ts: SIGKILL of the whole process), reaching an armed point here ends
// only the thread, and the front replaces it (src/front/threads/worker-supervisor.ts).
//
// Points are armed by the front at run time (startServer's `testHooks`, never over HTTP) in a
// SharedArrayBuffer every thread sees; each arming fires once, in whichever generation of the thread
// reaches it first (a replacement does not die again at the same point unless armed again).
import { FAILURE_POINTS } from '../scheduler/failure-points.js';

export const SHARD_THREAD_FAILURE_POINTS = [
  /** A query batch arrived on the query port, before it is searched: the searches in it are in flight. */
  'beforeQueryBatch',
  /** A WriteBatch arrived on the scheduler's port, before it is applied: the batch's shards are mid-apply. */
  'beforeWriteBatch',
  /** Right after the worker posted its ack of a WriteBatch: the scheduler may commit the batch while the worker is replaced. */
  'afterWriteBatchAck',
  /** The attach task, before the worker loads its shards (a replacement dying while it loads). */
  'beforeLoad',
] as const;

export type ShardThreadFailurePoint = (typeof SHARD_THREAD_FAILURE_POINTS)[number];
/** The scheduler's thread dies at the same named steps its process failure points mark. */
export type SchedulerThreadFailurePoint = (typeof FAILURE_POINTS)[number];

/**
 * exit: process.exit in the thread (an exit without error event); throw: an uncaught error (an error
 * event, then the exit); oom: the thread allocates until its heap is exhausted (ERR_WORKER_OUT_OF_MEMORY:
 * start the server with small shardWorkerResourceLimits, or this takes the machine's memory).
 * pause: not a death, a breakpoint: the thread blocks at the point (Atomics.wait, so nothing else of it
 * runs) until the front releases it (ThreadFailureArming.whenPaused / release), then goes on.
 */
export type ThreadDeath = 'exit' | 'throw' | 'oom' | 'pause';
const DEATH_CODES: Record<ThreadDeath, number> = { exit: 0, throw: 1, oom: 2, pause: 3 };

export type ThreadFailure =
  | { thread: 'shard'; point: ShardThreadFailurePoint; /** Any worker when omitted. */ worker?: number; how?: ThreadDeath }
  | { thread: 'scheduler'; point: SchedulerThreadFailurePoint; how?: 'exit' | 'pause' };

/** Slots of armed failures; each is [state, point code, worker (-1: any), death code]. */
const SLOTS = 16;
const FIELDS = 4;
const IDLE = 0;
const ARMED = 1;
const FIRED = 2;
/** A pause reached: its thread waits on the slot's state until the front sets it to FIRED. */
const PAUSED = 3;

function pointCode(failure: Pick<ThreadFailure, 'thread' | 'point'>): number {
  const names: readonly string[] = failure.thread === 'shard' ? SHARD_THREAD_FAILURE_POINTS : FAILURE_POINTS;
  const index = names.indexOf(failure.point);
  if (index < 0) throw new Error(`unknown ${failure.thread} thread failure point \`${failure.point}\``);
  return (failure.thread === 'shard' ? 100 : 200) + index;
}

/** The front's side: arms failures in the buffer it hands every thread in its workerData. */
export class ThreadFailureArming {
  readonly buffer = new SharedArrayBuffer(SLOTS * FIELDS * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.buffer);

  arm(failure: ThreadFailure): void {
    const code = pointCode(failure);
    for (let slot = 0; slot < SLOTS; slot++) {
      const base = slot * FIELDS;
      const state = Atomics.load(this.slots, base);
      if (state === ARMED || state === PAUSED) continue;
      Atomics.store(this.slots, base + 1, code);
      Atomics.store(this.slots, base + 2, failure.thread === 'shard' ? failure.worker ?? -1 : -1);
      Atomics.store(this.slots, base + 3, DEATH_CODES[failure.how ?? 'exit']);
      Atomics.store(this.slots, base, ARMED);
      return;
    }
    throw new Error(`at most ${SLOTS} thread failures may be armed at once`);
  }

  /** Disarms everything not fired yet, and releases the threads paused. */
  clear(): void {
    for (let slot = 0; slot < SLOTS; slot++) Atomics.compareExchange(this.slots, slot * FIELDS, ARMED, IDLE);
    for (let slot = 0; slot < SLOTS; slot++) this.releaseSlot(slot);
  }

  /** Resolves once a thread reached the armed pause at this point and waits there. */
  async whenPaused(failure: Pick<ThreadFailure, 'thread' | 'point'>): Promise<void> {
    const code = pointCode(failure);
    for (;;) {
      let armed = -1;
      for (let slot = 0; slot < SLOTS; slot++) {
        const base = slot * FIELDS;
        if (this.slots[base + 1] !== code || this.slots[base + 3] !== DEATH_CODES.pause) continue;
        const state = Atomics.load(this.slots, base);
        if (state === PAUSED) return;
        if (state === ARMED) armed = base;
      }
      if (armed < 0) throw new Error(`no pause is armed at ${failure.thread} point \`${failure.point}\``);
      // The thread notifies the slot when it pauses there.
      await waitAsync(this.slots, armed, ARMED).value;
    }
  }

  /** Lets the threads paused at this point go on. */
  release(failure: Pick<ThreadFailure, 'thread' | 'point'>): void {
    const code = pointCode(failure);
    for (let slot = 0; slot < SLOTS; slot++) if (this.slots[slot * FIELDS + 1] === code) this.releaseSlot(slot);
  }

  private releaseSlot(slot: number): void {
    const base = slot * FIELDS;
    if (Atomics.compareExchange(this.slots, base, PAUSED, FIRED) === PAUSED) Atomics.notify(this.slots, base);
  }
}

export class ThreadDeathError extends Error {}

/** Node 20's Atomics.waitAsync (not in this TypeScript lib's typings yet). */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number): { value: Promise<string> | string };
}).waitAsync;

/**
 * A thread's side: `reach(point)` ends the thread when an arming for this point (and worker) is
 * there, and does nothing otherwise (also when the server runs without test hooks: buffer null).
 */
export class ThreadFailurePoints<P extends string> {
  private readonly slots: Int32Array | null;

  constructor(private readonly thread: 'shard' | 'scheduler', buffer: SharedArrayBuffer | null | undefined, private readonly worker = -1) {
    this.slots = buffer ? new Int32Array(buffer) : null;
  }

  /** Whether the server runs with test hooks (failures may be armed). */
  get armed(): boolean {
    return this.slots !== null;
  }

  reach(point: P): void {
    const slots = this.slots;
    if (slots === null) return;
    const code = pointCode({ thread: this.thread, point } as ThreadFailure);
    for (let slot = 0; slot < SLOTS; slot++) {
      const base = slot * FIELDS;
      if (Atomics.load(slots, base) !== ARMED || slots[base + 1] !== code) continue;
      const worker = slots[base + 2]!;
      if (worker !== -1 && worker !== this.worker) continue;
      if (slots[base + 3] === DEATH_CODES.pause) {
        if (Atomics.compareExchange(slots, base, ARMED, PAUSED) !== ARMED) continue;
        Atomics.notify(slots, base);
        while (Atomics.load(slots, base) === PAUSED) Atomics.wait(slots, base, PAUSED);
        continue;
      }
      if (Atomics.compareExchange(slots, base, ARMED, FIRED) !== ARMED) continue;
      const message = `${this.thread} thread failure point ${point} reached`;
      if (slots[base + 3] === DEATH_CODES.throw) throw new ThreadDeathError(message);
      if (slots[base + 3] === DEATH_CODES.oom) exhaustHeap();
      process.exit(70);
    }
  }
}

/** Real heap exhaustion: V8 ends the thread (an error event with ERR_WORKER_OUT_OF_MEMORY) when its limit is reached. */
function exhaustHeap(): never {
  const hog: number[][] = [];
  for (;;) hog.push(new Array<number>(1 << 16).fill(hog.length));
}
