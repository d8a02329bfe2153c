// attributeRank's buckets from bitmaps: with each term's documents per field rank (the shard's rank
// postings) the universe splits by score (sum over terms of the best rank) without reading any
// document, so the score chain only reads the documents of the best buckets (score-chain.ts).
import type roaring from 'roaring';
import { bestCostPartsLazily, partsBySumLazily, type OrderedPart } from '../scores/score-layers.js';
import type { KeyedLists } from '../keyed-lists.js';
import { acceleratorOf, rankingMemosOf, scratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';

/**
 * Scores up to this are split exactly; documents scoring above it (deep ranks, many terms, absent
 * terms) form one last part that is scored document by document. Bounds the bitmap work.
 */
export const ATTRIBUTE_RANK_SPLIT_MAX = 11;

/**
 * The universe in parts by ascending attributeRank score: one part per score up to the max, then
 * the rest. Every document of a part scores strictly lower than every document of a later part.
 * Null when some term has no rank postings (phrases).
 */
export function attributeRankParts(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null {
  const accelerator = acceleratorOf(ctx);
  const costs: KeyedLists[] = [];
  let maxSum = ATTRIBUTE_RANK_SPLIT_MAX;
  for (const term of terms) {
    const byRank = accelerator.termDocsByRank(term);
    if (byRank === null || byRank.length === 0) return null;
    // Ranks from byRank.length on are unknown, so sums are only certain below it.
    maxSum = Math.min(maxSum, byRank.length - 1);
    costs.push(byRank);
  }
  // Documents whose best rank of a term is past maxSum (or that lack the term: ABSENT_TERM_RANK)
  // stay out of every layer and end in the rest, above every part.
  // A universe that is the term's own documents (a one-word query's) holds its rank lists but with
  // multi-word synonyms: the first part is then a list as it is (at a million documents, a copy of a
  // word's first-field documents per query spared).
  const bitmaps = scratchOf(ctx);
  // Ranks past maxSum are never read (the lists are made per rank when first read: keyed-lists.ts).
  if (costs.length === 1) return bestCostPartsLazily(universe, costs[0]!, isTermsOwnDocs(ctx, universe, terms) ? rankingMemosOf(ctx).within : null, bitmaps, maxSum + 1);
  // Lazily: the score chain mostly takes the first part, and its documents of one sum need only each term's first ranks.
  return partsBySumLazily(universe, costs, maxSum, bitmaps);
}

/** Whether the universe is the one term's own documents (the very bitmap): its rank / position lists mostly lie within it. */
export function isTermsOwnDocs(ctx: SearchContext, universe: roaring.RoaringBitmap32, terms: ActiveTerms): boolean {
  return terms.length === 1 && ctx.termDocs(terms[0]!) === universe;
}
