// sort: one rule per criterion of the query's `sort` parameter (placed where `sort` is in the
// ranking rules), and the custom `field:asc|desc` ranking rules. The shard supplies a SortOrder that
// lists the universe in groups of equal sort key, ascending; each group becomes one bucket whose
// scores are the key's SORT_KEY_WIDTH entries (sort-key.ts), absolute so shards merge exactly.
import roaring from 'roaring';
import { TIMED_OUT_SCORE, type Bucket, type RankingRule } from '../ranking-rule.js';
import type { ActiveTerms, SearchContext } from '../search-context.js';

const { RoaringBitmap32 } = roaring;

export interface SortGroup {
  docIds: roaring.RoaringBitmap32;
  key: readonly number[];
}

/** Disjoint groups covering the universe, in ascending key order (lazily: the bucket sort stops early). */
export interface SortOrder {
  /** Entries of every group's key (SORT_KEY_WIDTH for the shard's orders). */
  readonly width: number;
  groups(universe: roaring.RoaringBitmap32): Iterator<SortGroup>;
}

export class SortRule implements RankingRule {
  private terms: ActiveTerms = [];
  private iterator: Iterator<SortGroup> | null = null;
  private emitted = new RoaringBitmap32();

  constructor(readonly name: string, private readonly order: SortOrder) {}

  /** Score entries this rule adds to each hit. */
  get width(): number {
    return this.order.width;
  }

  start(_ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): void {
    this.terms = terms;
    this.emitted = new RoaringBitmap32();
    this.iterator = this.order.groups(universe);
  }

  nextBucket(ctx: SearchContext, universe: roaring.RoaringBitmap32): Bucket | null {
    if (!this.iterator) return null;
    if (Date.now() > ctx.deadline) {
      this.iterator = null;
      const rest = RoaringBitmap32.andNot(universe, this.emitted);
      if (rest.isEmpty) return null;
      const scores = new Array<number>(this.order.width).fill(TIMED_OUT_SCORE);
      return { candidates: rest, score: TIMED_OUT_SCORE, scores, terms: this.terms };
    }
    for (;;) {
      const next = this.iterator.next();
      if (next.done) {
        this.iterator = null;
        return null;
      }
      const candidates = RoaringBitmap32.and(next.value.docIds, universe);
      if (candidates.isEmpty) continue;
      this.emitted.orInPlace(candidates);
      return { candidates, score: next.value.key[0]!, scores: next.value.key, terms: this.terms };
    }
  }

  end(): void {
    this.iterator = null;
    this.emitted = new RoaringBitmap32();
  }
}
