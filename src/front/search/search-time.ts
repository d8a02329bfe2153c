// processingTimeMs as Meilisearch counts it: its search runs on a blocking thread and is timed from
// inside, from the start of the search to its hits made (Rust's Duration::as_millis, truncated), so
// neither the body's parsing, the index lookup (both before) nor the hop to that thread count. Here the
// routes time from after the index lookup; the front's own work counts, and its wait for the shard
// workers counts as the slowest worker's own time on the search (ShardQueryResultMessage.searchMs: not
// the hop to the worker and back, the wait in its port, nor the searches it answered inside it).
import type { ShardQueryResultMessage } from '../../protocol/messages.js';

/** The slowest worker's time on the search; undefined when a result was not timed (a remote's: its wait counts whole). */
export function slowestWorkerMs(results: readonly ShardQueryResultMessage[]): number | undefined {
  let slowest = 0;
  for (const result of results) {
    if (result.searchMs === undefined) return undefined;
    if (result.searchMs > slowest) slowest = result.searchMs;
  }
  return slowest;
}

/**
 * Whole milliseconds of a search the front spent `elapsedMs` on, `waitedMs` of which waiting for the
 * workers, who spent `workersMs` of it on the search (undefined: the wait counts).
 */
export function processingTimeOf(elapsedMs: number, waitedMs: number, workersMs: number | undefined): number {
  if (workersMs === undefined) return Math.floor(elapsedMs);
  return Math.floor(Math.max(0, elapsedMs - waitedMs + Math.min(workersMs, waitedMs)));
}
