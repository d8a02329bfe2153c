// exactness (milli's exact_attribute then exactness graph, as one rule):
//   first, documents with a field equal to the query, then with a field starting with the query,
//   then the rest (only when the active terms are the query's first terms, without a hole);
//   within each, fewer terms matched only through a typo or a prefix extension first.
// Score = state * STATE_SPAN + number of active terms without an exact occurrence.
import { positionCount } from '../../query/query-term.js';
import { occurrenceField, occurrenceIsExact, occurrencePosition, type DocMatchProfile } from '../match-profile.js';
import { exactnessParts } from './exactness-parts.js';
import { PerDocumentRule } from './per-document-rule.js';
import type { ActiveTerms, SearchContext } from '../search-context.js';

export const EXACT_FIELD = 0;
export const FIELD_STARTS_WITH_QUERY = 1;
export const NO_EXACT_FIELD = 2;
export const STATE_SPAN = 16;

export function exactnessScore(ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms): number {
  let inexact = 0;
  for (const term of terms) if (!hasExactOccurrence(profile.occurrences[term]!, profile.counts[term]!)) inexact++;
  return exactFieldState(ctx, profile, terms) * STATE_SPAN + inexact;
}

// Loops rather than closures: this runs once per scored document.
function hasExactOccurrence(occurrences: readonly number[], count: number): boolean {
  for (let k = 0; k < count; k++) if (occurrenceIsExact(occurrences[k]!)) return true;
  return false;
}

function hasExactOccurrenceAt(occurrences: readonly number[], count: number, field: number, position: number): boolean {
  for (let k = 0; k < count; k++) {
    const occurrence = occurrences[k]!;
    if (occurrenceIsExact(occurrence) && occurrenceField(occurrence) === field && occurrencePosition(occurrence) === position) return true;
  }
  return false;
}

function exactFieldState(ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms): number {
  if (terms.length === 0) return NO_EXACT_FIELD;
  for (let k = 0; k < terms.length; k++) if (terms[k] !== k) return NO_EXACT_FIELD;
  // Fields where the first term sits exactly at its query position are the only candidates.
  let best = NO_EXACT_FIELD;
  const firstOccurrences = profile.occurrences[terms[0]!]!;
  const firstCount = profile.counts[terms[0]!]!;
  for (let o = 0; o < firstCount; o++) {
    const occurrence = firstOccurrences[o]!;
    if (!occurrenceIsExact(occurrence) || occurrencePosition(occurrence) !== ctx.terms[terms[0]!]!.position) continue;
    const field = occurrenceField(occurrence);
    let startsWithQuery = true;
    for (let k = 1; k < terms.length && startsWithQuery; k++) {
      startsWithQuery = hasExactOccurrenceAt(profile.occurrences[terms[k]!]!, profile.counts[terms[k]!]!, field, ctx.terms[terms[k]!]!.position);
    }
    if (!startsWithQuery) continue;
    if (ctx.fieldWordCount(profile.docId, field) === queryLength(ctx, terms)) return EXACT_FIELD;
    best = FIELD_STARTS_WITH_QUERY;
  }
  return best;
}

/** Positions the active terms take in the query (counted only for the rare document with a field starting with it). */
function queryLength(ctx: SearchContext, terms: ActiveTerms): number {
  let length = 0;
  for (const term of terms) length += positionCount(ctx.terms[term]!);
  return length;
}

export function exactnessRule(): PerDocumentRule {
  return new PerDocumentRule('exactness', exactnessScore, () => null, exactnessParts);
}
