// The front's end of a shard worker's query port: one QueryBatch posted per call, answered in order
// (or out of order, tagged, when the worker answers it inside a running search).
// Batches travel over a MessagePort of their own rather than as Piscina tasks. Piscina's per-task
// bookkeeping outlives young-generation GCs: in a standalone loop of batches its tasks left ~1.4 MB
// per main-thread scavenge to copy and promote, a bare port under 1 KB. In the server at 64
// connections, with the dispatcher's object spread removed at the same time, the front's CPU per
// search went from 55-63 to 44-46 µs in two of three alternating pairs (the third ran in a slow
// window) and its scavenge survivors from ~1.14 to ~0.79 MB.
//
// A worker that crashes fails its batches in flight and every later one on this port; the front's
// worker supervisor (worker-supervisor.ts) replaces the thread and gives it a new query port.
import type { MessagePort } from 'node:worker_threads';
import type { NestedBatchAnswer } from '../../protocol/messages.js';

interface WaitingBatch {
  resolve: (answer: ArrayBuffer) => void;
  reject: (error: Error) => void;
  onPartial: ((answer: ArrayBuffer) => void) | undefined;
}

export class QueryPort {
  /**
   * Batches posted and not yet answered by number (from 1, as the worker counts them), oldest first
   * (a Map iterates in insertion order). A bare answer is the oldest's; a batch answered inside a
   * running search comes tagged with its number (shard/worker.ts NestedBatches).
   */
  private readonly waiting = new Map<number, WaitingBatch>();
  private posted = 0;
  private failure: Error | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: ArrayBuffer | NestedBatchAnswer) => {
      if (answer instanceof ArrayBuffer) {
        for (const [batch, waiting] of this.waiting) {
          this.waiting.delete(batch);
          waiting.resolve(answer);
          return;
        }
        return;
      }
      const waiting = this.waiting.get(answer.batch);
      // Some of its results, answered while one of its searches runs on: the batch stays in flight.
      if (answer.partial === true) return waiting?.onPartial?.(answer.answer);
      this.waiting.delete(answer.batch);
      waiting?.resolve(answer.answer);
    });
  }

  /**
   * Transfers the batch (its buffer is detached here) and resolves with the worker's QueryBatchResult;
   * `onPartial` gets the results the worker sent ahead of it (QueryBatchResults too), if any.
   */
  readonly run = (batch: ArrayBuffer, onPartial?: (answer: ArrayBuffer) => void): Promise<ArrayBuffer> => {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.set(++this.posted, { resolve, reject, onPartial });
      this.port.postMessage(batch, [batch]);
    });
  };

  /** The worker died: what it was sent will never be answered, and nothing more is sent. */
  fail(error: Error): void {
    this.failure = error;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const batch of waiting) batch.reject(error);
  }

  close(): void {
    this.fail(new Error('The server is shutting down.'));
    this.port.close();
  }
}
