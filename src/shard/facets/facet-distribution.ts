// One shard's facet partials for the matching documents: each value's count and the numeric min/max.
// A facet in count order gets EVERY value's count (the front's sums over shards are exact before it
// keeps the maxValuesPerFacet largest). A facet in alpha order (FacetCut) gets the shard's first
// maxValuesPerFacet values in that order (a total order: filter/facet-value.ts compareFacetSortKeys):
// the front's first N of the union are then the index's first N with whole counts (a value among them
// is among the first N of every shard holding it), and a field of 100,000 values costs N
// intersections, not 100,000.
import type roaring from 'roaring';
import { addCount, addFacetCount, compareFacetSortKeys, facetSortKeyOf } from '../../filter/facet-value.js';
import { setOwn } from '../../documents/own-fields.js';
import { displaySpelling, type FacetStore, type FieldFacets } from './facet-store.js';
import { SearchBudget } from '../search/search-budget.js';

export interface FacetPartials {
  facetDistribution: Record<string, Record<string, number>>;
  facetStats: Record<string, { min: number; max: number }>;
}

/** A facet distribution's cut (ShardSearchOptions.facetCut): N values per facet in alpha order. */
export interface FacetCut {
  maxValues: number;
  orderOf(facet: string): 'alpha' | 'count';
  /**
   * The shards searched here are all of the index's (no other worker adds counts): the merged counts of
   * every facet may then be cut to the first maxValues in the front's order, count order included
   * (keepFirstValues).
   */
  whole: boolean;
  /** Whole, and this worker holds the index in one shard: that shard's first values are the index's (count order too). */
  soleShard?: boolean;
}

/** Values (or documents) counted between two yield points of the search's budget. */
const STEP = 2048;

/**
 * Past the budget's deadline the counting stops: the distribution then holds the values counted so
 * far (a degraded answer, as the rest of the search's). `stringsOnly`: facet search, which answers
 * string (and boolean) values only, as Meilisearch's (its facet_id_string_fst).
 */
export function facetPartials(store: FacetStore, candidates: roaring.RoaringBitmap32, facets: readonly string[],
  budget: SearchBudget = SearchBudget.unbounded(), stringsOnly = false, valueFilter?: (value: string) => boolean,
  cut: FacetCut | null = null): FacetPartials {
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, { min: number; max: number }> = {};
  for (const name of facets) {
    const field = store.field(name);
    const counts: Record<string, number> = {};
    setOwn(facetDistribution, name, counts);
    if (!field || candidates.isEmpty || budget.passed()) continue;
    const order = cut === null ? null : cut.orderOf(name);
    const limit = order === 'alpha' ? cut!.maxValues : null;
    if (limit !== null && walksInAlphaOrder(field, candidates, limit)) countStringsInAlphaOrder(field, candidates, counts, limit, budget, valueFilter);
    else if (order === 'count' && cut!.soleShard === true && field.strings.size <= candidates.size) {
      countMostCountedStrings(field, candidates, counts, cut!.maxValues, budget, valueFilter);
    }
    else if (field.strings.size <= candidates.size) countStringsByValue(field, candidates, counts, budget, valueFilter);
    else countStringsByDocument(field, candidates, counts, budget, valueFilter);
    if (!budget.passed() && !stringsOnly) {
      countNumbers(field, candidates, counts, budget, limit);
      const stats = numericStats(field, candidates);
      if (stats) setOwn(facetStats, name, stats);
    }
    if (limit !== null) keepAlphaPrefix(counts, limit);
  }
  return { facetDistribution, facetStats };
}

/** Few values, many candidates: one intersection count per value. */
function countStringsByValue(field: FieldFacets, candidates: roaring.RoaringBitmap32, counts: Record<string, number>, budget: SearchBudget,
  valueFilter: ((value: string) => boolean) | undefined): void {
  let step = 0;
  for (const facet of field.strings.values()) {
    if (++step % STEP === 0 && budget.passed()) return;
    const spelling = valueFilter === undefined ? null : displaySpelling(facet);
    if (spelling !== null && !valueFilter!(spelling)) continue;
    const count = facet.docs.read().andCardinality(candidates);
    if (count > 0) {
      const shown = spelling ?? displaySpelling(facet);
      addCount(counts, shown, count);
    }
  }
}

