// Facet search's `facetQuery` test (milli's SearchForFacetValues): the normalized query is a prefix of
// the normalized facet value, allowing typos as the index's typoTolerance says: none when typos are
// disabled or the facet is in disableOnAttributes; a query in disableOnWords matches only the value
// equal to it; else 1 typo from minWordSizeForTypos.oneTypo bytes, 2 from twoTypos (Rust's str::len,
// UTF-8 bytes), an adjacent transposition counting as one typo (Levenshtein automata with transpositions).
import { facetKeyOf, facetSearchForm, normalizeFacetValue } from './facet-value.js';

export interface FacetQueryTypos {
  enabled: boolean;
  oneTypo: number;
  twoTypos: number;
  /** typoTolerance.disableOnAttributes holds the facet's name. */
  disabledOnFacet: boolean;
  /** typoTolerance.disableOnWords. */
  exactWords: readonly string[];
}

export const DEFAULT_FACET_QUERY_TYPOS: FacetQueryTypos = { enabled: true, oneTypo: 5, twoTypos: 9, disabledOnFacet: false, exactWords: [] };

export function facetQueryMatcher(facetQuery: string | null, typos: FacetQueryTypos = DEFAULT_FACET_QUERY_TYPOS): (value: string) => boolean {
  const query = facetQuery === null ? '' : facetSearchForm(normalizeFacetValue(facetQuery));
  if (query === '') return () => true;
  // A value is matched by its facet key without diacritics (milli's facet search reads the keys'
  // lossy forms: facet_id_normalized_string_strings).
  const keyOf = (value: string): string => facetSearchForm(facetKeyOf(normalizeFacetValue(value)));
  if (!typos.enabled || typos.disabledOnFacet) return (value) => keyOf(value).startsWith(query);
  if (typos.exactWords.some((word) => facetSearchForm(normalizeFacetValue(word)) === query)) return (value) => keyOf(value) === query;
  const chars = Array.from(query);
  const bytes = Buffer.byteLength(query);
  const budget = bytes < typos.oneTypo ? 0 : bytes < typos.twoTypos ? 1 : 2;
  return (value) => {
    const normalized = keyOf(value);
    if (normalized.startsWith(query)) return true;
    return budget > 0 && prefixDistance(chars, Array.from(normalized), budget) <= budget;
  };
}

/**
 * Smallest edit distance (insertions, deletions, substitutions and adjacent transpositions) between
 * the query and any prefix of the value, or `budget + 1` when it is over budget. Only the band of
 * cells within `budget` of the diagonal is computed (a cell further off is already over budget), so a
 * row costs O(budget), not O(query length): a facetQuery of a million characters once held the front's
 * thread for minutes with full rows.
 */
function prefixDistance(query: readonly string[], value: readonly string[], budget: number): number {
  const q = query.length;
  // Every prefix of the value is at least this many characters shorter than the query.
  if (q - value.length > budget) return budget + 1;
  const over = budget + 1;
  let beforePrevious = new Array<number>(q + 1).fill(over);
  let previous = new Array<number>(q + 1).fill(over);
  let current = new Array<number>(q + 1).fill(over);
  for (let k = 0; k <= Math.min(q, budget); k++) previous[k] = k;
  let best = previous[q]!;
  for (let j = 1; j <= value.length; j++) {
    const lo = Math.max(1, j - budget);
    const hi = Math.min(q, j + budget);
    // The cells left of the band: row j's column 0 is j deletions; further right it is out of band.
    current[lo - 1] = lo === 1 ? Math.min(j, over) : over;
    let rowMin = current[lo - 1]!;
    for (let k = lo; k <= hi; k++) {
      const cost = query[k - 1] === value[j - 1] ? 0 : 1;
      let cell = Math.min(previous[k]! + 1, current[k - 1]! + 1, previous[k - 1]! + cost, over);
      if (k >= 2 && j >= 2 && query[k - 1] === value[j - 2] && query[k - 2] === value[j - 1]) cell = Math.min(cell, beforePrevious[k - 2]! + 1);
      current[k] = cell;
      if (cell < rowMin) rowMin = cell;
    }
    if (hi === q) best = Math.min(best, current[q]!);
    if (rowMin > budget) break;
    [beforePrevious, previous, current] = [previous, current, beforePrevious];
  }
  return best;
}
