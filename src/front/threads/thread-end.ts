// Waiting for a thread that reads LMDB to end itself (ARCHITECTURE.md: a terminate() landing inside an
// LMDB call aborts the process or hangs lmdb-js's cleanup; bench/thread-end-probe.mjs). Used by close()
// for the shard workers and by the dump import at start.
import type { Worker } from 'node:worker_threads';

/**
 * Resolves true once `thread` has exited by itself; if it still runs after `ms`, terminates it (the
 * bounded last resort) and resolves false once it is gone.
 */
export function awaitThreadEnd(thread: Worker, ms: number): Promise<boolean> {
  if (thread.threadId === -1) return Promise.resolve(true);
  return new Promise((settle) => {
    let terminated = false;
    const timer = setTimeout(() => {
      terminated = true;
      void thread.terminate();
    }, ms);
    thread.once('exit', () => {
      clearTimeout(timer);
      settle(!terminated);
    });
  });
}
