// One shard's facet partials for the matching documents: EVERY value's count (not a top-N, so the
// front's sum over shards is exact before it keeps maxValuesPerFacet) and the numeric min/max.
import type roaring from 'roaring';
import { displaySpelling, type FacetStore, type FieldFacets } from './facet-store.js';
import { SearchBudget } from '../search/search-budget.js';

export interface FacetPartials {
  facetDistribution: Record<string, Record<string, number>>;
  facetStats: Record<string, { min: number; max: number }>;
}

/** Values (or documents) counted between two yield points of the search's budget. */
const STEP = 2048;

/**
 * Past the budget's deadline the counting stops: the distribution then holds the values counted so
 * far (a degraded answer, as the rest of the search's). `stringsOnly`: facet search, which answers
 * string (and boolean) values only, as Meilisearch's (its facet_id_string_fst).
 */
export function facetPartials(store: FacetStore, candidates: roaring.RoaringBitmap32, facets: readonly string[],
  budget: SearchBudget = SearchBudget.unbounded(), stringsOnly = false, valueFilter?: (value: string) => boolean): FacetPartials {
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, { min: number; max: number }> = {};
  for (const name of facets) {
    const field = store.field(name);
    const counts: Record<string, number> = {};
    facetDistribution[name] = counts;
    if (!field || candidates.isEmpty || budget.passed()) continue;
    if (field.strings.size <= candidates.size) countStringsByValue(field, candidates, counts, budget, valueFilter);
    else countStringsByDocument(field, candidates, counts, budget, valueFilter);
    if (budget.passed() || stringsOnly) continue;
    countNumbers(field, candidates, counts, budget);
    const stats = numericStats(field, candidates);
    if (stats) facetStats[name] = stats;
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
      counts[shown] = (counts[shown] ?? 0) + count;
    }
  }
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
    counts[spelling] = (counts[spelling] ?? 0) + count;
  }
}

/** Numbers: the candidates' own values when they are few, else one pass over the sorted pairs. */
function countNumbers(field: FieldFacets, candidates: roaring.RoaringBitmap32, counts: Record<string, number>, budget: SearchBudget): void {
  const byNumber = new Map<number, number>();
  const { values, docIds } = field.sortedNumbers();
  if (values.length === 0) return;
  if (candidates.size * 4 < values.length) {
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
  for (const [number, count] of byNumber) counts[String(number)] = (counts[String(number)] ?? 0) + count;
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
