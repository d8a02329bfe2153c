// The bucket sort (milli's bucket_sort.rs): the first rule splits the universe into ordered buckets,
// each bucket is split by the next rule, and so on; the last level lists documents by ascending id.
// It stops as soon as `hitsWanted` documents are placed, so later buckets are never refined.
// Consecutive rules that can score a single document (RankingRule.scoreDocument) are applied
// together, one profile read per document (score-chain.ts).
import type roaring from 'roaring';
import type { RankingRule } from './ranking-rule.js';
import type { ActiveTerms, SearchContext } from './search-context.js';
import { visitScoreChainGroups } from './scores/score-chain.js';

export interface RankedHit {
  docId: number;
  /** One entry per rule (lower is better), compared lexicographically, then docId ascending. */
  score: number[];
}

/**
 * rankingScoreThreshold: `below` tells a bucket's full score is under it; the sort then stops there
 * (scores never rise along the bucket order, score-details.ts) and sets `reached`: the hits placed
 * are then every document at or above the threshold.
 */
export interface ScoreFloor {
  below(score: readonly number[]): boolean;
  reached: boolean;
}

export function bucketSort(ctx: SearchContext, rules: readonly RankingRule[], universe: roaring.RoaringBitmap32,
  terms: ActiveTerms, hitsWanted: number, floor?: ScoreFloor): RankedHit[] {
  const hits: RankedHit[] = [];
  const path: number[] = [];
  const emit = (docIds: ArrayLike<number>) => {
    if (docIds.length === 0) return;
    // One array for the hits of a bucket: scores are read-only once handed out.
    const score = path.slice();
    if (floor !== undefined && floor.below(score)) {
      floor.reached = true;
      // Every loop below stops once as many hits as wanted are placed.
      hitsWanted = hits.length;
      return;
    }
    for (let k = 0; k < docIds.length && hits.length < hitsWanted; k++) hits.push({ docId: docIds[k]!, score });
  };
  /** The rules of the scoring chain starting at each depth (one array per depth, not per bucket). */
  const chains: (readonly RankingRule[] | undefined)[] = [];
  const visit = (depth: number, bucket: roaring.RoaringBitmap32, bucketTerms: ActiveTerms): void => {
    if (hits.length >= hitsWanted || bucket.isEmpty) return;
    if (depth === rules.length) {
      emit(bucket.toUint32Array(hitsWanted - hits.length));
      return;
    }
    const chainEnd = endOfScoringChain(rules, depth);
    if (chainEnd > depth) {
      const isLast = chainEnd === rules.length;
      const chain = (chains[depth] ??= rules.slice(depth, chainEnd));
      visitScoreChainGroups(ctx, chain, bucket, bucketTerms, isLast ? hitsWanted - hits.length : Infinity, (group) => {
        // A loop, not push(...scores): the spread's argument list showed among a query's garbage.
        for (let r = 0; r < group.scores.length; r++) path.push(group.scores[r]!);
        if (isLast) emit(group.docIds);
        else visit(chainEnd, group.bitmap(), bucketTerms);
        path.length -= group.scores.length;
        return hits.length < hitsWanted;
      });
      return;
    }
    const rule = rules[depth]!;
    rule.start(ctx, bucket, bucketTerms);
    try {
      while (hits.length < hitsWanted) {
        const next = rule.nextBucket(ctx, bucket);
        if (next === null) break;
        const entries = next.scores ?? [next.score];
        path.push(...entries);
        visit(depth + 1, next.candidates, next.terms);
        path.length -= entries.length;
      }
    } finally {
      rule.end();
    }
  };
  visit(0, universe, terms);
  return hits;
}

function endOfScoringChain(rules: readonly RankingRule[], depth: number): number {
  let end = depth;
  while (end < rules.length && rules[end]!.scoreDocument !== undefined) end++;
  return end;
}

/** Lexicographic on scores, then docId: the one order every merge of hits uses. */
export function compareRankedHits(a: RankedHit, b: RankedHit): number {
  const length = Math.min(a.score.length, b.score.length);
  for (let k = 0; k < length; k++) if (a.score[k] !== b.score[k]) return a.score[k]! - b.score[k]!;
  if (a.score.length !== b.score.length) return a.score.length - b.score.length;
  return a.docId - b.docId;
}
