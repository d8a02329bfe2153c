// Facet search's `facetQuery` test: the normalized query is a prefix of the normalized facet value,
// allowing typos like the search does (1 from 5 characters, 2 from 9).
import { normalizeFacetValue } from './facet-value.js';

export function facetQueryMatcher(facetQuery: string | null): (value: string) => boolean {
  const query = facetQuery === null ? '' : normalizeFacetValue(facetQuery);
  if (query === '') return () => true;
  const chars = Array.from(query);
  const budget = chars.length >= 9 ? 2 : chars.length >= 5 ? 1 : 0;
  return (value) => {
    const normalized = normalizeFacetValue(value);
    if (normalized.startsWith(query)) return true;
    return budget > 0 && prefixDistance(chars, Array.from(normalized), budget) <= budget;
  };
}

/** Smallest edit distance between the query and any prefix of the value (stops past `budget`). */
function prefixDistance(query: readonly string[], value: readonly string[], budget: number): number {
  let previous = Array.from({ length: query.length + 1 }, (_, k) => k);
  let best = previous[query.length]!;
  for (let j = 1; j <= value.length; j++) {
    const current = [j];
    let rowMin = j;
    for (let k = 1; k <= query.length; k++) {
      const cost = query[k - 1] === value[j - 1] ? 0 : 1;
      current[k] = Math.min(previous[k]! + 1, current[k - 1]! + 1, previous[k - 1]! + cost);
      rowMin = Math.min(rowMin, current[k]!);
    }
    best = Math.min(best, current[query.length]!);
    if (rowMin > budget) break;
    previous = current;
  }
  return best;
}
