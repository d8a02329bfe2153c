// One search's time on a shard worker: its deadline (the index's searchCutoffMs, 1500 ms unset, as
// Meilisearch's), and the yield points where a search that has run a slice lets the worker answer
// searches that arrived meanwhile (worker.ts runs them nested, on this search's stack). Every phase
// of a search asks `passed()` between steps: filter conditions, facet values, sort groups, distinct
// keys, geo points, and the ranking rules (through SearchContext.deadline).

/** How long a heavy search (protocol/search-weight.ts) runs before a yield point lets waiting searches in. */
export const SLICE_MS = 4;
/**
 * The same for the others, which rarely run that long: on a loaded machine (the OS taking the thread
 * away for milliseconds) a short slice made light searches answer the next batch nested, and so the
 * front send smaller batches. Their budget still yields every SLICE_MS: the worker answers the rest of
 * their own batch at the first yield point, and reads the port only after this (worker.ts NestedBatches).
 */
export const LIGHT_SLICE_MS = 20;

/** Runs the searches waiting for the worker (nested), or nothing. */
export type Interleave = () => void;

export class SearchBudget {
  private nextSlice: number;
  /** Some phase stopped early at the deadline (the answer is degraded, as Meilisearch's). */
  cutShort = false;

  /** `deadline`: a Date.now() timestamp; `sliceMs`: how long the search runs between two interleaves. */
  constructor(readonly deadline: number, private readonly interleave: Interleave | null = null, private readonly sliceMs = SLICE_MS) {
    this.nextSlice = interleave === null ? Infinity : performance.now() + sliceMs;
  }

  /** A budget that never runs out nor yields (tests, the bench's direct calls). */
  static unbounded(): SearchBudget {
    return new SearchBudget(Infinity);
  }

  /** A yield point; true once the deadline is past (the caller then stops refining). */
  passed(): boolean {
    this.yieldPoint();
    if (Date.now() <= this.deadline) return false;
    this.cutShort = true;
    return true;
  }

  /** Lets waiting searches run when this one has had its slice. */
  yieldPoint(): void {
    if (this.interleave === null || performance.now() < this.nextSlice) return;
    this.interleave();
    this.nextSlice = performance.now() + this.sliceMs;
  }
}
