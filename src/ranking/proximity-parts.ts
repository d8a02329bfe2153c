// proximity's best bucket from bitmaps: the documents where every consecutive pair of terms is
// adjacent (pair cost 1, the lowest) come from the shard's adjacent-pair postings, so when two common
// words share most of a shard only those documents are read, not the whole bucket (score-chain.ts).
import roaring from 'roaring';
import type { OrderedPart } from './score-layers.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

const { RoaringBitmap32 } = roaring;

/**
 * [all pairs adjacent (score = pairs), the rest (score null, every one of them > pairs)], or null
 * when the postings cannot tell, no document has every pair adjacent, or a term is a phrase (its
 * pair cost starts from its last word).
 */
export function proximityParts(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): OrderedPart[] | null {
  if (terms.length < 2 || ctx.termPairAdjacentDocs === undefined) return null;
  if (terms.some((term) => ctx.terms[term]!.kind !== 'word')) return null;
  let best = universe;
  for (let k = 1; k < terms.length; k++) {
    const adjacent = ctx.termPairAdjacentDocs(terms[k - 1]!, terms[k]!, best);
    if (adjacent === null || adjacent.isEmpty) return null;
    best = adjacent;
  }
  // Any pair not adjacent costs at least 2, so the rest scores strictly more than terms - 1.
  const rest = RoaringBitmap32.andNot(universe, best);
  const parts: OrderedPart[] = [{ docs: best, score: terms.length - 1 }];
  if (!rest.isEmpty) parts.push({ docs: rest, score: null });
  return parts;
}
