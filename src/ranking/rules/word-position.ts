// wordPosition: matches near the start of their attribute first. Score = sum over active terms of
// the bucketed distance between the term's best occurrence and its position in the query (milli's
// position rule and its cost buckets: 0, 1, 2-4, 5-7, 8-11, 12-16, 17-24, 25-64, 65-256, 257-1024, more).
import { occurrencePosition, type DocMatchProfile } from '../match-profile.js';
import { PerDocumentRule } from './per-document-rule.js';
import { wordPositionParts } from './word-position-parts.js';
import type { ActiveTerms, SearchContext } from '../search-context.js';

export const MAX_POSITION_COST = 10;

export function positionCost(distance: number): number {
  if (distance <= 1) return distance;
  if (distance <= 4) return 2;
  if (distance <= 7) return 3;
  if (distance <= 11) return 4;
  if (distance <= 16) return 5;
  if (distance <= 24) return 6;
  if (distance <= 64) return 7;
  if (distance <= 256) return 8;
  if (distance <= 1024) return 9;
  return MAX_POSITION_COST;
}

export function wordPositionScore(ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms): number {
  let total = 0;
  for (const term of terms) {
    const queryPosition = ctx.terms[term]!.position;
    let best = MAX_POSITION_COST;
    const occurrences = profile.occurrences[term]!;
    const count = profile.counts[term]!;
    for (let k = 0; k < count; k++) {
      const cost = positionCost(Math.abs(occurrencePosition(occurrences[k]!) - queryPosition));
      if (cost < best) best = cost;
      if (best === 0) break;
    }
    total += best;
  }
  return total;
}

export function wordPositionRule(): PerDocumentRule {
  return new PerDocumentRule('wordPosition', wordPositionScore, () => null, wordPositionParts);
}
