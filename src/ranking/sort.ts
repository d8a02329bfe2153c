// sort: applies the query's `sort` parameter at this place of the ranking rules. Without `sort` in
// the query it does nothing and is left out (rules-from-settings.ts). With it: for now one bucket
// (score 0) — SEAM for the search issue, which replaces this with buckets by sort values.
import type roaring from 'roaring';
import type { Bucket, RankingRule } from './ranking-rule.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

export class SortRule implements RankingRule {
  readonly name = 'sort';
  private terms: ActiveTerms = [];
  private done = false;

  constructor(readonly sortCriteria: readonly string[]) {}

  start(_ctx: SearchContext, _universe: roaring.RoaringBitmap32, terms: ActiveTerms): void {
    this.terms = terms;
    this.done = false;
  }

  nextBucket(_ctx: SearchContext, universe: roaring.RoaringBitmap32): Bucket | null {
    if (this.done || universe.isEmpty) return null;
    this.done = true;
    return { candidates: universe.clone(), score: 0, terms: this.terms };
  }

  end(): void {
    this.done = true;
  }
}
