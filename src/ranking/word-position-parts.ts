// wordPosition's buckets from bitmaps: with each term's documents per position (the shard's position
// postings, positions below a limit) the universe splits by score where that score is certain, so the
// score chain only reads the documents of the best buckets (score-chain.ts).
import roaring from 'roaring';
import { positionCost } from './word-position.js';
import { bestCostParts, bestCostPartsLazily, partsBySum, type OrderedPart } from './score-layers.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

const { RoaringBitmap32 } = roaring;

/**
 * The universe in parts by ascending wordPosition score, then the rest; every document of a part
 * scores strictly lower than every document of a later part. Null when a term has no position
 * postings (phrases) or sits too far in the query for any cost to be certain.
 */
export function wordPositionParts(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null {
  if (ctx.termDocsByPosition === undefined) return null;
  const costs: roaring.RoaringBitmap32[][] = [];
  let maxSum = Infinity;
  for (const term of terms) {
    const byPosition = ctx.termDocsByPosition(term);
    if (byPosition === null) return null;
    const queryPosition = ctx.terms[term]!.position;
    // Positions from byPosition.length on are unknown: only costs below the cost of the first unknown
    // distance can be told exactly (cost grows with distance).
    const certainCosts = positionCost(Math.max(0, byPosition.length - queryPosition)) - 1;
    if (certainCosts < 0) return null;
    maxSum = Math.min(maxSum, certainCosts);
    const byCost = Array.from({ length: certainCosts + 1 }, () => [] as roaring.RoaringBitmap32[]);
    byPosition.forEach((docs, position) => {
      const cost = positionCost(Math.abs(position - queryPosition));
      if (cost <= certainCosts) byCost[cost]!.push(docs);
    });
    const unions = byCost.map((lists) => RoaringBitmap32.orMany(lists));
    // One term: its parts are its best costs, cut lazily (maxSum is its own certain costs).
    if (terms.length === 1) return bestCostPartsLazily(universe, unions);
    costs.push(bestCostParts(universe, unions));
  }
  // A document of the rest has some term costing more than its certain costs, hence more than maxSum.
  return partsBySum(universe, costs, maxSum === Infinity ? 0 : maxSum);
}
