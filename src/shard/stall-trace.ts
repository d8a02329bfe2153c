// Diagnostic (issue 19, the latency tail): when SKEIN_STALL_TRACE names a directory, a shard worker
// records its timeline there (`worker-<index>.ndjson`, appended about once a second): the query batches
// it answered at the top level and nested (start, end, searches), the scheduler's commands (a write
// batch's span holds the searches answered at its yield points, also recorded as nested batches), the
// background slices (sliced builds, saves), its collector's pauses (perf_hooks 'gc' entries) and each
// answer posted to the front, with the scheduler counters then of this thread and of the front's
// (the process's main thread; /proc/.../schedstat: ns run on a core and ns waited runnable for one,
// cumulative, a running thread's run time as of its last scheduler tick; absent without procfs), so
// a gap between answers splits into the worker running, waiting for a core (other threads and
// processes had both) and sleeping (no batch to answer), and a sleep into the front running, waiting
// for a core, or itself waiting for requests. Times are µs on the monotonic clock (process.hrtime, as
// bench/mixed-probe.ts stamps its phases). bench/stall-attribution.mjs cuts a timeline into the gaps
// between answers and says what filled the long ones. Off (null) unless the variable is set.
//
// Owner: the worker module (worker.ts, `stallTrace`), one per thread; its buffer holds at most a
// second of events between flushes, and it holds two schedstat file descriptors (96-byte read buffer
// each) for the thread's life.
import { appendFileSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import roaring from 'roaring';

/** `search`: one search of 10 ms or more of its own time (detail: its ms and query). */
export type StallSpanKind = 'batch' | 'nested' | 'command' | 'background' | 'search';

export class StallTrace {
  private lines: string[] = [];
  /** µs to add to performance.now() × 1000 for the monotonic clock (hrtime). */
  private readonly offsetUs: number;
  private readonly file: string;
  private readonly observer: PerformanceObserver;
  private readonly timer: NodeJS.Timeout;
  /** Scheduler counters of this thread and of the front's (null without procfs). */
  private readonly schedstat: SchedulerCounters | null;
  private readonly frontSchedstat: SchedulerCounters | null;

  static fromEnvironment(workerIndex: number): StallTrace | null {
    const directory = process.env.SKEIN_STALL_TRACE;
    return directory ? new StallTrace(directory, workerIndex) : null;
  }

  private constructor(directory: string, workerIndex: number) {
    mkdirSync(directory, { recursive: true });
    this.file = join(directory, `worker-${workerIndex}.ndjson`);
    this.offsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) this.gc(entry);
    });
    this.observer.observe({ entryTypes: ['gc'] });
    this.timer = setInterval(() => this.flush(), 1000);
    this.timer.unref();
    this.schedstat = SchedulerCounters.open('/proc/thread-self/schedstat');
    this.frontSchedstat = SchedulerCounters.open(`/proc/self/task/${process.pid}/schedstat`);
  }

  /** performance.now() on the trace's clock (µs). */
  private us(ms: number): number {
    return Math.round(ms * 1000 + this.offsetUs);
  }

  span(kind: StallSpanKind, startMs: number, endMs: number, detail: number | string = 0): void {
    this.lines.push(`{"k":"${kind}","s":${this.us(startMs)},"e":${this.us(endMs)},"d":${JSON.stringify(detail)}}`);
  }

  /** An answer (whole, partial or nested) posted to the front now, with [run, wait] ns so far of this thread (q) and the front's (f). */
  posted(): void {
    const own = this.schedstat?.read() ?? null;
    const front = this.frontSchedstat?.read() ?? null;
    this.lines.push(`{"k":"post","s":${this.us(performance.now())}${own === null ? '' : `,"q":${own}`}${front === null ? '' : `,"f":${front}`}}`);
  }

  private gc(entry: PerformanceEntry): void {
    const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
    // kind: perf_hooks.constants.NODE_PERFORMANCE_GC_*: 1 minor (scavenge), 4 major (mark-compact), 8 incremental marking, 16 weak callbacks.
    this.lines.push(`{"k":"gc","s":${this.us(entry.startTime)},"e":${this.us(entry.startTime + entry.duration)},"d":${detail?.kind ?? 0}}`);
  }

  flush(): void {
    // The heap's size and the live RoaringBitmap32 objects (each dead one is freed inside a collector's pause).
    this.lines.push(`{"k":"heap","s":${this.us(performance.now())},"d":[${roaring.RoaringBitmap32.getInstancesCount()},${process.memoryUsage().heapUsed}]}`);
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    try {
      appendFileSync(this.file, text);
    } catch {
      // a diagnostic: lost lines are no failure
    }
  }
}

/** One thread's schedstat file, opened once and read again from its start (owner: a StallTrace). */
class SchedulerCounters {
  private readonly bytes = Buffer.alloc(96);

  private constructor(private readonly fd: number) {}

  static open(path: string): SchedulerCounters | null {
    try {
      return new SchedulerCounters(openSync(path, 'r'));
    } catch {
      return null; // no procfs: answers are posted without the counters
    }
  }

  /** `[run ns,runnable-wait ns]` so far, or null when it cannot be read. */
  read(): string | null {
    try {
      const length = readSync(this.fd, this.bytes, 0, this.bytes.length, 0);
      const [run, wait] = this.bytes.toString('latin1', 0, length).split(' ');
      return `[${Number(run)},${Number(wait)}]`;
    } catch {
      return null;
    }
  }
}
