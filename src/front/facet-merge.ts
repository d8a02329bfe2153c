// Merging the shards' facet partials ({facetDistribution: {attr: {value: count}}, facetStats:
// {attr: {min, max}}}) into the response members, with the index's faceting settings applied.
import type { IndexSettings } from '../settings/index-settings.js';

export interface FacetExtras {
  facetDistribution?: Record<string, Record<string, number>>;
  facetStats?: Record<string, { min: number; max: number }>;
}

export function mergeFacetExtras(partials: ReadonlyArray<FacetExtras | null>): FacetExtras | null {
  let distribution: Record<string, Record<string, number>> | undefined;
  let stats: Record<string, { min: number; max: number }> | undefined;
  for (const partial of partials) {
    if (!partial) continue;
    if (partial.facetDistribution) {
      distribution ??= {};
      for (const [facet, values] of Object.entries(partial.facetDistribution)) {
        const into = (distribution[facet] ??= {});
        for (const [value, count] of Object.entries(values)) into[value] = (into[value] ?? 0) + count;
      }
    }
    if (partial.facetStats) {
      stats ??= {};
      for (const [facet, { min, max }] of Object.entries(partial.facetStats)) {
        const into = stats[facet];
        stats[facet] = into ? { min: Math.min(into.min, min), max: Math.max(into.max, max) } : { min, max };
      }
    }
  }
  if (!distribution && !stats) return null;
  const out: FacetExtras = {};
  if (distribution) out.facetDistribution = distribution;
  if (stats) out.facetStats = stats;
  return out;
}

/** Orders each facet's values (alpha or count, per sortFacetValuesBy) and keeps maxValuesPerFacet of them. */
export function shapeFacetDistribution(
  distribution: Record<string, Record<string, number>>,
  faceting: IndexSettings['faceting'],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const facet of Object.keys(distribution)) {
    const order = faceting.sortFacetValuesBy[facet] ?? faceting.sortFacetValuesBy['*'] ?? 'alpha';
    const entries = Object.entries(distribution[facet]!);
    entries.sort(order === 'count'
      ? (a, b) => b[1] - a[1] || compareStrings(a[0], b[0])
      : (a, b) => compareStrings(a[0], b[0]));
    out[facet] = Object.fromEntries(entries.slice(0, faceting.maxValuesPerFacet));
  }
  return out;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
