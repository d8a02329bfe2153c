// The near-pair build's passes over the documents in a thread of their own, beside the shard worker
// (NearPairPostings.buildElsewhereSteps): the pre-commit build after a bulk load is the worker's alone
// while the other threads wait for it, and the near-pair passes were half of it (1.76 of 3.5 s of CPU
// at 1M npm rows); the worker builds the other structures meanwhile. The job carries copies (the
// arena up to its last record, the documents' offsets); the answer is the tables' arrays, made by the
// same code as a build on the worker (nearPairTablesOf), so the tables are the same.
// One thread per shard worker, started when first needed and kept (unref'd: it never holds the
// process); a job at a time; if the thread fails, its job's promise rejects and the caller builds on
// the worker.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { nearPairTablesOf, type NearPairPassJob } from './near-pair-postings.js';
import type { PairTableState } from './pair-table.js';

const THREAD_MARK = 'skein-near-pair-passes';

if (!isMainThread && workerData === THREAD_MARK && parentPort !== null) {
  const port = parentPort;
  port.on('message', (job: NearPairPassJob) => {
    const states = nearPairTablesOf(job);
    const buffers = states.flatMap((state) => [state.keys.buffer, state.starts.buffer, state.docIds.buffer, ...(state.tags === null ? [] : [state.tags.buffer])]);
    port.postMessage(states, buffers as ArrayBuffer[]);
  });
}

/** The client the shard worker holds (ShardEngine.nearPairPasses): one thread, one job at a time, in order. */
export class NearPairThread {
  private thread: Worker | null = null;
  private readonly waiting: { resolve: (states: PairTableState[]) => void; reject: (cause: unknown) => void }[] = [];

  /** The tables of the job, built in the thread (rejects when the thread fails or exits). */
  passes(job: NearPairPassJob): Promise<PairTableState[]> {
    const thread = this.started();
    return new Promise((resolve, reject) => {
      // The copies go to the thread (transferred); the plan's arrays stay with the worker (cloned).
      thread.postMessage(job, [job.arena.buffer, job.offsets.buffer, job.documents.buffer] as ArrayBuffer[]);
      this.waiting.push({ resolve, reject });
    });
  }

  /** Ends the thread (jobs waiting are rejected). */
  close(): void {
    const thread = this.thread;
    this.thread = null;
    void thread?.terminate();
    this.failAll(new Error('near-pair thread closed'));
  }

  private started(): Worker {
    if (this.thread !== null) return this.thread;
    const thread = new Worker(new URL(import.meta.url), { workerData: THREAD_MARK });
    thread.unref();
    thread.on('message', (states: PairTableState[]) => this.waiting.shift()?.resolve(states));
    const failed = (cause: unknown) => {
      if (this.thread === thread) this.thread = null;
      this.failAll(cause);
    };
    thread.on('error', failed);
    thread.on('exit', (code) => failed(new Error(`near-pair thread exited (${code})`)));
    this.thread = thread;
    return thread;
  }

  private failAll(cause: unknown): void {
    for (const waiter of this.waiting.splice(0)) waiter.reject(cause);
  }
}
