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

/**
 * Smallest edit distance between the query and any prefix of the value, or `budget + 1` when it is
 * over budget. Only the band of cells within `budget` of the diagonal is computed (a cell further off
 * is already over budget), so a row costs O(budget), not O(query length): a facetQuery of a million
 * characters once held the front's thread for minutes with full rows.
 */
function prefixDistance(query: readonly string[], value: readonly string[], budget: number): number {
  const q = query.length;
  // Every prefix of the value is at least this many characters shorter than the query.
  if (q - value.length > budget) return budget + 1;
  const over = budget + 1;
  let previous = new Array<number>(q + 1).fill(over);
  let current = new Array<number>(q + 1).fill(over);
  for (let k = 0; k <= Math.min(q, budget); k++) previous[k] = k;
  let best = previous[q]!;
  for (let j = 1; j <= value.length; j++) {
    const lo = Math.max(1, j - budget);
    const hi = Math.min(q, j + budget);
    // The cell left of the band: row j's column 0 is j deletions; further right it is out of band.
    current[lo - 1] = lo === 1 ? Math.min(j, over) : over;
    let rowMin = current[lo - 1]!;
    for (let k = lo; k <= hi; k++) {
      const cost = query[k - 1] === value[j - 1] ? 0 : 1;
      const cell = Math.min(previous[k]! + 1, current[k - 1]! + 1, previous[k - 1]! + cost, over);
      current[k] = cell;
      if (cell < rowMin) rowMin = cell;
    }
    if (hi === q) best = Math.min(best, current[q]!);
    if (rowMin > budget) break;
    [previous, current] = [current, previous];
  }
  return best;
}
