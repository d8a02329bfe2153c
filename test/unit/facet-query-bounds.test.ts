// facetQuery matching stays linear in the value for any query length (found by the fuzz test: a
// facet-search whose facetQuery was 1.26 million characters held the front's thread for minutes,
// an edit-distance row of the query's length per character of each of 1,599 facet values).
import test from 'ava';
import { SeededRandom } from '../../bench/seeded-random.js';
import { facetQueryMatcher } from '../../src/filter/facet-query.js';
import { facetSearchForm, normalizeFacetValue } from '../../src/filter/facet-value.js';

/**
 * The plain definition: the smallest edit distance (adjacent transpositions count one, as milli's
 * Levenshtein automata) between the query and any prefix of the value; the budget from the query's
 * UTF-8 bytes (5 and 9 by default, as Rust's str::len).
 */
function referenceMatch(facetQuery: string, value: string): boolean {
  const query = Array.from(facetSearchForm(normalizeFacetValue(facetQuery)));
  if (query.length === 0) return true;
  const bytes = Buffer.byteLength(query.join(''));
  const budget = bytes >= 9 ? 2 : bytes >= 5 ? 1 : 0;
  const target = Array.from(facetSearchForm(normalizeFacetValue(value)));
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: query.length + 1 }, (_, k) => k);
  let best = previous[query.length]!;
  for (let j = 1; j <= target.length; j++) {
    const current = [j];
    for (let k = 1; k <= query.length; k++) {
      current[k] = Math.min(previous[k]! + 1, current[k - 1]! + 1, previous[k - 1]! + (query[k - 1] === target[j - 1] ? 0 : 1));
      if (k >= 2 && j >= 2 && query[k - 1] === target[j - 2] && query[k - 2] === target[j - 1]) current[k] = Math.min(current[k]!, beforePrevious[k - 2]! + 1);
    }
    best = Math.min(best, current[query.length]!);
    beforePrevious = previous;
    previous = current;
  }
  return best <= budget;
}

test('facetQuery matching agrees with the plain edit-distance definition on random queries and values', (t) => {
  const rng = new SeededRandom(18);
  const alphabet = ['a', 'b', 'c', 'd', 'é', 'E', ' '];
  const word = (min: number, max: number) => Array.from({ length: rng.int(min, max) }, () => rng.pick(alphabet)).join('');
  for (let i = 0; i < 20_000; i++) {
    const value = word(0, 16);
    const query = rng.chance(0.5) ? value.slice(0, rng.int(0, value.length)) + word(0, 3) : word(1, 14);
    t.is(facetQueryMatcher(query)(value), referenceMatch(query, value), `query ${JSON.stringify(query)} value ${JSON.stringify(value)}`);
  }
});

test('a facetQuery of a million characters is answered at once against long and short values', (t) => {
  const query = 'x'.repeat(1_000_000);
  const matcher = facetQueryMatcher(query);
  const started = Date.now();
  let matches = 0;
  for (let i = 0; i < 2000; i++) if (matcher(`value ${i}`)) matches++;
  // A value is matched by its facet key, cut to 468 bytes as milli's (facet-value.ts facetKeyOf): a longer query matches none.
  t.false(matcher('x'.repeat(1_000_000)), 'the same text: its key is 468 bytes long');
  const keyLong = facetQueryMatcher('x'.repeat(468));
  t.true(keyLong('x'.repeat(1_000_000)), 'a query as long as the key matches');
  t.true(keyLong(`${'x'.repeat(466)}yy${'x'.repeat(999_532)}`), 'two typos at the end of the key match');
  t.false(keyLong(`${'x'.repeat(465)}yyy${'x'.repeat(999_532)}`), 'three do not');
  t.is(matches, 0);
  t.true(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
});
