import test from 'ava';
import { createDataset } from '../../bench/dataset.js';
import { buildQueries, type QueryMixSpec } from '../../bench/query-mix.js';
import { SeededRandom } from '../../bench/seeded-random.js';
import { applyTypo } from '../../bench/typo.js';

const dataset = createDataset({ kind: 'movies', documents: 2000, seed: 42, vocabularySize: 5000, zipfExponent: 1 });
const spec: QueryMixSpec = { count: 4000, limit: 20, skipTopRanks: 20, mix: { word: 40, multiWord: 30, prefix: 20, typo: 10 } };

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

test('the query list is deterministic', (t) => {
  t.deepEqual(buildQueries(dataset, spec), buildQueries(dataset, spec));
});

test('kinds follow the mix weights', (t) => {
  const queries = buildQueries(dataset, spec);
  const share = (kind: string) => queries.filter((query) => query.kind === kind).length / queries.length;
  t.true(Math.abs(share('word') - 0.4) < 0.03);
  t.true(Math.abs(share('multiWord') - 0.3) < 0.03);
  t.true(Math.abs(share('prefix') - 0.2) < 0.03);
  t.true(Math.abs(share('typo') - 0.1) < 0.03);
});

test('kinds with weight 0 or left out are never generated', (t) => {
  const queries = buildQueries(dataset, { ...spec, count: 500, mix: { word: 0, prefix: 1 } });
  t.true(queries.every((query) => query.kind === 'prefix'));
  t.throws(() => buildQueries(dataset, { ...spec, mix: { word: 0 } }));
});

test('queries are built from the vocabulary the way each kind says', (t) => {
  const vocabulary = new Set(dataset.vocabulary);
  let typos = 0;
  let typosOutsideVocabulary = 0;
  for (const query of buildQueries(dataset, spec)) {
    const words = query.q.split(' ');
    t.deepEqual(JSON.parse(query.body), { q: query.q, limit: 20 });
    if (query.kind === 'word') {
      t.is(words.length, 1);
      t.true(dataset.vocabulary.indexOf(words[0]) >= 20, `${words[0]} is one of the skipped top words`);
    } else if (query.kind === 'multiWord') {
      t.true(words.length >= 2 && words.length <= 4);
      t.true(words.every((word) => vocabulary.has(word)));
    } else if (query.kind === 'prefix') {
      const last = words[words.length - 1];
      t.true(words.slice(0, -1).every((word) => vocabulary.has(word)));
      t.true(dataset.vocabulary.some((word) => word.startsWith(last) && word.length > last.length) || last.length === 1);
    } else {
      typos++;
      if (words.some((word) => !vocabulary.has(word))) typosOutsideVocabulary++;
    }
  }
  // A typo can land on another real word now and then; nearly all must leave the vocabulary.
  t.true(typosOutsideVocabulary / typos > 0.95, `${typosOutsideVocabulary} of ${typos}`);
});

test('extra params are sent with every query', (t) => {
  const [query] = buildQueries(dataset, { ...spec, count: 1, params: { attributesToHighlight: ['title'] } });
  t.deepEqual(JSON.parse(query.body), { attributesToHighlight: ['title'], q: query.q, limit: 20 });
});

test('applyTypo makes exactly one edit', (t) => {
  const random = new SeededRandom(5);
  for (const word of ['search', 'engine', 'aardvark', 'tolerance', 'ab']) {
    for (let i = 0; i < 200; i++) {
      const typo = applyTypo(word, random);
      t.is(editDistance(word, typo), 1, `${word} -> ${typo}`);
    }
  }
});

test('structured kinds carry their search parameters; phrases are quoted title fragments', (t) => {
  const structured: QueryMixSpec = { count: 600, limit: 10, skipTopRanks: 20, mix: { phrase: 1, filtered: 1, faceted: 1, sorted: 1, geo: 1 } };
  const queries = buildQueries(dataset, structured).map((query) => ({ ...query, params: JSON.parse(query.body) as Record<string, unknown> }));
  const ofKind = (kind: string) => queries.filter((query) => query.kind === kind);
  for (const kind of ['phrase', 'filtered', 'faceted', 'sorted', 'geo']) t.true(ofKind(kind).length > 50, kind);
  for (const query of queries) t.is(query.params.limit, 10);
  for (const query of ofKind('phrase')) t.regex(query.q, /^"[a-z]+( [a-z]+)+"$/);
  for (const query of ofKind('filtered')) t.regex(String(query.params.filter), /genre = "|year \d+ TO \d+/);
  for (const query of ofKind('faceted')) t.true(Array.isArray(query.params.facets));
  for (const query of ofKind('sorted')) t.regex(String((query.params.sort as string[])[0]), /^(price|year):(asc|desc)$/);
  for (const query of ofKind('geo')) t.regex(String(query.params.filter), /^_geoRadius\(-?[\d.]+, -?[\d.]+, \d+\)$/);
  t.true(ofKind('geo').some((query) => Array.isArray(query.params.sort)), 'some geo queries sort by distance');
});

test('text kinds send only q and limit (plus workload params), as before the structured kinds', (t) => {
  for (const query of buildQueries(dataset, { ...spec, count: 200 })) t.deepEqual(Object.keys(JSON.parse(query.body)).sort(), ['limit', 'q']);
});
