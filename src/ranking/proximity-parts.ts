// proximity's best buckets from bitmaps: documents where every consecutive pair of terms is adjacent
// (pair cost 1, the lowest), then those where exactly one pair costs 2, come from the shard's near-pair
// postings, so when two common words share most of a shard only the rest is ever read, and only when
// those buckets hold too few hits (score-chain.ts).
import roaring from 'roaring';
import { partsBySum, type OrderedPart } from './score-layers.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * [score pairs, score pairs + 1, the rest (score null, every one of them > pairs + 1)], empty parts
 * left out; null when the postings cannot tell, when no document has every pair within cost 2, or
 * when a term is a phrase (its pair cost starts from its last word).
 * Lazy: the parts after the first are only worked out when the consumer asks for them. The documents
 * with every pair adjacent usually hold all the hits wanted, and the pairs within cost 2 (three
 * pair tables instead of one) were most of the cost of the split.
 */
export function proximityParts(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null {
  if (terms.length < 2 || ctx.termPairDocsWithin === undefined) return null;
  if (terms.some((term) => ctx.terms[term]!.kind !== 'word')) return null;
  const adjacent = docsWithEveryPairWithin(ctx, terms, 1, universe);
  if (adjacent === null) return null;
  const pairs = terms.length - 1;
  if (adjacent.isEmpty) {
    // Whether anything splits at all must be known now (null: the caller reads every document).
    const later = partsAfterAdjacent(ctx, terms, universe);
    return later === null || later[0]!.score === null ? null : later;
  }
  return adjacentThenLater(ctx, terms, universe, { docs: adjacent, score: pairs });
}

function* adjacentThenLater(ctx: SearchContext, terms: ActiveTerms, universe: RoaringBitmap32, adjacent: OrderedPart): Generator<OrderedPart> {
  yield adjacent;
  if (adjacent.docs.size === universe.size) return;
  const remaining = RoaringBitmap32.andNot(universe, adjacent.docs);
  yield* partsAfterAdjacent(ctx, terms, remaining) ?? [{ docs: remaining, score: null }];
}

/**
 * The parts of `remaining` (no document of which has every pair adjacent): those with exactly one
 * pair at cost 2, then the rest (score null). Null when no document has every pair within cost 2.
 */
function partsAfterAdjacent(ctx: SearchContext, terms: ActiveTerms, remaining: RoaringBitmap32): OrderedPart[] | null {
  const close = docsWithEveryPairWithin(ctx, terms, 2, remaining);
  if (close === null || close.isEmpty) return null;
  const pairs = terms.length - 1;
  let onePairAtTwo: RoaringBitmap32;
  if (pairs === 1) {
    onePairAtTwo = close;
  } else {
    const costs: RoaringBitmap32[][] = [];
    for (let k = 1; k < terms.length; k++) {
      const adjacent = ctx.termPairDocsWithin!(terms[k - 1]!, terms[k]!, 1, close);
      if (adjacent === null) return null;
      costs.push([adjacent, RoaringBitmap32.andNot(close, adjacent)]);
    }
    // Sums of (cost - 1) over the pairs: 0 is empty here (no document has every pair adjacent), 1 is
    // certain; any document beyond has a total of at least pairs + 2, strictly above it.
    onePairAtTwo = partsBySum(close, costs, 1).find((part) => part.score === 1)?.docs ?? new RoaringBitmap32();
  }
  const parts: OrderedPart[] = [];
  if (!onePairAtTwo.isEmpty) parts.push({ docs: onePairAtTwo, score: pairs + 1 });
  const rest = RoaringBitmap32.andNot(remaining, onePairAtTwo);
  if (!rest.isEmpty) parts.push({ docs: rest, score: null });
  return parts;
}

/** The documents of `universe` where every consecutive pair costs at most `cost`, narrowed pair by pair (each lookup reads less). */
function docsWithEveryPairWithin(ctx: SearchContext, terms: ActiveTerms, cost: 1 | 2, universe: RoaringBitmap32): RoaringBitmap32 | null {
  let docs = universe;
  for (let k = 1; k < terms.length && !docs.isEmpty; k++) {
    const within = ctx.termPairDocsWithin!(terms[k - 1]!, terms[k]!, cost, docs);
    if (within === null) return null;
    docs = within;
  }
  return docs;
}
