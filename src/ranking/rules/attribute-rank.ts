// attributeRank: matches in more important attributes first. Score = sum over active terms of the
// best rank (searchableAttributes order; with ["*"] the field's place in the document) among the
// fields where the term occurs, as milli's fid rule sums per-term field weights.
import { occurrenceRank, type DocMatchProfile } from '../match-profile.js';
import { PerDocumentRule } from './per-document-rule.js';
import { attributeRankParts } from './attribute-rank-parts.js';
import type { ActiveTerms, SearchContext } from '../search-context.js';

/** What a term absent from the document costs (only reachable when words does not come first). */
export const ABSENT_TERM_RANK = 0xffff;

export function attributeRankScore(_ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms): number {
  let total = 0;
  for (const term of terms) {
    let best = ABSENT_TERM_RANK;
    const occurrences = profile.occurrences[term]!;
    const count = profile.counts[term]!;
    for (let k = 0; k < count; k++) {
      const rank = occurrenceRank(occurrences[k]!);
      if (rank < best) best = rank;
    }
    total += best;
  }
  return total;
}

export function attributeRankRule(): PerDocumentRule {
  return new PerDocumentRule('attributeRank', attributeRankScore, () => null, attributeRankParts);
}
