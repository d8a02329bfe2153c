// Merging the shards' facet partials ({facetDistribution: {attr: {value: count}}, facetStats:
// {attr: {min, max}}}) into the response members, with the index's faceting settings applied.
import { addFacetCount, compareCodePoints, compareFacetSortKeys, facetSortKeyOf } from '../../filter/facet-value.js';
import { ownValue, setOwn } from '../../documents/own-fields.js';
import type { IndexSettings } from '../../settings/index-settings.js';

export interface FacetExtras {
  facetDistribution?: Record<string, Record<string, number>>;
  facetStats?: Record<string, { min: number; max: number }>;
  /**
   * The shaped distribution already serialized: a JS object cannot keep count order for numeric
   * keys ("1999"), which it always lists first in ascending order.
   */
  facetDistributionJson?: string;
}

export function mergeFacetExtras(partials: ReadonlyArray<FacetExtras | null>): FacetExtras | null {
  let distribution: Record<string, Record<string, number>> | undefined;
  let stats: Record<string, { min: number; max: number }> | undefined;
  const spellingsByFacet = new Map<string, Map<string, string>>();
  for (const partial of partials) {
    if (!partial) continue;
    if (partial.facetDistribution) {
      distribution ??= {};
      for (const [facet, values] of Object.entries(partial.facetDistribution)) {
        let into = ownValue(distribution, facet);
        if (into === undefined) setOwn(distribution, facet, (into = {}));
        let spellings = spellingsByFacet.get(facet);
        if (spellings === undefined) spellingsByFacet.set(facet, (spellings = new Map()));
        // (Object.keys and a read: Object.entries of a parsed object of 100,000 values costs ~4 times more)
        for (const value of Object.keys(values)) addFacetCount(into, spellings, value, values[value]!);
      }
    }
    if (partial.facetStats) {
      stats ??= {};
      for (const [facet, { min, max }] of Object.entries(partial.facetStats)) {
        const into = ownValue(stats, facet);
        setOwn(stats, facet, into ? { min: Math.min(into.min, min), max: Math.max(into.max, max) } : { min, max });
      }
    }
  }
  if (!distribution && !stats) return null;
  const out: FacetExtras = {};
  if (distribution) out.facetDistribution = distribution;
  if (stats) out.facetStats = stats;
  return out;
}

/** A facet's order under sortFacetValuesBy: its own entry, else `*`'s, else alpha (a facet named `constructor` has no entry unless given one). */
export function facetOrderOf(faceting: IndexSettings['faceting'], facet: string): 'alpha' | 'count' {
  return ownValue(faceting.sortFacetValuesBy, facet) ?? ownValue(faceting.sortFacetValuesBy, '*') ?? 'alpha';
}

/** Orders each facet's values (alpha or count, per sortFacetValuesBy) and keeps maxValuesPerFacet of them. */
export function shapeFacetDistribution(
  distribution: Record<string, Record<string, number>>,
  faceting: IndexSettings['faceting'],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const facet of Object.keys(distribution)) {
    const order = facetOrderOf(faceting, facet);
    setOwn(out, facet, Object.fromEntries(shapedEntries(distribution[facet]!, order, faceting.maxValuesPerFacet)));
  }
  return out;
}

/** Code point order (Rust's str order, milli's bytes), where `<` compares UTF-16 units. */
function compareStrings(a: string, b: string): number {
  return compareCodePoints(a, b);
}

/** A facet's values in alpha or count order (ties alpha), the first `limit`: each value's sort key worked out once. */
function shapedEntries(counts: Record<string, number>, order: 'alpha' | 'count', limit: number): [string, number][] {
  const entries = Object.keys(counts).map((value) => ({ sortKey: facetSortKeyOf(value), count: counts[value]! }));
  entries.sort(order === 'count'
    ? (a, b) => b.count - a.count || compareFacetSortKeys(a.sortKey, b.sortKey)
    : (a, b) => compareFacetSortKeys(a.sortKey, b.sortKey));
  return entries.slice(0, limit).map((entry) => [entry.sortKey.value, entry.count]);
}

/** shapeFacetDistribution's result as JSON, each facet's values in their shaped order. */
export function facetDistributionJson(distribution: Record<string, Record<string, number>>, faceting: IndexSettings['faceting']): string {
  // Meilisearch's distribution is a BTreeMap: facets by name, values in their shaped order.
  const facets = Object.keys(distribution).sort(compareStrings).map((facet) => {
    const order = facetOrderOf(faceting, facet);
    const values = shapedEntries(distribution[facet]!, order, faceting.maxValuesPerFacet).map(([value, count]) => `${JSON.stringify(value)}:${count}`);
    return `${JSON.stringify(facet)}:{${values.join(',')}}`;
  });
  return `{${facets.join(',')}}`;
}
