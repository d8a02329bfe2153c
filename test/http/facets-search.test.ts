// POST /indexes/{uid}/facet-search, and facet distribution settings (maxValuesPerFacet, sortFacetValuesBy).
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

const BOOKS = [
  { id: 1, title: 'dune', genre: 'Science Fiction', year: 1965 },
  { id: 2, title: 'hyperion', genre: 'science fiction', year: 1989 },
  { id: 3, title: 'emma', genre: 'Romance', year: 1815 },
  { id: 4, title: 'dracula', genre: 'Horror', year: 1897 },
  { id: 5, title: 'carrie', genre: 'Horror', year: 1974 },
  { id: 6, title: 'it', genre: 'Horror', year: 1986 },
  { id: 7, title: 'persuasion', genre: 'Romance', year: 1817 },
];

test.before(async () => {
  server = await startTestServer({ shardsPerIndex: 3 });
  await server.client.run('PATCH', '/indexes/books/settings', { body: { filterableAttributes: ['genre', 'year'] } });
  await server.client.addDocuments('books', BOOKS);
});
test.after.always(async () => {
  await server?.close();
});

async function facetSearch(body: Record<string, unknown>, index = 'books') {
  const response = await server.client.post(`/indexes/${index}/facet-search`, body);
  if (response.status !== 200) throw new Error(`facet-search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body;
}

test('facet values prefixed by the facet query, counted over q and filter', async (t) => {
  const body = await facetSearch({ facetName: 'genre', facetQuery: 'sci' });
  t.deepEqual(body.facetHits, [{ value: 'Science Fiction', count: 2 }]);
  t.is(body.facetQuery, 'sci');
  t.is(typeof body.processingTimeMs, 'number');
  t.deepEqual((await facetSearch({ facetName: 'genre' })).facetHits,
    [{ value: 'Horror', count: 3 }, { value: 'Romance', count: 2 }, { value: 'Science Fiction', count: 2 }]);
  t.deepEqual((await facetSearch({ facetName: 'genre', filter: 'year > 1900' })).facetHits,
    [{ value: 'Horror', count: 2 }, { value: 'Science Fiction', count: 2 }]);
  t.deepEqual((await facetSearch({ facetName: 'genre', q: 'dracula' })).facetHits, [{ value: 'Horror', count: 1 }]);
  t.deepEqual((await facetSearch({ facetName: 'genre', facetQuery: 'horor' })).facetHits, [{ value: 'Horror', count: 3 }]);
  t.deepEqual((await facetSearch({ facetName: 'genre', facetQuery: 'zzz' })).facetHits, []);
});

test('facet search errors', async (t) => {
  const missing = await server.client.post('/indexes/books/facet-search', { facetQuery: 'a' });
  t.is(missing.status, 400);
  t.is(missing.body.code, 'missing_facet_search_facet_name');
  const notFilterable = await server.client.post('/indexes/books/facet-search', { facetName: 'title' });
  t.is(notFilterable.body.code, 'invalid_facet_search_facet_name');
  const badQuery = await server.client.post('/indexes/books/facet-search', { facetName: 'genre', facetQuery: 1 });
  t.is(badQuery.body.code, 'invalid_facet_search_query');
  const unknownIndex = await server.client.post('/indexes/nope/facet-search', { facetName: 'genre' });
  t.is(unknownIndex.status, 404);
});

test('faceting settings: maxValuesPerFacet and sortFacetValuesBy shape facetDistribution and facet search', async (t) => {
  await server.client.addDocuments('books_faceting', BOOKS);
  await server.client.run('PATCH', '/indexes/books_faceting/settings', {
    body: { filterableAttributes: ['genre'], faceting: { maxValuesPerFacet: 2, sortFacetValuesBy: { genre: 'count' } } },
  });
  const search = await server.client.post('/indexes/books_faceting/search', { facets: ['genre'] });
  t.deepEqual(search.body.facetDistribution, { genre: { Horror: 3, Romance: 2 } });
  t.deepEqual(search.body.facetStats, {});
  t.deepEqual((await facetSearch({ facetName: 'genre' }, 'books_faceting')).facetHits,
    [{ value: 'Horror', count: 3 }, { value: 'Romance', count: 2 }]);
  await server.client.run('PATCH', '/indexes/books_faceting/settings', { body: { facetSearch: false } });
  const disabled = await server.client.post('/indexes/books_faceting/facet-search', { facetName: 'genre' });
  t.is(disabled.body.code, 'facet_search_disabled');
});

test('facetDistribution lists facets by name and keeps count order for numeric values', async (t) => {
  await server.client.addDocuments('years', [1, 2, 3, 4, 5, 6].map((id) => ({ id, year: id <= 3 ? 2010 : id <= 5 ? 1999 : 5, kind: id % 2 ? 'b' : 'A' })));
  await server.client.run('PATCH', '/indexes/years/settings', { body: { filterableAttributes: ['year', 'kind'], faceting: { sortFacetValuesBy: { year: 'count' } } } });
  const counted = await server.client.post('/indexes/years/search', { facets: ['year', 'kind'] });
  t.true(counted.text.includes('"facetDistribution":{"kind":{"A":3,"b":3},"year":{"2010":3,"1999":2,"5":1}}'), counted.text);
});

test('facet search answers string (and boolean) values only, as Meilisearch (facet_id_string_fst): numbers never, even spelled alike', async (t) => {
  await server.client.run('PATCH', '/indexes/mixed_facets/settings', { body: { filterableAttributes: ['year', 'tag'] } });
  await server.client.addDocuments('mixed_facets', [
    { id: 1, year: 1965, tag: 'old' },
    { id: 2, year: '1965', tag: true },
    { id: 3, year: 1989, tag: 19 },
    { id: 4, year: ['1989a', 2001], tag: ['old', false] },
  ]);
  t.deepEqual((await facetSearch({ facetName: 'year' }, 'mixed_facets')).facetHits, [{ value: '1965', count: 1 }, { value: '1989a', count: 1 }]);
  t.deepEqual((await facetSearch({ facetName: 'year', facetQuery: '19' }, 'mixed_facets')).facetHits, [{ value: '1965', count: 1 }, { value: '1989a', count: 1 }]);
  t.deepEqual((await facetSearch({ facetName: 'year', facetQuery: '2001' }, 'mixed_facets')).facetHits, []);
  t.deepEqual((await facetSearch({ facetName: 'tag' }, 'mixed_facets')).facetHits,
    [{ value: 'false', count: 1 }, { value: 'old', count: 2 }, { value: 'true', count: 1 }]);
  // The search's facetDistribution still counts numbers.
  const distribution = await server.client.post('/indexes/mixed_facets/search', { facets: ['year'] });
  t.deepEqual(distribution.body.facetDistribution.year, { 1965: 2, 1989: 1, '1989a': 1, 2001: 1 });
});

test('alpha order of facet values is code point order (milli: UTF-8 bytes of the normalized value), not UTF-16 units: U+FFFD before U+1F600, in facetDistribution, facet search and merged federated facets', async (t) => {
  const values = ['\u{1F600} smile', '\uFFFD replacement', 'zebra', '\uFF21 fullwidth'];
  await server.client.run('PATCH', '/indexes/codepoints/settings', { body: { filterableAttributes: ['tag'] } });
  await server.client.addDocuments('codepoints', values.map((tag, id) => ({ id, tag })));
  const expected = ['\uFF21 fullwidth', 'zebra', '\uFFFD replacement', '\u{1F600} smile'];
  const search = await server.client.post('/indexes/codepoints/search', { facets: ['tag'] });
  t.is(search.status, 200, search.text);
  t.deepEqual(Object.keys(search.body.facetDistribution.tag), expected);
  const facets = await facetSearch({ facetName: 'tag' }, 'codepoints');
  t.deepEqual(facets.facetHits.map((hit: { value: string }) => hit.value), expected);
  const federated = await server.client.post('/multi-search', {
    federation: { facetsByIndex: { codepoints: ['tag'] }, mergeFacets: {} },
    queries: [{ indexUid: 'codepoints' }],
  });
  t.is(federated.status, 200, federated.text);
  // merged facets are sorted again by their raw values (Rust's String order: code points), not normalized
  t.deepEqual(Object.keys(federated.body.facetDistribution.tag), ['zebra', '\uFF21 fullwidth', '\uFFFD replacement', '\u{1F600} smile']);
  const byIndex = await server.client.post('/multi-search', {
    federation: { facetsByIndex: { codepoints: ['tag'] } },
    queries: [{ indexUid: 'codepoints' }],
  });
  t.deepEqual(Object.keys(byIndex.body.facetsByIndex.codepoints.distribution.tag), expected);
});
