// proximity's rest (the documents after those with every pair adjacent and those with exactly one
// pair at 2: proximity-parts.ts) in classes by a lower bound of the score, worked out without reading
// a document, so that the score chain reads the classes in ascending bound and stops before one whose
// bound is above the lead score of as many documents as it needs (score-chain.ts scoreBoundedClasses).
import type roaring from 'roaring';
import type { BoundedClass } from './score-layers.js';
import { scratchOf, type ActiveTerms, type KnownPairCosts, type SearchContext } from './search-context.js';
import { FAR_PAIR_COST } from './proximity.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * The thread's arrays, grown as needed and reused call after call (calls of a thread do not overlap,
 * and none outlives the call): a pair's bound per document of the rest, the sum of the bounds, ids.
 */
let sparePairBounds = new Uint8Array(1024);
let spareSums = new Uint8Array(1024);
let spareIds = new Uint32Array(1024);

/**
 * `rest` (documents scoring at least pairs + 2) in classes by a lower bound of the score, ascending
 * bounds, each class's ids ascending. A pair's cost in a document is bound by: 1 where the pair
 * lookups say it may be 1, 2 where they say it may be 2, 3 elsewhere (with two terms, the whole rest:
 * neither 1 nor 2); exactly what an earlier search read there when from KNOWN_COST_MIN on (the pair
 * tables stop at 2: SearchContext.termPairKnownCosts); exactly FAR_PAIR_COST where the two
 * terms share no field rank (never in one field: the rank postings tell, when they list every rank).
 * The score is the sum of the pairs' costs, so the class of a document is the sum of its bounds (at
 * least pairs + 2). Sums per document in arrays rather than intersections of every pair's classes:
 * those made up to 8^pairs bitmaps, the costliest queries' main cost once their documents were known.
 *
 * The class whose bound equals the lead score is read whole (its documents tie there and later rules
 * break the ties): every pair at "at least 3" was ~250-1,300 documents in the costliest queries, of
 * which a few score 3 per pair; the known costs take the others out of it from the second search on.
 */
export function restClasses(ctx: SearchContext, terms: ActiveTerms, rest: RoaringBitmap32): BoundedClass[] {
  const pairs = terms.length - 1;
  const restIds = rest.toUint32Array();
  const count = restIds.length;
  if (sparePairBounds.length < count) {
    const length = Math.max(count, sparePairBounds.length * 2);
    sparePairBounds = new Uint8Array(length);
    spareSums = new Uint8Array(length);
    spareIds = new Uint32Array(length);
  }
  const bounds = sparePairBounds;
  const sums = spareSums;
  sums.fill(0, 0, count);
  for (let k = 1; k < terms.length; k++) {
    const left = terms[k - 1]!;
    const right = terms[k]!;
    bounds.fill(3, 0, count);
    // One pair: the rest has it at 3 or more (no lookup would tell more).
    if (pairs > 1) {
      const adjacent = ctx.termPairDocsSettled?.(left, right, 1, rest) ?? null;
      const close = adjacent === null ? null : ctx.termPairDocsSettled!(left, right, 2, rest);
      if (adjacent === null || close === null) return [{ docIds: restIds, atLeast: pairs + 2 }];
      // The lowest bound wins: 2, then 1 over it.
      mark(restIds, close.within, 2, bounds);
      mark(restIds, close.unsettled, 2, bounds);
      mark(restIds, adjacent.within, 1, bounds);
      mark(restIds, adjacent.unsettled, 1, bounds);
    }
    // Exact costs over any bound.
    const far = docsNeverInOneField(ctx, left, right, rest);
    if (far !== null) mark(restIds, far, FAR_PAIR_COST, bounds);
    const known = ctx.termPairKnownCosts?.(left, right) ?? null;
    if (known !== null) markKnown(restIds, known, bounds);
    for (let i = 0; i < count; i++) sums[i] += bounds[i]!;
  }
  return classesBySum(restIds, sums, pairs + 2);
}

/** into[i] = value for each restIds[i] in `docs` (a subset of restIds; both ascending). */
function mark(restIds: Uint32Array, docs: RoaringBitmap32, value: number, into: Uint8Array): void {
  if (docs.isEmpty) return;
  const ids = docs.toUint32Array(spareIds);
  let at = 0;
  for (let i = 0; i < ids.length; i++) {
    at = firstAtLeast(restIds, at, ids[i]!);
    if (at < restIds.length && restIds[at] === ids[i]) into[at] = value;
  }
}

