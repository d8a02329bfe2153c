// Quiet-time work that waits for the searches to pause (issue 19: the first window after a bulk load).
// The scheduler asks for the shard snapshots ~2 s after its last commit (SnapshotTrigger), so after a
// bulk load the save (encoding, CRC, file writes: ~0.3-0.7 s of the worker at 100k npm rows) ran in
// slices between the first searches, ~5-10% of the worker in the first 10-20 s under 64 connections
// (CPU profile of bench/cold-start-probe.mjs, 2 s buckets). Its steps now run only once no query batch
// came for SEARCH_QUIET_MS, or once it waited QUIET_WAIT_MAX_MS in all (a snapshot only speeds up a
// restart: under searches that never pause it is still saved within a minute).
// Owner: one per shard worker (worker.ts), told of every query batch.
import type { SlicedJob } from './sliced-jobs.js';

export const SEARCH_QUIET_MS = 200;
export const QUIET_WAIT_MAX_MS = 60_000;

export class SearchActivity {
  private lastBatchAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly quietMs = SEARCH_QUIET_MS,
    private readonly maxWaitMs = QUIET_WAIT_MAX_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A query batch arrived. */
  noteBatch(): void {
    this.lastBatchAt = this.now();
  }

  /**
   * `steps` with a wait before each while searches come (a promise yielded: the sliced job waits
   * without holding the thread). Cancelling the job runs `steps`' own finally blocks.
   */
  *whenSearchesPause(steps: SlicedJob): SlicedJob {
    const since = this.now();
    try {
      for (;;) {
        for (;;) {
          const now = this.now();
          const quietIn = this.lastBatchAt + this.quietMs - now;
          if (quietIn <= 0 || now - since >= this.maxWaitMs) break;
          yield new Promise<void>((resolve) => setTimeout(resolve, Math.min(quietIn, since + this.maxWaitMs - now) + 1));
        }
        const step = steps.next();
        if (step.done) return;
        yield step.value;
      }
    } finally {
      steps.return();
    }
  }
}
