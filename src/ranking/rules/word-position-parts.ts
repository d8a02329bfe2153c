// wordPosition's buckets from bitmaps: with each term's documents per position (the shard's position
// postings, positions below a limit) the universe splits by score where that score is certain, so the
// score chain only reads the documents of the best buckets (score-chain.ts).
import roaring from 'roaring';
import { positionCost } from './word-position.js';
import { bestCostPartsLazily, partsBySumLazily, type OrderedPart } from '../scores/score-layers.js';
import { acceleratorOf, rankingMemosOf, scratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';
import type { RankingMemos } from '../ranking-memos.js';
import { LazyLists, type KeyedLists } from '../keyed-lists.js';
import { isTermsOwnDocs } from './attribute-rank-parts.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * at(cost): the documents holding the term at a position costing that much from `queryPosition`, for
 * costs up to `certainCosts`, each made when first read, reading only the positions of that cost (a
 * position's list may itself be made then: keyed-lists.ts). A cost of one position is that position's
 * list itself (read-only, as the parts' callers treat them); only costs of two positions are unions.
 * Kept in `memo` (RankingMemos.costUnions) per lists and query position: certainCosts follows from the
 * lists' length and the query position.
 */
export function costUnions(byPosition: KeyedLists, queryPosition: number, certainCosts: number,
  memo: RankingMemos['costUnions']): KeyedLists {
  let perQueryPosition = memo.get(byPosition);
  const known = perQueryPosition?.[queryPosition];
  // certainCosts follows from the lists' length and the query position: the memo's is the same.
  if (known !== undefined) return known;
  const unions = new LazyLists(certainCosts + 1, (cost) => {
    const lists: RoaringBitmap32[] = [];
    for (let position = 0; position < byPosition.length; position++) {
      if (positionCost(Math.abs(position - queryPosition)) === cost) lists.push(byPosition.at(position)!);
    }
    return lists.length === 1 ? lists[0]! : RoaringBitmap32.orMany(lists);
  });
  if (perQueryPosition === undefined) memo.set(byPosition, (perQueryPosition = []));
  perQueryPosition[queryPosition] = unions;
  return unions;
}

/**
 * The universe in parts by ascending wordPosition score, then the rest; every document of a part
 * scores strictly lower than every document of a later part. Null when a term has no position
 * postings (phrases) or sits too far in the query for any cost to be certain.
 */
export function wordPositionParts(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null {
  const accelerator = acceleratorOf(ctx);
  const costs: KeyedLists[] = [];
  let maxSum = Infinity;
  for (const term of terms) {
    const byPosition = accelerator.termDocsByPosition(term);
    if (byPosition === null) return null;
    const queryPosition = ctx.terms[term]!.position;
    // Positions from byPosition.length on are unknown: only costs below the cost of the first unknown
    // distance can be told exactly (cost grows with distance).
    const certainCosts = positionCost(Math.max(0, byPosition.length - queryPosition)) - 1;
    if (certainCosts < 0) return null;
    maxSum = Math.min(maxSum, certainCosts);
    const unions = costUnions(byPosition, queryPosition, certainCosts, rankingMemosOf(ctx).costUnions);
    // One term: its parts are its best costs, cut lazily (maxSum is its own certain costs).
    if (terms.length === 1) return bestCostPartsLazily(universe, unions, isTermsOwnDocs(ctx, universe, terms) ? rankingMemosOf(ctx).within : null, scratchOf(ctx));
    costs.push(unions);
  }
  // A document of the rest has some term costing more than its certain costs, hence more than maxSum.
  // Lazily: the score chain mostly takes the first part, which needs only each term's first costs.
  return partsBySumLazily(universe, costs, maxSum === Infinity ? 0 : maxSum, scratchOf(ctx));
}
