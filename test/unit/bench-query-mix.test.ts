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
