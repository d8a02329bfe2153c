// The one interface of ranking rules, after milli's ranking_rules.rs.
//
// Invariants every rule keeps:
// 1. start(ctx, universe, terms) is called once before nextBucket, end() once after the last call;
//    the same rule object may be started again afterwards for another universe.
// 2. nextBucket(ctx, universe) receives a subset of the start universe and returns a bucket that is a
//    subset of it, disjoint from every bucket returned since start; null once the universe is used up.
// 3. Buckets come in strictly ascending score order; lower is better.
// 4. A bucket's score is a function of the query and of each of its documents alone — never of the
//    other documents in the universe or the shard — so hits from different shards compare exactly.
// 5. Past ctx.deadline a rule returns everything left of its universe as one bucket scored TIMED_OUT_SCORE.
// 6. A bucket carries the terms the next rules must consider (only the words rule changes them).
import type roaring from 'roaring';
import type { ActiveTerms, SearchContext } from './search-context.js';
import type { DocMatchProfile } from './match-profile.js';
import type { OrderedPart } from './scores/score-layers.js';

export interface Bucket {
  candidates: roaring.RoaringBitmap32;
  score: number;
  /** When the rule scores with several entries (sort keys): all of them, `score` being the first. */
  scores?: readonly number[];
  terms: ActiveTerms;
}

export interface RankingRule {
  readonly name: string;
  start(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): void;
  nextBucket(ctx: SearchContext, universe: roaring.RoaringBitmap32): Bucket | null;
  end(): void;
  /**
   * Optional: the score this rule gives one document (what its buckets would put it under). Rules
   * that have it and follow each other are applied by the bucket sort in one pass per document
   * (one profile read instead of one per rule); the order is the same as bucket by bucket.
   * `ceiling` (Infinity when absent): when the score is above it, any value above it may be returned
   * instead (the caller only needs to know the document is out; it may stop counting early).
   */
  scoreDocument?(ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms, ceiling?: number): number;
  /**
   * Optional with scoreDocument: the universe in parts such that every document of a part scores
   * strictly lower with this rule than every document of a later part (found from bitmaps, without
   * reading documents), so the chain scores only the first parts. A part's score, when set, is the
   * score of each of its documents. Null when it cannot tell. May be lazy (a generator): the chain
   * stops taking parts once they hold the hits it needs.
   */
  orderedParts?(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null;
  /**
   * Optional with orderedParts: universes up to this size cost less read document by document than
   * split (the score chain's default otherwise).
   */
  readonly readDirectlyMax?: number;
  /** Optional with scoreDocument: the score when it is the same for every document (nothing to read), else null. */
  constantScore?(ctx: SearchContext, terms: ActiveTerms): number | null;
}

/** Worse than any real score: where documents land when the search ran out of time. */
export const TIMED_OUT_SCORE = 2 ** 31;
