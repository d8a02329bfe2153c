// proximity's rest (the documents after those with every pair adjacent and those with exactly one
// pair at 2: proximity-parts.ts) in classes by a lower bound of the score, worked out without reading
// a document, so that the score chain reads the classes in ascending bound and stops before one whose
// bound is above the lead score of as many documents as it needs (score-chain.ts scoreBoundedClasses).
import type roaring from 'roaring';
import type { BoundedClass } from '../scores/score-layers.js';
import { acceleratorOf, scratchOf, searchScratchOf, type ActiveTerms, type KnownPairCosts, type SearchContext } from '../search-context.js';
import { FAR_PAIR_COST } from './proximity.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * The search's arrays (SearchScratch), grown as needed and reused call after call (calls of a search do
 * not overlap, and none outlives the call): a pair's bound by document id, the sum of the bounds per
 * document of the rest, ids. By document id so that marking a bitmap's documents is one store each
 * (finding each one's place among the rest's ids was most of the time with rests of thousands). An
 * entry is stamp * 16 + bound, the stamp the pair's (SearchScratch.pairStamp, 1 to MAX_STAMP; the
 * entries are cleared when it wraps): an entry of another stamp is a document no lookup marked for
 * this pair, bound by 3, so nothing is cleared between pairs (2 bytes per document of the shard).
 */
const MAX_STAMP = 4095;

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
  const scratch = searchScratchOf(ctx);
  if (scratch.restSums.length < count) {
    const length = Math.max(count, scratch.restSums.length * 2);
    scratch.restSums = new Uint8Array(length);
    scratch.restIds = new Uint32Array(length);
  }
  const idSpan = count === 0 ? 0 : restIds[count - 1]! + 1;
  if (scratch.boundsByDoc.length < idSpan) scratch.boundsByDoc = new Uint16Array(Math.max(idSpan, scratch.boundsByDoc.length * 2));
  const bounds = scratch.boundsByDoc;
  const sums = scratch.restSums;
  sums.fill(0, 0, count);
  for (let k = 1; k < terms.length; k++) {
    const left = terms[k - 1]!;
    const right = terms[k]!;
    if (++scratch.pairStamp > MAX_STAMP) {
      bounds.fill(0);
      scratch.pairStamp = 1;
    }
    const stamp = scratch.pairStamp * 16;
    // One pair: the rest has it at 3 or more (no lookup would tell more).
    if (pairs > 1) {
      const adjacent = acceleratorOf(ctx).termPairDocsSettled(left, right, 1, rest);
      const close = adjacent === null ? null : acceleratorOf(ctx).termPairDocsSettled(left, right, 2, rest);
      if (adjacent === null || close === null) return [{ docIds: restIds, atLeast: pairs + 2 }];
      // The lowest bound wins: 2, then 1 over it.
      mark(close.within, stamp + 2, bounds, scratch.restIds);
      mark(close.unsettled, stamp + 2, bounds, scratch.restIds);
      mark(adjacent.within, stamp + 1, bounds, scratch.restIds);
      mark(adjacent.unsettled, stamp + 1, bounds, scratch.restIds);
    }
    // Exact costs over any bound.
    const far = docsNeverInOneField(ctx, left, right, rest);
    if (far !== null) mark(far, stamp + FAR_PAIR_COST, bounds, scratch.restIds);
    const known = acceleratorOf(ctx).termPairKnownCosts(left, right);
    if (known !== null) markKnown(restIds, known, stamp, bounds);
    addInto(sums, bounds, restIds, stamp);
  }
  return classesBySum(restIds, sums, pairs + 2);
}

/** bounds[docId] = value for each id. */
function setAll(bounds: Uint16Array, docIds: Uint32Array, value: number): void {
  for (let i = 0; i < docIds.length; i++) bounds[docIds[i]!] = value;
}

/** bounds[docId] = entry for each document of `docs` (documents of the rest). */
function mark(docs: RoaringBitmap32, entry: number, bounds: Uint16Array, ids: Uint32Array): void {
  if (docs.isEmpty) return;
  setAll(bounds, docs.toUint32Array(ids), entry);
}

