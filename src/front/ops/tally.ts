// A histogram as plain numbers: what the hot path records (a few array writes, no allocation, no
// label hashing). prom-client's own Histogram hashes its label object on every observe (~0.6 µs
// for a counter and a histogram per request, measured; this: under 0.03 µs); metrics.ts turns
// tallies into Prometheus text at scrape time.

export class Tally {
  /** counts[i]: observations ≤ bounds[i] and > bounds[i-1]; the last slot: above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let slot = 0;
    while (slot < bounds.length && value > bounds[slot]!) slot++;
    this.counts[slot]!++;
    this.sum += value;
    this.count++;
  }
}

/** Meilisearch's meilisearch_http_response_time_seconds buckets. */
export const HTTP_RESPONSE_TIME_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] as const;
/** A shard worker's batch round trip: searches take a millisecond or less, a cut-off one 1.5 s. */
export const BATCH_TIME_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;
/** Searches per QueryBatch (at most MAX_QUERIES_PER_BATCH, 16). */
export const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16] as const;
