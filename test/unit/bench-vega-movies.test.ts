import test from 'ava';
import { createDataset } from '../../bench/dataset.js';
import { buildQueries } from '../../bench/query-mix.js';
import { parseZipcodeCoordinates, titleWords, toBenchMovie, vocabularyByFrequency } from '../../bench/vega-movies-dataset.js';

test('zipcode rows give coordinates; the header and broken rows are skipped', (t) => {
  t.deepEqual(parseZipcodeCoordinates('zip_code,latitude,longitude,city\n00501,40.9,-72.6,Holtsville\n99999,,,Nowhere\n'), [[40.9, -72.6]]);
});

test('title words and the frequency-ranked vocabulary', (t) => {
  t.deepEqual(titleWords("Schindler's List: 2"), ['schindler', 's', 'list', '2']);
  t.deepEqual(vocabularyByFrequency(['The Ring', 'The Thing', 'Ring']), ['ring', 'the', 'thing']);
});

test('films map onto the bench movie schema', (t) => {
  const movie = toBenchMovie(
    { Title: 1776, 'Major Genre': null, 'Release Date': 'Nov 09 1972', 'Production Budget': 4_000_000, 'IMDB Rating': 6.9, Director: null, Distributor: 'Columbia' },
    5,
    [40.9, -72.6],
  );
  t.deepEqual(movie, { id: 5, title: '1776', genre: 'Unknown', year: 1972, price: 4, rating: 6.9, director: null, distributor: 'Columbia', _geo: { lat: 40.9, lng: -72.6 } });
});

test('the dataset reads the package files, caps the size and is deterministic', (t) => {
  const dataset = createDataset({ kind: 'vega-movies', documents: 1_000_000, seed: 3, vocabularySize: 1, zipfExponent: 1 });
  t.is(dataset.spec.documents, 3201);
  t.is(dataset.documentAt(0).title, 'The Land Girls');
  t.deepEqual(dataset.documentAt(42), createDataset({ ...dataset.spec }).documentAt(42));
  t.true(dataset.vocabulary.length > 1000);
  const queries = buildQueries(dataset, { count: 200, limit: 20, skipTopRanks: 10, mix: { word: 1, multiWord: 1, prefix: 1, typo: 1 } });
  t.is(queries.length, 200);
  t.true(queries.every((query) => query.q.length > 0));
});
