// Issue 22: Meilisearch v1.53 names the index (``Index `uid`: ``) before the errors its search raises
// against the index's settings (MeilisearchHttpError::Milli from search.execute(): not filterable,
// filter operator, not sortable, sort rule missing, distinct, attributesToSearchOn), in searches,
// multi-searches and federated ones, but not before syntax errors, facet distribution errors, facet
// search errors or the documents routes' (its tests: search/errors.rs, search/multi/mod.rs, documents/errors.rs).
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  const { client } = server;
  const documents = [{ id: 1, title: 'Glass', color: 'blue' }, { id: 2, title: 'Dune', color: 'red' }];
  await client.addDocuments('pfx', documents);
  await client.run('PATCH', '/indexes/pfx/settings', { body: { filterableAttributes: ['title'], sortableAttributes: ['id'], searchableAttributes: ['title', 'color'] } });
  await client.addDocuments('pfx_norule', documents);
  await client.run('PATCH', '/indexes/pfx_norule/settings', { body: { sortableAttributes: ['id'], rankingRules: ['words', 'typo'] } });
});

test.after.always(async () => {
  await server?.close();
});

async function message(path: string, body: unknown, status = 400): Promise<string> {
  const response = await server.client.post(path, body);
  if (response.status !== status) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.message;
}

test('a search names the index before its settings errors', async (t) => {
  t.is(await message('/indexes/pfx/search', { filter: 'many = Glass' }),
    'Index `pfx`: Attribute `many` is not filterable. Available filterable attribute patterns are: `title`.\n2:6 "many" = "Glass"');
  t.is(await message('/indexes/pfx/search', { sort: ['title:asc'] }), 'Index `pfx`: Attribute `title` is not sortable. Available sortable attributes are: `id`.');
  t.is(await message('/indexes/pfx_norule/search', { sort: ['id:asc'] }),
    'Index `pfx_norule`: You must specify where `sort` is listed in the rankingRules setting to use the sort parameter at search time.');
  t.true((await message('/indexes/pfx/search', { distinct: 'color' })).startsWith('Index `pfx`: Attribute `color` is not filterable and thus, cannot be used as distinct attribute.'));
  t.is(await message('/indexes/pfx/search', { q: 'glass', attributesToSearchOn: ['id'] }),
    'Index `pfx`: Attribute `id` is not searchable. Available searchable attributes are: `color, title`.');
  const get = await server.client.request('GET', '/indexes/pfx/search?filter=many%20%3D%20Glass');
  t.is(get.status, 400);
  t.true(get.body.message.startsWith('Index `pfx`: Attribute `many` is not filterable.'));
  t.is(get.body.code, 'invalid_search_filter');
});

test('syntax errors, facet distribution errors, facet search and the documents routes name no index', async (t) => {
  t.true((await message('/indexes/pfx/search', { filter: 'title = Glass XOR title = Glass' })).startsWith('Found unexpected characters'));
  t.true((await message('/indexes/pfx/search', { sort: ['title'] })).startsWith('Invalid syntax for the sort parameter'));
  t.true((await message('/indexes/pfx/search', { sort: ['_geo:asc'] })).startsWith('`_geo` is a reserved keyword'));
  t.true((await message('/indexes/pfx/search', { facets: ['color'] })).startsWith('Invalid facet distribution'));
  t.true((await message('/indexes/pfx/facet-search', { facetName: 'title', filter: 'many = Glass' })).startsWith('Attribute `many` is not filterable.'));
  t.true((await message('/indexes/pfx/facet-search', { facetName: 'title', q: 'x', attributesToSearchOn: ['id'] })).startsWith('Attribute `id` is not searchable.'));
  t.true((await message('/indexes/pfx/documents/fetch', { filter: 'many = Glass' })).startsWith('Attribute `many` is not filterable.'));
  t.true((await message('/indexes/pfx/documents/fetch', { sort: ['title:asc'] })).startsWith('Attribute `title` is not sortable.'));
});

test('multi-search and federated search: the query, then the index', async (t) => {
  t.is(await message('/multi-search', { queries: [{ indexUid: 'pfx', q: 'glass' }, { indexUid: 'pfx', filter: 'many = Glass' }] }),
    'Inside `.queries[1]`: Index `pfx`: Attribute `many` is not filterable. Available filterable attribute patterns are: `title`.\n2:6 "many" = "Glass"');
  t.is(await message('/multi-search', { federation: {}, queries: [{ indexUid: 'pfx', sort: ['title:asc'] }] }),
    'Inside `.queries[0]`: Index `pfx`: Attribute `title` is not sortable. Available sortable attributes are: `id`.');
  t.true((await message('/multi-search', { queries: [{ indexUid: 'pfx', filter: 'title = Glass XOR title = Glass' }] })).startsWith('Inside `.queries[0]`: Found unexpected'));
});

test('after a swap the error names the uid searched, not the data it now points to', async (t) => {
  const { client } = server;
  await client.addDocuments('pfx_left', [{ id: 1, title: 'Glass' }]);
  await client.addDocuments('pfx_right', [{ id: 1, title: 'Dune' }]);
  await client.run('POST', '/swap-indexes', { body: [{ indexes: ['pfx_left', 'pfx_right'] }] });
  t.true((await message('/indexes/pfx_left/search', { filter: 'many = 1' })).startsWith('Index `pfx_left`: Attribute `many` is not filterable.'));
  t.true((await message('/indexes/pfx_right/search', { filter: 'many = 1' })).startsWith('Index `pfx_right`: Attribute `many` is not filterable.'));
});
