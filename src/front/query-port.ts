// The front's end of a shard worker's query port: one QueryBatch posted per call, answered in order.
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

interface WaitingBatch {
  resolve: (answer: ArrayBuffer) => void;
  reject: (error: Error) => void;
}

export class QueryPort {
  /** Batches posted and not yet answered, oldest first: the worker answers strictly in order. */
  private readonly waiting: WaitingBatch[] = [];
  private failure: Error | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: ArrayBuffer) => this.waiting.shift()?.resolve(answer));
  }

  /** Transfers the batch (its buffer is detached here) and resolves with the worker's QueryBatchResult. */
  readonly run = (batch: ArrayBuffer): Promise<ArrayBuffer> => {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.port.postMessage(batch, [batch]);
    });
  };

  /** The worker died: what it was sent will never be answered, and nothing more is sent. */
  fail(error: Error): void {
    this.failure = error;
    for (const batch of this.waiting.splice(0)) batch.reject(error);
  }

  close(): void {
    this.fail(new Error('The server is shutting down.'));
    this.port.close();
  }
}