/**
 * Whether to walk the values in alpha order until N have candidates: when the values are no more than
 * the candidates (as countStringsByValue), or when the walk's expected length (N values found every
 * values/candidates values) is well under the candidates (countStringsByDocument's cost).
 */
function walksInAlphaOrder(field: FieldFacets, candidates: roaring.RoaringBitmap32, limit: number): boolean {
  const values = field.strings.size;
  const documents = candidates.size;
  return values <= documents || limit * values * 8 <= documents * documents;
}

/** The first `limit` values in alpha order with candidates, each counted. */
function countStringsInAlphaOrder(field: FieldFacets, candidates: roaring.RoaringBitmap32, counts: Record<string, number>, limit: number,
  budget: SearchBudget, valueFilter: ((value: string) => boolean) | undefined): void {
  const { facets, spellings } = field.alphaOrder();
  let found = 0;
  for (let k = 0; k < facets.length && found < limit; k++) {
    if ((k + 1) % STEP === 0 && budget.passed()) return;
    const spelling = spellings[k]!;
    if (valueFilter !== undefined && !valueFilter(spelling)) continue;
    const count = facets[k]!.docs.read().andCardinality(candidates);
    if (count === 0) continue;
    addCount(counts, spelling, count);
    found++;
  }
}

/**
 * Count order in the index's only shard: every value counted, but only the first `limit` in the front's
 * order (most documents first, ties in alpha order) written out: those above the limit-th count, then
 * those at it in alpha order (FieldFacets.alphaOrder). A field of 100,000 values then costs its
 * intersections, not 100,000 entries merged, normalized and sorted by key.
 */
function countMostCountedStrings(field: FieldFacets, candidates: roaring.RoaringBitmap32, counts: Record<string, number>, limit: number,
  budget: SearchBudget, valueFilter: ((value: string) => boolean) | undefined): void {
  const { facets, spellings, numericCount } = field.alphaOrder();
  const found = new Uint32Array(facets.length);
  let nonZero = 0;
  for (let k = 0; k < facets.length; k++) {
    if ((k + 1) % STEP === 0 && budget.passed()) break;
    if (valueFilter !== undefined && !valueFilter(spellings[k]!)) continue;
    const count = facets[k]!.docs.read().andCardinality(candidates);
    found[k] = count;
    if (count > 0) nonZero++;
  }
  if (limit <= 0 || nonZero === 0) return;
  let threshold = 1;
  if (nonZero > limit) {
    const sorted = found.filter((count) => count > 0).sort();
    threshold = sorted[sorted.length - limit]!;
  }
  let atThreshold = limit;
  for (let k = 0; k < facets.length; k++) if (found[k]! > threshold) atThreshold--;
  for (let k = 0; k < facets.length; k++) {
    const count = found[k]!;
    if (count > threshold || (count === threshold && atThreshold-- > 0)) setOwn(counts, spellings[k]!, count);
  }
  // A string that reads as a number is one value with that number ("9" and 9): their counts add up after
  // this cut, so every such string is written out when the field holds numbers.
  if (field.sortedNumbers().values.length === 0) return;
  for (let k = 0; k < numericCount; k++) if (found[k]! > 0) setOwn(counts, spellings[k]!, found[k]!);
}

/**
 * Keeps the first `limit` values in alpha order (compareFacetSortKeys, a total order): the numbers and
 * the strings counted whole (few candidates) come here with every value.
 */
function keepAlphaPrefix(counts: Record<string, number>, limit: number): void {
  const values = Object.keys(counts);
  if (values.length <= limit) return;
  const ordered = values.map(facetSortKeyOf).sort(compareFacetSortKeys);
  let kept = 0;
  for (const entry of ordered) if (kept++ >= limit) delete counts[entry.value];
}

/**
 * The whole index's counts (FacetCut.whole): each facet keeps its first `maxValues` values in the order the
 * front shapes it by (count: most documents first, ties in alpha order; alpha), so the front merges and
 * sorts N values, not every value of a large field.
 */
export function keepFirstValues(distribution: Record<string, Record<string, number>>, cut: FacetCut): void {
  for (const [facet, bySpelling] of Object.entries(distribution)) {
    const counts = oneSpellingPerKey(bySpelling);
    if (cut.orderOf(facet) === 'alpha') keepAlphaPrefix(counts, cut.maxValues);
    else keepMostCounted(counts, cut.maxValues);
    setOwn(distribution, facet, counts);
  }
}

