// proximity's best buckets from bitmaps: documents where every consecutive pair of terms is adjacent
// (pair cost 1, the lowest), then those where exactly one pair costs 2, come from the shard's near-pair
// postings, so when two common words share most of a shard only the rest is ever read, and only when
// those buckets hold too few hits (score-chain.ts).
import type roaring from 'roaring';
import { NO_DOCUMENTS, orderedPart, partsBySum, type OrderedPart } from '../scores/score-layers.js';
import { acceleratorOf, scratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';
import { restClasses } from './proximity-rest-classes.js';

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
  if (terms.length < 2 || ctx.proximityByAttribute === true) return null;
  if (terms.some((term) => ctx.terms[term]!.kind !== 'word')) return null;
  const adjacent = docsWithEveryPairWithin(ctx, terms, 1, universe);
  if (adjacent === null) return null;
  const pairs = terms.length - 1;
  if (adjacent.isEmpty) {
    // Whether anything splits at all must be known now (null: the caller reads every document).
    const later = partsAfterAdjacent(ctx, terms, universe);
    return later === null || later[0]!.score === null ? null : later;
  }
  return adjacentThenLater(ctx, terms, universe, orderedPart(adjacent, pairs));
}

function* adjacentThenLater(ctx: SearchContext, terms: ActiveTerms, universe: RoaringBitmap32, adjacent: OrderedPart): Generator<OrderedPart> {
  yield adjacent;
  if (adjacent.docs.size === universe.size) return;
  const remaining = scratchOf(ctx).andNot(universe, adjacent.docs);
  yield* partsAfterAdjacent(ctx, terms, remaining) ?? [restPart(ctx, terms, remaining)];
}

/**
 * The parts of `remaining` (no document of which has every pair adjacent): those with exactly one
 * pair at cost 2, then the rest (score null). Null when no document has every pair within cost 2.
 */
function partsAfterAdjacent(ctx: SearchContext, terms: ActiveTerms, remaining: RoaringBitmap32): OrderedPart[] | null {
  const close = docsWithEveryPairWithin(ctx, terms, 2, remaining);
  if (close === null || close.isEmpty) return null;
  const pairs = terms.length - 1;
  // The parts live during the search only (as the pair lookups' results): the search's scratch bitmaps.
  const bitmaps = scratchOf(ctx);
  let onePairAtTwo: RoaringBitmap32;
  if (pairs === 1) {
    onePairAtTwo = close;
  } else {
    const costs: RoaringBitmap32[][] = [];
    for (let k = 1; k < terms.length; k++) {
      const adjacent = acceleratorOf(ctx).termPairDocsWithin(terms[k - 1]!, terms[k]!, 1, close);
      if (adjacent === null) return null;
      costs.push([adjacent, bitmaps.andNot(close, adjacent)]);
    }
    // Sums of (cost - 1) over the pairs: 0 is empty here (no document has every pair adjacent), 1 is
    // certain; any document beyond has a total of at least pairs + 2, strictly above it.
    onePairAtTwo = partsBySum(close, costs, 1, bitmaps).find((part) => part.score === 1)?.docs ?? NO_DOCUMENTS;
  }
  const parts: OrderedPart[] = [];
  if (!onePairAtTwo.isEmpty) parts.push(orderedPart(onePairAtTwo, pairs + 1));
  const rest = bitmaps.andNot(remaining, onePairAtTwo);
  if (!rest.isEmpty) parts.push(restPart(ctx, terms, rest));
  return parts;
}

/**
 * The documents after those with every pair adjacent and those with exactly one pair at 2: each
 * scores at least pairs + 2. Their lower bounds tell more (restClasses): with two pairs or more, from
 * the pair lookups and the rank postings; with one, from the rank postings alone (the documents
 * where the two terms stand in no common field).
 */
function restPart(ctx: SearchContext, terms: ActiveTerms, rest: RoaringBitmap32): OrderedPart {
  return terms.length >= 3 || acceleratorOf(ctx).allFieldRanksListed() ? orderedPart(rest, null, () => restClasses(ctx, terms, rest)) : orderedPart(rest, null);
}

/** The documents of `universe` where every consecutive pair costs at most `cost`, narrowed pair by pair (each lookup reads less). */
function docsWithEveryPairWithin(ctx: SearchContext, terms: ActiveTerms, cost: 1 | 2, universe: RoaringBitmap32): RoaringBitmap32 | null {
  let docs = universe;
  for (let k = 1; k < terms.length && !docs.isEmpty; k++) {
    const within = acceleratorOf(ctx).termPairDocsWithin(terms[k - 1]!, terms[k]!, cost, docs);
    if (within === null) return null;
    docs = within;
  }
  return docs;
}
