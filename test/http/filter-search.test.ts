// Filters, facets, sort, geo and distinct through POST/GET /indexes/{uid}/search on a tiny dataset
// with unambiguous expected results.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

export const MOVIES = [
  { id: 1, title: 'Alpha', genre: 'Action', year: 1999, rating: 7.5, tags: ['fun', 'old'], director: 'Kim', _geo: { lat: 48.8566, lng: 2.3522 } },
  { id: 2, title: 'Bravo', genre: 'action', year: 2005, rating: 8.1, tags: ['fun'], director: 'Lee', _geo: { lat: 45.764, lng: 4.8357 } },
  { id: 3, title: 'Charlie', genre: 'Drama', year: 2010, rating: 6.0, tags: [], director: 'Kim', _geo: { lat: 43.2965, lng: 5.3698 } },
  { id: 4, title: 'Delta', genre: 'Comédie', year: 2010, rating: null, director: 'Park' },
  { id: 5, title: 'Echo', genre: 'Drama', year: '2020', rating: 9.0, tags: ['new'], director: 'Lee', _geo: { lat: 51.5074, lng: -0.1278 } },
  { id: 6, title: 'Foxtrot', year: 1985, rating: 5.5, director: '' },
];

const SETTINGS = {
  filterableAttributes: ['genre', 'year', 'rating', 'tags', 'director', '_geo'],
  sortableAttributes: ['year', 'rating', 'title', '_geo'],
};

test.before(async () => {
  server = await startTestServer({ shardsPerIndex: 3 });
  await server.client.run('PATCH', '/indexes/movies/settings', { body: SETTINGS });
  await server.client.addDocuments('movies', MOVIES);
});
test.after.always(async () => {
  await server?.close();
});

