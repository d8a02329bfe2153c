// POST /indexes/{uid}/fields: every field with what the settings make of it, sorted by name,
// filtered and paginated; Meilisearch's error codes for a bad body; the fields.post action.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'fields-master-key-0123456789';
let server: TestServer;

test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 2 });
  const { client } = server;
  await client.createIndex('movies', 'id');
  await client.addDocuments('movies', [{ id: 1, title: 'Alpha', genre: 'sci-fi', year: 1999, cast: { lead: 'x' } }]);
  await client.run('PATCH', '/indexes/movies/settings', {
    body: {
      searchableAttributes: ['title'],
      displayedAttributes: ['title', 'genre', 'cast'],
      sortableAttributes: ['year'],
      rankingRules: ['year:desc', 'words', 'typo'],
      distinctAttribute: 'genre',
      filterableAttributes: ['year', { attributePatterns: ['gen*'], features: { facetSearch: true, filter: { equality: true, comparison: false } } }],
      faceting: { sortFacetValuesBy: { genre: 'count' } },
      localizedAttributes: [{ attributePatterns: ['title'], locales: ['eng', 'fra'] }],
    },
  });
});
test.after.always(async () => {
  await server?.close();
});

test('every field, sorted by name, with its capabilities from the settings', async (t) => {
  const { status, body } = await server.client.post('/indexes/movies/fields', {});
  t.is(status, 200);
  t.deepEqual(body.results.map((field: any) => field.name), ['cast', 'genre', 'id', 'title', 'year']);
  t.is(body.total, 5);
  t.is(body.offset, 0);
  t.is(body.limit, 20);
  const byName = Object.fromEntries(body.results.map((field: any) => [field.name, field]));
  t.deepEqual(byName.title, {
    name: 'title', displayed: { enabled: true }, searchable: { enabled: true }, sortable: { enabled: false },
    distinct: { enabled: false }, rankingRule: { enabled: false },
    filterable: { enabled: false, sortBy: 'alpha', facetSearch: false, equality: false, comparison: false },
    localized: { locales: ['eng', 'fra'] },
  });
  t.deepEqual(byName.year.rankingRule, { enabled: true, order: 'desc' });
  t.deepEqual(byName.year.filterable, { enabled: true, sortBy: 'alpha', facetSearch: true, equality: true, comparison: true });
  t.deepEqual(byName.genre.filterable, { enabled: true, sortBy: 'count', facetSearch: true, equality: true, comparison: false });
  t.true(byName.genre.distinct.enabled);
  t.false(byName.id.displayed.enabled);
  t.true(byName.year.sortable.enabled);
});

test('filters combine with AND; offset and limit page the filtered list', async (t) => {
  const { client } = server;
  const displayed = (await client.post('/indexes/movies/fields', { filter: { displayed: true, searchable: false } })).body;
  t.deepEqual(displayed.results.map((field: any) => field.name), ['cast', 'genre']);
  const patterns = (await client.post('/indexes/movies/fields', { filter: { attributePatterns: ['ti*', 'y*'] } })).body;
  t.deepEqual(patterns.results.map((field: any) => field.name), ['title', 'year']);
  const page = (await client.post('/indexes/movies/fields', { offset: 1, limit: 2 })).body;
  t.deepEqual(page.results.map((field: any) => field.name), ['genre', 'id']);
  t.is(page.total, 5);
  t.deepEqual((await client.post('/indexes/movies/fields', { offset: 99 })).body.results, []);
});

test('bad bodies get Meilisearch codes; unknown index 404; the key needs fields.post', async (t) => {
  const { client } = server;
  const cases: [unknown, string][] = [
    [{ limit: -1 }, 'invalid_index_limit'],
    [{ offset: 'a' }, 'invalid_index_offset'],
    [{ filter: 'x' }, 'invalid_index_fields_filter'],
    [{ filter: { nope: true } }, 'invalid_index_fields_filter'],
    [{ filter: { displayed: 'yes' } }, 'invalid_index_fields_filter_displayed'],
    [{ filter: { rankingRule: 1 } }, 'invalid_index_fields_filter_ranking_rule'],
    [{ filter: { attributePatterns: [1] } }, 'invalid_index_fields_filter_attribute_patterns'],
    [{ other: 1 }, 'bad_request'],
    [[], 'bad_request'],
  ];
  for (const [body, code] of cases) {
    const response = await client.post('/indexes/movies/fields', body);
    t.is(response.status, 400, JSON.stringify(body));
    t.is(response.body.code, code, JSON.stringify(body));
  }
  t.is((await client.post('/indexes/nope/fields', {})).status, 404);
  const search = await client.post('/keys', { actions: ['search'], indexes: ['*'], expiresAt: null });
  t.is((await client.withKey(search.body.key).post('/indexes/movies/fields', {})).status, 403);
  const fields = await client.post('/keys', { actions: ['fields.post'], indexes: ['movies'], expiresAt: null });
  t.is((await client.withKey(fields.body.key).post('/indexes/movies/fields', {})).status, 200);
});