/** Spellings of one key counted apart by several shards, summed under the front's spelling before any cut (addFacetCount). */
function oneSpellingPerKey(counts: Record<string, number>): Record<string, number> {
  const shownByKey = new Map<string, string>();
  const out: Record<string, number> = {};
  for (const [value, count] of Object.entries(counts)) addFacetCount(out, shownByKey, value, count);
  return out;
}

/** Keeps the `limit` values of most documents, ties in alpha order (front/search/facet-merge.ts shapes them so). */
function keepMostCounted(counts: Record<string, number>, limit: number): void {
  const values = Object.keys(counts);
  if (values.length <= limit) return;
  const entries = values.map((value) => ({ sortKey: facetSortKeyOf(value), count: counts[value]! }));
  entries.sort((a, b) => b.count - a.count || compareFacetSortKeys(a.sortKey, b.sortKey));
  for (let k = limit; k < entries.length; k++) delete counts[entries[k]!.sortKey.value];
}

/** Many values, few candidates: read each candidate's own values. */
function countStringsByDocument(field: FieldFacets, candidates: roaring.RoaringBitmap32, counts: Record<string, number>, budget: SearchBudget,
  valueFilter: ((value: string) => boolean) | undefined): void {
  const byKey = new Map<string, number>();
  let step = 0;
  for (const docId of candidates) {
    if (++step % STEP === 0 && budget.passed()) break;
    const values = field.values.get(docId);
    if (values) for (const key of values.strings) byKey.set(key, (byKey.get(key) ?? 0) + 1);
  }
  for (const [key, count] of byKey) {
    const spelling = displaySpelling(field.strings.get(key)!);
    if (valueFilter !== undefined && !valueFilter(spelling)) continue;
    addCount(counts, spelling, count);
  }
}

/**
 * Numbers: the candidates' own values when they are few, else one pass over the sorted pairs; in alpha
 * order (`limit`) that pass stops after the limit-th number with candidates, counted whole.
 */
function countNumbers(field: FieldFacets, candidates: roaring.RoaringBitmap32, counts: Record<string, number>, budget: SearchBudget,
  limit: number | null): void {
  const byNumber = new Map<number, number>();
  const { values, docIds } = field.sortedNumbers();
  if (values.length === 0) return;
  if (limit !== null && candidates.size * 4 >= values.length) {
    let found = 0;
    for (let k = 0; k < values.length; k++) {
      const value = values[k]!;
      if (found >= limit && value !== values[k - 1]) break;
      if (k % (STEP * 16) === STEP * 16 - 1 && budget.passed()) break;
      if (!candidates.has(docIds[k]!)) continue;
      const count = byNumber.get(value);
      if (count === undefined) {
        if (found >= limit) break;
        found++;
        byNumber.set(value, 1);
      } else byNumber.set(value, count + 1);
    }
  } else if (candidates.size * 4 < values.length) {
    let step = 0;
    for (const docId of candidates) {
      if (++step % STEP === 0 && budget.passed()) break;
      const own = field.values.get(docId);
      if (own) for (const number of own.numbers) byNumber.set(number, (byNumber.get(number) ?? 0) + 1);
    }
  } else {
    const member = membership(candidates);
    for (let k = 0; k < values.length; k++) {
      if (k % (STEP * 16) === STEP * 16 - 1 && budget.passed()) break;
      if (member[docIds[k]!] === 1) byNumber.set(values[k]!, (byNumber.get(values[k]!) ?? 0) + 1);
    }
  }
  for (const [number, count] of byNumber) addCount(counts, String(number), count);
}

/** A dense membership array of the candidates (docIds are small integers). */
function membership(candidates: roaring.RoaringBitmap32): Uint8Array {
  const member = new Uint8Array((candidates.maximum() >>> 0) + 1);
  for (const docId of candidates.toUint32Array()) member[docId] = 1;
  return member;
}

function numericStats(field: FieldFacets, candidates: roaring.RoaringBitmap32): { min: number; max: number } | null {
  const { values, docIds } = field.sortedNumbers();
  let min: number | null = null;
  for (let k = 0; k < values.length; k++) {
    if (candidates.has(docIds[k]!)) {
      min = values[k]!;
      break;
    }
  }
  if (min === null) return null;
  for (let k = values.length - 1; k >= 0; k--) if (candidates.has(docIds[k]!)) return { min, max: values[k]! };
  return { min, max: min };
}