async function search(body: Record<string, unknown>, index = 'movies') {
  const response = await server.client.post(`/indexes/${index}/search`, body);
  if (response.status !== 200) throw new Error(`search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body;
}
const ids = (body: { hits: { id: number }[] }) => body.hits.map((hit) => hit.id);
const sortedIds = (body: { hits: { id: number }[] }) => ids(body).sort((a, b) => a - b);

const FILTERS: [unknown, number[]][] = [
  ['genre = action', [1, 2]],
  ['genre = "ACTION"', [1, 2]],
  ['genre = comedie', []], // diacritics stay in facet keys (milli's normalize_facet)
  ['genre = "COMÉDIE"', [4]],
  ['genre != action', [3, 4, 5, 6]],
  ['year = 2010', [3, 4]],
  ['year = 2020', [5]],
  ['year > 2005', [3, 4, 5]],
  ['year >= 2005', [2, 3, 4, 5]],
  ['year < 1999', [6]],
  ['year <= 1999', [1, 6]],
  ['year 1999 TO 2005', [1, 2]],
  ['rating > 7', [1, 2, 5]],
  ['tags = fun', [1, 2]],
  ['tags IN [new, old]', [1, 5]],
  ['tags NOT IN [fun]', [3, 4, 5, 6]],
  ['tags EXISTS', [1, 2, 3, 5]],
  ['tags NOT EXISTS', [4, 6]],
  ['tags IS EMPTY', [3]],
  ['rating IS NULL', [4]],
  ['rating IS NOT NULL', [1, 2, 3, 5, 6]],
  ['director IS EMPTY', [6]],
  ['genre = action AND year > 2000', [2]],
  ['genre = action OR genre = drama AND year = 2010', [1, 2, 3]],
  ['(genre = action OR genre = drama) AND year = 2010', [3]],
  ['NOT genre = drama', [1, 2, 4, 6]],
  ['NOT NOT genre = drama', [3, 5]],
  [['genre = drama', ['director = Kim', 'director = Park']], [3]],
  [['year > 2000', 'year < 2015'], [2, 3, 4]],
  ['_geoRadius(48.8566, 2.3522, 1000)', [1]],
  ['_geoRadius(45.764, 4.8357, 300000)', [2, 3]],
  ['_geoBoundingBox([50, 6], [43, 2])', [1, 2, 3]],
  ['', [1, 2, 3, 4, 5, 6]],
];

for (const [filter, expected] of FILTERS) {
  test(`filter ${JSON.stringify(filter)}`, async (t) => {
    t.deepEqual(sortedIds(await search({ filter })), expected);
  });
}

test('GET filter accepts the string and the JSON array form', async (t) => {
  const plain = await server.client.get(`/indexes/movies/search?filter=${encodeURIComponent('genre = action')}`);
  t.deepEqual(sortedIds(plain.body), [1, 2]);
  const array = await server.client.get(`/indexes/movies/search?filter=${encodeURIComponent(JSON.stringify(['genre = drama', 'year = 2010']))}`);
  t.deepEqual(sortedIds(array.body), [3]);
});

test('filter with a query narrows the text matches and counts', async (t) => {
  const body = await search({ q: 'alpha', filter: 'year = 1999' });
  t.deepEqual(ids(body), [1]);
  t.is(body.estimatedTotalHits, 1);
  t.is((await search({ q: 'alpha', filter: 'year = 2005' })).estimatedTotalHits, 0);
});

test('filter errors point at the failing part', async (t) => {
  const syntax = await server.client.post('/indexes/movies/search', { filter: 'title & Glass' });
  t.is(syntax.status, 400);
  t.is(syntax.body.code, 'invalid_search_filter');
  t.true(syntax.body.message.endsWith('at `title & Glass`.\n1:14 title & Glass'));
  const notFilterable = await server.client.post('/indexes/movies/search', { filter: 'title = Alpha' });
  t.is(notFilterable.status, 400);
  t.is(notFilterable.body.message,
    'Index `movies`: Attribute `title` is not filterable. Available filterable attribute patterns are: `_geo`, `director`, `genre`, `rating`, `tags`, `year`.\n2:7 "title" = "Alpha"');
  const shape = await server.client.post('/indexes/movies/search', { filter: [1] });
  t.is(shape.body.code, 'invalid_search_filter');
});

test('facetDistribution counts every matching document, facetStats the numbers', async (t) => {
  const body = await search({ facets: ['genre', 'year', 'tags', 'rating'] });
  t.deepEqual(body.facetDistribution, {
    genre: { Action: 2, Comédie: 1, Drama: 2 },
    year: { 1985: 1, 1999: 1, 2005: 1, 2010: 2, 2020: 1 },
    tags: { fun: 2, new: 1, old: 1 },
    rating: { '5.5': 1, '6': 1, '7.5': 1, '8.1': 1, '9': 1 },
  });
  t.deepEqual(body.facetStats, { year: { min: 1985, max: 2010 }, rating: { min: 5.5, max: 9 } });
  const filtered = await search({ facets: ['genre'], filter: 'year >= 2005', limit: 1 });
  // the string year "2020" is >= "2005" too (string ranges, Meilisearch ≥ 1.15)
  t.deepEqual(filtered.facetDistribution, { genre: { Action: 1, Comédie: 1, Drama: 2 } });
  const all = await search({ facets: ['*'], limit: 0 });
  t.deepEqual(Object.keys(all.facetDistribution).sort(), ['director', 'genre', 'rating', 'tags', 'year']);
  const bad = await server.client.post('/indexes/movies/search', { facets: ['title'] });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_search_facets');
  t.is(bad.body.message, 'Invalid facet distribution: Pattern `title` is not filterable. Available filterable attributes patterns are: `_geo, director, genre, rating, tags, year`.');
});

test('sort: numbers ascending and descending, missing values last, several criteria', async (t) => {
  t.deepEqual(ids(await search({ sort: ['rating:asc'] })), [6, 3, 1, 2, 5, 4]);
  t.deepEqual(ids(await search({ sort: ['rating:desc'] })), [5, 2, 1, 3, 6, 4]);
  // year: numbers first (asc), then the string "2020"
  t.deepEqual(ids(await search({ sort: ['year:asc'] })), [6, 1, 2, 3, 4, 5]);
  t.deepEqual(ids(await search({ sort: ['year:desc'] })), [3, 4, 2, 1, 6, 5]);
  t.deepEqual(ids(await search({ sort: ['year:desc', 'title:desc'] })), [4, 3, 2, 1, 6, 5]);
  t.deepEqual(ids(await search({ sort: ['title:desc'] })), [6, 5, 4, 3, 2, 1]);
  t.deepEqual(ids(await search({ sort: ['year:asc'], offset: 2, limit: 2 })), [2, 3]);
});

test('sort errors', async (t) => {
  const notSortable = await server.client.post('/indexes/movies/search', { sort: ['genre:asc'] });
  t.is(notSortable.status, 400);
  t.is(notSortable.body.code, 'invalid_search_sort');
  t.is(notSortable.body.message, 'Index `movies`: Attribute `genre` is not sortable. Available sortable attributes are: `_geo`, `rating`, `title`, `year`.');
  const syntax = await server.client.post('/indexes/movies/search', { sort: ['year'] });
  t.is(syntax.body.message, 'Invalid syntax for the sort parameter: expected expression ending by `:asc` or `:desc`, found `year`.');
});

test('_geoPoint sort orders by distance and adds _geoDistance', async (t) => {
  const body = await search({ sort: ['_geoPoint(48.8566, 2.3522):asc'] });
  t.deepEqual(ids(body), [1, 5, 2, 3, 4, 6]);
  t.is(body.hits[0]._geoDistance, 0);
  t.true(body.hits[1]._geoDistance > 300_000 && body.hits[1]._geoDistance < 400_000);
  t.is(body.hits[4]._geoDistance, undefined);
  t.deepEqual(ids(await search({ sort: ['_geoPoint(48.8566, 2.3522):desc'] })).slice(0, 4), [3, 2, 5, 1]);
});

test('distinct keeps the best document per value', async (t) => {
  const body = await search({ distinct: 'director', sort: ['year:asc'] });
  t.deepEqual(ids(body), [6, 1, 2, 4]);
  const bad = await server.client.post('/indexes/movies/search', { distinct: 'title' });
  t.is(bad.body.code, 'invalid_search_distinct');
});

test('custom ranking rules order by the field', async (t) => {
  await server.client.addDocuments('custom_rules', [
    { id: 1, title: 'lamp', price: 30 }, { id: 2, title: 'lamp', price: 10 }, { id: 3, title: 'lamp', price: 20 }, { id: 4, title: 'lamp' },
  ]);
  await server.client.run('PATCH', '/indexes/custom_rules/settings', { body: { rankingRules: ['words', 'price:asc', 'typo'] } });
  t.deepEqual(ids(await search({ q: 'lamp' }, 'custom_rules')), [2, 3, 1, 4]);
  await server.client.run('PATCH', '/indexes/custom_rules/settings', { body: { rankingRules: ['price:desc'] } });
  t.deepEqual(ids(await search({}, 'custom_rules')), [1, 3, 2, 4]);
});

test('GET documents with filter browses the matching documents in id order', async (t) => {
  const response = await server.client.get(`/indexes/movies/documents?filter=${encodeURIComponent('genre = drama OR year = 1999')}&fields=id,title`);
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body, { results: [{ id: 1, title: 'Alpha' }, { id: 3, title: 'Charlie' }, { id: 5, title: 'Echo' }], offset: 0, limit: 20, total: 3 });
  const paged = await server.client.get(`/indexes/movies/documents?filter=${encodeURIComponent('year EXISTS')}&offset=2&limit=2&fields=id`);
  t.deepEqual(paged.body, { results: [{ id: 3 }, { id: 4 }], offset: 2, limit: 2, total: 6 });
  const bad = await server.client.get(`/indexes/movies/documents?filter=${encodeURIComponent('title = x')}`);
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_document_filter');
});

test('POST documents/delete removes the documents matching the filter', async (t) => {
  await server.client.run('PATCH', '/indexes/deletions/settings', { body: { filterableAttributes: ['genre', 'year'] } });
  await server.client.addDocuments('deletions', MOVIES);
  const task = await server.client.run('POST', '/indexes/deletions/documents/delete', { body: { filter: 'genre = action OR year < 1990' } });
  t.deepEqual(task.details, { providedIds: 0, deletedDocuments: 3, originalFilter: '"genre = action OR year < 1990"' });
  t.deepEqual(sortedIds(await search({}, 'deletions')), [3, 4, 5]);
  t.deepEqual((await search({ facets: ['genre'] }, 'deletions')).facetDistribution, { genre: { Comédie: 1, Drama: 2 } });

  const notFilterable = await server.client.waitForTask(await server.client.enqueue('POST', '/indexes/deletions/documents/delete', { body: { filter: 'title = Echo' } }));
  t.is(notFilterable.status, 'failed');
  t.is(notFilterable.error.code, 'invalid_document_filter');
  t.true(notFilterable.error.message.startsWith('Index `deletions`: Attribute `title` is not filterable.'));

  const missing = await server.client.post('/indexes/deletions/documents/delete', {});
  t.is(missing.body.code, 'missing_document_filter');
  const empty = await server.client.post('/indexes/deletions/documents/delete', { filter: '  ' });
  t.is(empty.body.code, 'invalid_document_filter');
  t.is(empty.body.message, 'Sending an empty filter is forbidden.');
  const syntax = await server.client.post('/indexes/deletions/documents/delete', { filter: 'genre =' });
  t.is(syntax.status, 400);
  t.is(syntax.body.code, 'invalid_document_filter');
});

test('POST documents/fetch with filter, ids and both', async (t) => {
  const filtered = await server.client.post('/indexes/movies/documents/fetch', { filter: ['year EXISTS', 'genre = drama'], fields: ['id'] });
  t.deepEqual(filtered.body, { results: [{ id: 3 }, { id: 5 }], offset: 0, limit: 20, total: 2 });
  const both = await server.client.post('/indexes/movies/documents/fetch', { filter: 'genre = action', ids: [2, '3', 1], fields: ['id'] });
  t.deepEqual(both.body, { results: [{ id: 1 }, { id: 2 }], offset: 0, limit: 20, total: 2 });
  const plain = await server.client.post('/indexes/movies/documents/fetch', { limit: 2, offset: 1, fields: ['title'] });
  t.deepEqual(plain.body, { results: [{ title: 'Bravo' }, { title: 'Charlie' }], offset: 1, limit: 2, total: 6 });
  const bad = await server.client.post('/indexes/movies/documents/fetch', { filter: 'title = x', ids: [1] });
  t.is(bad.body.code, 'invalid_document_filter');
  const badLimit = await server.client.post('/indexes/movies/documents/fetch', { limit: -1 });
  t.is(badLimit.body.code, 'invalid_document_limit');
});

test('sort criteria do not lower _rankingScore', async (t) => {
  const plain = await search({ q: 'alpha', showRankingScore: true });
  const sorted = await search({ q: 'alpha', sort: ['title:desc', 'year:asc'], showRankingScore: true });
  t.is(sorted.hits[0]._rankingScore, plain.hits[0]._rankingScore);
});
