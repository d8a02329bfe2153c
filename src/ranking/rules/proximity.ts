// proximity: query terms close together first. Score = sum over consecutive active terms of their
// smallest distance in a same field: forward distance d, or (reverse order) distance + 1; more than
// 7, or never in the same field, counts 8.
import { positionCount } from '../../query/query-term.js';
import { occurrenceField, occurrencePosition, occurrenceSpan, type DocMatchProfile } from '../match-profile.js';
import { PerDocumentRule } from './per-document-rule.js';
import { proximityParts } from './proximity-parts.js';
import { acceleratorOf, type ActiveTerms, type SearchContext } from '../search-context.js';

export const MAX_PAIR_DISTANCE = 7;
export const FAR_PAIR_COST = 8;
/**
 * Pair costs from this one on found by reading are noted for later searches (SearchContext.notePairCost):
 * the pair lookups tell costs 1 and 2 apart, and only "at least 3" beyond (proximity-rest-classes.ts).
 */
export const KNOWN_COST_MIN = 4;
/** Bounds the pair comparison in pathological documents (a word repeated thousands of times). */
const MAX_OCCURRENCES_COMPARED = 256;
/**
 * Universes up to this size are read rather than split (score-chain.ts): the pair lookups cost about
 * the same whatever the universe (they gather the pairs' runs of the whole shard).
 */
const PROXIMITY_READ_DIRECTLY_MAX = 256;

/**
 * `ceiling`: once the pairs counted so far plus 1 for each pair left are above it, that sum (a lower
 * bound, so above it too) is returned: in proximity's classes read whole, most documents have a far
 * pair, and the pairs after it were counted for nothing. Only when every term is one word (a pair
 * after a phrase may cost less than 1).
 */
export function proximityScore(ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms, ceiling = Infinity): number {
  let total = 0;
  const stopAbove = ceiling === Infinity || !everyTermOneWord(ctx, terms) ? Infinity : ceiling;
  for (let k = 1; k < terms.length; k++) {
    const left = terms[k - 1]!;
    const right = terms[k]!;
    if (ctx.proximityByAttribute === true) {
      total += sameField(profile.occurrences[left]!, profile.counts[left]!, profile.occurrences[right]!, profile.counts[right]!) ? 1 : FAR_PAIR_COST;
      continue;
    }
    const cost = pairCost(profile.occurrences[left]!, profile.counts[left]!, positionCount(ctx.terms[left]!),
      profile.occurrences[right]!, profile.counts[right]!);
    // What the pair tables cannot tell (they stop at 2): the rest classes of later searches leave it unread.
    if (cost >= KNOWN_COST_MIN) acceleratorOf(ctx).notePairCost(left, right, profile.docId, cost);
    total += cost;
    const pairsLeft = terms.length - 1 - k;
    if (total + pairsLeft > stopAbove) return total + pairsLeft;
  }
  return total;
}

function everyTermOneWord(ctx: SearchContext, terms: ActiveTerms): boolean {
  for (let k = 0; k < terms.length; k++) if (positionCount(ctx.terms[terms[k]!]!) !== 1) return false;
  return true;
}

/** Whether the two terms' occurrences (each in field order) meet in one field: proximityPrecision `byAttribute`. */
function sameField(left: readonly number[], leftTotal: number, right: readonly number[], rightTotal: number): boolean {
  for (let i = 0, j = 0; i < leftTotal && j < rightTotal;) {
    const leftField = occurrenceField(left[i]!);
    const rightField = occurrenceField(right[j]!);
    if (leftField === rightField) return true;
    if (leftField < rightField) i++;
    else j++;
  }
  return false;
}

/**
 * The pair's smallest cost over the two terms' occurrences. An occurrence spanning a run of words (a
 * split of the term's word, a multi-word synonym: milli's phrase of a term) counts from its last word
 * when on the left, in either order, and from its first word when on the right; a right occurrence
 * within the run counts nothing. (A quoted phrase on the left counts from its first word in reverse order.)
 */
export function pairCost(left: readonly number[], leftTotal: number, leftLength: number, right: readonly number[], rightTotal: number): number {
  let best = FAR_PAIR_COST;
  const leftCount = Math.min(leftTotal, MAX_OCCURRENCES_COMPARED);
  const rightCount = Math.min(rightTotal, MAX_OCCURRENCES_COMPARED);
  for (let i = 0; i < leftCount; i++) {
    const leftField = occurrenceField(left[i]!);
    const leftStart = occurrencePosition(left[i]!);
    const leftSpan = occurrenceSpan(left[i]!);
    const leftEnd = leftStart + leftLength - 1 + leftSpan;
    for (let j = 0; j < rightCount; j++) {
      const rightField = occurrenceField(right[j]!);
      if (rightField < leftField) continue;
      if (rightField > leftField) break;
      const rightStart = occurrencePosition(right[j]!);
      let distance: number;
      if (rightStart > leftEnd) distance = rightStart - leftEnd;
      else if (leftSpan === 0) distance = leftStart - rightStart + 1;
      else if (rightStart < leftStart) distance = leftEnd - rightStart + 1;
      else continue;
      if (distance < best) {
        best = distance;
        if (best <= 1) return best;
      }
    }
  }
  return best > MAX_PAIR_DISTANCE ? FAR_PAIR_COST : best;
}

export function proximityRule(): PerDocumentRule {
  return new PerDocumentRule('proximity', proximityScore, (_ctx, terms) => (terms.length < 2 ? 0 : null), proximityParts, PROXIMITY_READ_DIRECTLY_MAX);
}