/** into[i] = the known cost of restIds[i], for those known (both ascending; the smaller list walks the larger). */
function markKnown(restIds: Uint32Array, known: KnownPairCosts, into: Uint8Array): void {
  const { docIds, costs } = known;
  if (docIds.length <= restIds.length) {
    let at = 0;
    for (let k = 0; k < docIds.length; k++) {
      at = firstAtLeast(restIds, at, docIds[k]!);
      if (at < restIds.length && restIds[at] === docIds[k]) into[at] = costs[k]!;
    }
    return;
  }
  let at = 0;
  for (let i = 0; i < restIds.length; i++) {
    at = firstAtLeast(docIds, at, restIds[i]!);
    if (at < docIds.length && docIds[at] === restIds[i]) into[i] = costs[at]!;
  }
}

/**
 * The first index from `from` on whose id is at least `id` (ids ascending; the length when none):
 * galloping, so that a short list walks a long one in fewer steps than a merge.
 */
function firstAtLeast(ids: Uint32Array, from: number, id: number): number {
  if (from >= ids.length || ids[from]! >= id) return from;
  let step = 1;
  let low = from;
  let high = from + 1;
  while (high < ids.length && ids[high]! < id) {
    low = high;
    step *= 2;
    high = from + step;
  }
  if (high > ids.length) high = ids.length;
  // ids[low] < id; ids[high] >= id or high = length.
  while (low + 1 < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! < id) low = middle;
    else high = middle;
  }
  return high;
}

/** The ids by their sum (at least `floor`), in classes of ascending bounds, each in ascending id order (stable). */
function classesBySum(restIds: Uint32Array, sums: Uint8Array, floor: number): BoundedClass[] {
  const count = restIds.length;
  let highest = floor;
  for (let i = 0; i < count; i++) if (sums[i]! > highest) highest = sums[i]!;
  const starts = new Int32Array(highest + 2);
  for (let i = 0; i < count; i++) starts[Math.max(floor, sums[i]!) + 1]!++;
  for (let sum = 1; sum < starts.length; sum++) starts[sum]! += starts[sum - 1]!;
  const classes: BoundedClass[] = [];
  for (let sum = floor; sum <= highest; sum++) {
    if (starts[sum + 1]! > starts[sum]!) classes.push({ docIds: new Uint32Array(0), atLeast: sum });
  }
  const sorted = new Uint32Array(count);
  const next = starts.slice();
  for (let i = 0; i < count; i++) sorted[next[Math.max(floor, sums[i]!)]!++] = restIds[i]!;
  for (const boundedClass of classes) boundedClass.docIds = sorted.subarray(starts[boundedClass.atLeast]!, starts[boundedClass.atLeast + 1]!);
  return classes;
}

/**
 * The documents of `docs` where the two terms share no field rank, so never stand in one field: the
 * pair costs FAR_PAIR_COST there. Null when the rank postings cannot tell (no postings, or fields of
 * ranks past them). Read-only (may be `docs` itself).
 */
function docsNeverInOneField(ctx: SearchContext, left: number, right: number, docs: RoaringBitmap32): RoaringBitmap32 | null {
  if (ctx.allFieldRanksListed?.() !== true) return null;
  const leftByRank = ctx.termDocsByRank?.(left) ?? null;
  const rightByRank = ctx.termDocsByRank?.(right) ?? null;
  if (leftByRank === null || rightByRank === null) return null;
  const bitmaps = scratchOf(ctx);
  let never: RoaringBitmap32 | null = null;
  const ranks = Math.min(leftByRank.length, rightByRank.length);
  for (let rank = 0; rank < ranks; rank++) {
    const leftDocs = leftByRank[rank]!;
    const rightDocs = rightByRank[rank]!;
    if (leftDocs.isEmpty || rightDocs.isEmpty) continue;
    // Documents with both terms in a field of this rank may have them in one field: not far for sure.
    const sharing = never ?? docs;
    if (!sharing.intersects(leftDocs) || !sharing.intersects(rightDocs)) continue;
    const both = bitmaps.and(sharing, leftDocs);
    both.andInPlace(rightDocs);
    if (both.isEmpty) continue;
    if (never === null) never = bitmaps.andNot(docs, both);
    else never.andNotInPlace(both);
  }
  return never ?? docs;
}