/**
 * bounds[docId] = the known cost of each document of the rest known. Known documents outside the rest
 * may be set too (their entries are never read before being set again); a known list far longer than
 * the rest is walked by the rest's ids instead (galloping).
 */
function markKnown(restIds: Uint32Array, known: KnownPairCosts, stamp: number, bounds: Uint16Array): void {
  const { docIds, costs } = known;
  if (docIds.length <= 4 * restIds.length) {
    for (let k = 0; k < docIds.length; k++) {
      const docId = docIds[k]!;
      if (docId < bounds.length) bounds[docId] = stamp + costs[k]!;
    }
    return;
  }
  let at = 0;
  for (let i = 0; i < restIds.length; i++) {
    at = firstAtLeast(docIds, at, restIds[i]!);
    if (at < docIds.length && docIds[at] === restIds[i]) bounds[restIds[i]!] = stamp + costs[at]!;
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

/** sums[i] += the pair's bound of restIds[i]: its entry's with the pair's stamp, else 3. */
function addInto(sums: Uint8Array, bounds: Uint16Array, restIds: Uint32Array, stamp: number): void {
  for (let i = 0; i < restIds.length; i++) {
    const entry = bounds[restIds[i]!]!;
    sums[i] += entry - stamp < 16 && entry >= stamp ? entry - stamp : 3;
  }
}

/**
 * The ids by their sum (at least `floor`), in classes of ascending bounds, each in ascending id order
 * (stable). Each loop in a function of its own: in one function they ran 2-3 times slower.
 */
function classesBySum(restIds: Uint32Array, sums: Uint8Array, floor: number): BoundedClass[] {
  const count = restIds.length;
  const highest = highestSum(sums, count, floor);
  // starts[sum]: where the class of `sum` begins in `sorted` (counted at sum + 1, then summed up).
  const starts = new Int32Array(highest + 2);
  countBySum(sums, count, floor, starts);
  for (let sum = 1; sum < starts.length; sum++) starts[sum]! += starts[sum - 1]!;
  const sorted = new Uint32Array(count);
  placeBySum(restIds, sums, floor, starts.slice(), sorted);
  const classes: BoundedClass[] = [];
  for (let sum = floor; sum <= highest; sum++) {
    if (starts[sum + 1]! > starts[sum]!) classes.push({ docIds: sorted.subarray(starts[sum]!, starts[sum + 1]!), atLeast: sum });
  }
  return classes;
}

function highestSum(sums: Uint8Array, count: number, floor: number): number {
  let highest = floor;
  for (let i = 0; i < count; i++) if (sums[i]! > highest) highest = sums[i]!;
  return highest;
}

function countBySum(sums: Uint8Array, count: number, floor: number, into: Int32Array): void {
  for (let i = 0; i < count; i++) {
    const sum = sums[i]!;
    into[(sum > floor ? sum : floor) + 1]!++;
  }
}

function placeBySum(restIds: Uint32Array, sums: Uint8Array, floor: number, next: Int32Array, sorted: Uint32Array): void {
  for (let i = 0; i < restIds.length; i++) {
    const sum = sums[i]!;
    sorted[next[sum > floor ? sum : floor]!++] = restIds[i]!;
  }
}

/**
 * The documents of `docs` where the two terms share no field rank, so never stand in one field: the
 * pair costs FAR_PAIR_COST there. Null when the rank postings cannot tell (no postings, or fields of
 * ranks past them). Read-only (may be `docs` itself).
 */
function docsNeverInOneField(ctx: SearchContext, left: number, right: number, docs: RoaringBitmap32): RoaringBitmap32 | null {
  const accelerator = acceleratorOf(ctx);
  if (!accelerator.allFieldRanksListed()) return null;
  const leftByRank = accelerator.termDocsByRank(left);
  const rightByRank = accelerator.termDocsByRank(right);
  if (leftByRank === null || rightByRank === null) return null;
  const bitmaps = scratchOf(ctx);
  let never: RoaringBitmap32 | null = null;
  const ranks = Math.min(leftByRank.length, rightByRank.length);
  for (let rank = 0; rank < ranks; rank++) {
    const leftDocs = leftByRank.at(rank)!;
    const rightDocs = rightByRank.at(rank)!;
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
