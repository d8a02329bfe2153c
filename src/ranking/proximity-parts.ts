// proximity's best buckets from bitmaps: documents where every consecutive pair of terms is adjacent
// (pair cost 1, the lowest), then those where exactly one pair costs 2, come from the shard's near-pair
// postings, so when two common words share most of a shard only the rest is ever read, and only when
// those buckets hold too few hits (score-chain.ts).
import roaring from 'roaring';
import { partsBySum, type OrderedPart } from './score-layers.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

const { RoaringBitmap32 } = roaring;

/**
 * [score pairs, score pairs + 1, the rest (score null, every one of them > pairs + 1)], empty parts
 * left out; null when the postings cannot tell, when no document has every pair within cost 2, or
 * when a term is a phrase (its pair cost starts from its last word).
 */
export function proximityParts(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): OrderedPart[] | null {
  if (terms.length < 2 || ctx.termPairDocsWithin === undefined) return null;
  if (terms.some((term) => ctx.terms[term]!.kind !== 'word')) return null;
  const pairs = terms.length - 1;
  // Documents with every pair within cost 2, narrowed pair by pair (each lookup reads less).
  let close = universe;
  for (let k = 1; k < terms.length; k++) {
    const within = ctx.termPairDocsWithin(terms[k - 1]!, terms[k]!, 2, close);
    if (within === null || within.isEmpty) return null;
    close = within;
  }
  const costs: roaring.RoaringBitmap32[][] = [];
  for (let k = 1; k < terms.length; k++) {
    const adjacent = ctx.termPairDocsWithin(terms[k - 1]!, terms[k]!, 1, close);
    if (adjacent === null) return null;
    costs.push([adjacent, RoaringBitmap32.andNot(close, adjacent)]);
  }
  // Sums of (cost - 1) over the pairs: 0 and 1 are certain; any document beyond has a total of at
  // least pairs + 2 (two pairs at 2, or one at 3 or more), strictly above both.
  const certain = partsBySum(close, costs, 1).filter((part) => part.score !== null);
  const parts: OrderedPart[] = certain.map((part) => ({ docs: part.docs, score: pairs + part.score! }));
  const rest = RoaringBitmap32.andNot(universe, RoaringBitmap32.orMany(certain.map((part) => part.docs)));
  if (!rest.isEmpty) parts.push({ docs: rest, score: null });
  return parts.length === 1 && parts[0]!.score === null ? null : parts;
}
