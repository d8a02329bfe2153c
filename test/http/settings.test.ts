// /indexes/{uid}/settings: full GET with defaults, searchable/displayed attributes sub-routes, PATCH/DELETE.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
});
test.after.always(async () => {
  await server?.close();
});

const DEFAULT_SETTINGS = {
  displayedAttributes: ['*'],
  searchableAttributes: ['*'],
  filterableAttributes: [],
  sortableAttributes: [],
  rankingRules: ['words', 'typo', 'proximity', 'attributeRank', 'sort', 'wordPosition', 'exactness'],
  stopWords: [],
  nonSeparatorTokens: [],
  separatorTokens: [],
  dictionary: [],
  synonyms: {},
  distinctAttribute: null,
  proximityPrecision: 'byWord',
  typoTolerance: {
    enabled: true,
    minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
    disableOnWords: [],
    disableOnAttributes: [],
    disableOnNumbers: false,
  },
  faceting: { maxValuesPerFacet: 100, sortFacetValuesBy: { '*': 'alpha' } },
  pagination: { maxTotalHits: 1000 },
  embedders: {},
  searchCutoffMs: null,
  localizedAttributes: null,
  facetSearch: true,
  prefixSearch: 'indexingTime',
};

const ids = (body: { hits: Array<{ id: number }> }) => body.hits.map((hit) => hit.id);

async function search(index: string, body: Record<string, unknown>) {
  const response = await server.client.post(`/indexes/${index}/search`, body);
  if (response.status !== 200) throw new Error(`search: ${response.status} ${response.text}`);
  return response.body;
}

test('GET /settings returns every setting with its default, in Meilisearch order', async (t) => {
  const { client } = server;
  await client.createIndex('set_defaults');
  const response = await client.get('/indexes/set_defaults/settings');
  t.is(response.status, 200);
  t.deepEqual(response.body, DEFAULT_SETTINGS);
  t.deepEqual(Object.keys(response.body), Object.keys(DEFAULT_SETTINGS));
});

test('GET /settings of a missing index is index_not_found', async (t) => {
  const response = await server.client.get('/indexes/set_missing/settings');
  t.is(response.status, 404);
  t.deepEqual(response.body, errorBody('Index `set_missing` not found.', 'index_not_found'));
  const sub = await server.client.get('/indexes/set_missing/settings/searchable-attributes');
  t.is(sub.status, 404);
  t.is(sub.body.code, 'index_not_found');
});

test('searchable attributes: PUT restricts search, DELETE resets it', async (t) => {
  const { client } = server;
  await client.addDocuments('set_searchable', [
    { id: 1, title: 'sunflower', overview: 'rose' },
    { id: 2, title: 'rose', overview: 'tulip' },
  ]);
  t.deepEqual((await client.get('/indexes/set_searchable/settings/searchable-attributes')).body, ['*']);
  t.deepEqual(ids(await search('set_searchable', { q: 'rose' })).sort(), [1, 2]);

  const put = await client.put('/indexes/set_searchable/settings/searchable-attributes', ['title']);
  t.is(put.status, 202);
  t.deepEqual(Object.keys(put.body), ['taskUid', 'indexUid', 'status', 'type', 'enqueuedAt']);
  t.like(put.body, { indexUid: 'set_searchable', status: 'enqueued', type: 'settingsUpdate' });
  const task = await client.waitForTask(put.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { searchableAttributes: ['title'] });

  t.deepEqual((await client.get('/indexes/set_searchable/settings/searchable-attributes')).body, ['title']);
  t.deepEqual((await client.get('/indexes/set_searchable/settings')).body.searchableAttributes, ['title']);
  t.deepEqual(ids(await search('set_searchable', { q: 'rose' })), [2]);
  t.deepEqual(ids(await search('set_searchable', { q: 'tulip' })), []);
  t.deepEqual(ids(await search('set_searchable', { q: 'sunflower' })), [1]);

  const reset = await client.delete('/indexes/set_searchable/settings/searchable-attributes');
  t.is(reset.status, 202);
  t.is(reset.body.type, 'settingsUpdate');
  const resetTask = await client.waitForTask(reset.body.taskUid);
  t.is(resetTask.status, 'succeeded');
  t.deepEqual(resetTask.details, { searchableAttributes: ['*'] });
  t.deepEqual((await client.get('/indexes/set_searchable/settings/searchable-attributes')).body, ['*']);
  t.deepEqual(ids(await search('set_searchable', { q: 'tulip' })), [2]);
});

test('searchable attributes order ranks matches in earlier attributes first', async (t) => {
  const { client } = server;
  await client.addDocuments('set_attr_rank', [
    { id: 1, title: 'plain', overview: 'comet' },
    { id: 2, title: 'comet', overview: 'plain' },
  ]);
  await client.run('PUT', '/indexes/set_attr_rank/settings/searchable-attributes', { body: ['title', 'overview'] });
  t.deepEqual(ids(await search('set_attr_rank', { q: 'comet' })), [2, 1]);
  await client.run('PUT', '/indexes/set_attr_rank/settings/searchable-attributes', { body: ['overview', 'title'] });
  t.deepEqual(ids(await search('set_attr_rank', { q: 'comet' })), [1, 2]);
});

test('searchable attributes select nested fields by dotted path or parent', async (t) => {
  const { client } = server;
  await client.addDocuments('set_nested', [
    { id: 1, title: 'The Hobbit', author: { name: 'Tolkien', country: 'England' } },
    { id: 2, title: 'Dune', author: { name: 'Herbert', country: 'USA' } },
  ]);
  await client.run('PUT', '/indexes/set_nested/settings/searchable-attributes', { body: ['author.name'] });
  t.deepEqual(ids(await search('set_nested', { q: 'tolkien' })), [1]);
  t.deepEqual(ids(await search('set_nested', { q: 'hobbit' })), []);
  t.deepEqual(ids(await search('set_nested', { q: 'england' })), []);
  await client.run('PUT', '/indexes/set_nested/settings/searchable-attributes', { body: ['author'] });
  t.deepEqual(ids(await search('set_nested', { q: 'england' })), [1]);
  t.deepEqual(ids(await search('set_nested', { q: 'herbert' })), [2]);
});

test('displayed attributes limit search hits but not GET documents', async (t) => {
  const { client } = server;
  await client.addDocuments('set_displayed', [{ id: 1, title: 'Carol', secret: 'hidden' }]);
  const put = await client.put('/indexes/set_displayed/settings/displayed-attributes', ['id', 'title']);
  t.is(put.status, 202);
  const task = await client.waitForTask(put.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { displayedAttributes: ['id', 'title'] });
  t.deepEqual((await client.get('/indexes/set_displayed/settings/displayed-attributes')).body, ['id', 'title']);

  t.deepEqual((await search('set_displayed', { q: 'carol' })).hits, [{ id: 1, title: 'Carol' }]);
  t.deepEqual((await search('set_displayed', { q: 'carol', attributesToRetrieve: ['title', 'secret'] })).hits, [
    { title: 'Carol' },
  ]);
  t.deepEqual((await client.get('/indexes/set_displayed/documents/1')).body, { id: 1, title: 'Carol', secret: 'hidden' });
  t.deepEqual((await search('set_displayed', { q: 'hidden' })).hits, [{ id: 1, title: 'Carol' }], 'still searchable');

  const reset = await client.delete('/indexes/set_displayed/settings/displayed-attributes');
  const resetTask = await client.waitForTask(reset.body.taskUid);
  t.deepEqual(resetTask.details, { displayedAttributes: ['*'] });
  t.deepEqual((await search('set_displayed', { q: 'carol' })).hits, [{ id: 1, title: 'Carol', secret: 'hidden' }]);
});

test('a list containing "*" is stored as ["*"]', async (t) => {
  const { client } = server;
  await client.createIndex('set_star');
  const task = await client.run('PUT', '/indexes/set_star/settings/displayed-attributes', { body: ['title', '*'] });
  t.deepEqual(task.details, { displayedAttributes: ['*'] });
  t.deepEqual((await client.get('/indexes/set_star/settings/displayed-attributes')).body, ['*']);
});

test('a settings update on a missing index creates it', async (t) => {
  const { client } = server;
  await client.run('PUT', '/indexes/set_creates/settings/searchable-attributes', { body: ['title'] });
  const index = await client.get('/indexes/set_creates');
  t.is(index.status, 200);
  t.is(index.body.primaryKey, null);
  t.deepEqual((await client.get('/indexes/set_creates/settings')).body.searchableAttributes, ['title']);
});

test('PATCH /settings applies only the given keys; DELETE /settings resets all', async (t) => {
  const { client } = server;
  await client.createIndex('set_patch');
  const patch = await client.patch('/indexes/set_patch/settings', {
    searchableAttributes: ['title'],
    displayedAttributes: ['title'],
  });
  t.is(patch.status, 202);
  const task = await client.waitForTask(patch.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { displayedAttributes: ['title'], searchableAttributes: ['title'] });
  const settings = (await client.get('/indexes/set_patch/settings')).body;
  t.deepEqual(settings, { ...DEFAULT_SETTINGS, searchableAttributes: ['title'], displayedAttributes: ['title'] });

  const reset = await client.delete('/indexes/set_patch/settings');
  t.is(reset.status, 202);
  const resetTask = await client.waitForTask(reset.body.taskUid);
  t.is(resetTask.status, 'succeeded');
  t.deepEqual(resetTask.details.displayedAttributes, ['*']);
  t.deepEqual(resetTask.details.searchableAttributes, ['*']);
  t.deepEqual((await client.get('/indexes/set_patch/settings')).body, DEFAULT_SETTINGS);
});

test('PATCH /settings with null resets one key', async (t) => {
  const { client } = server;
  await client.run('PATCH', '/indexes/set_null/settings', { body: { searchableAttributes: ['a'] } });
  const task = await client.run('PATCH', '/indexes/set_null/settings', { body: { searchableAttributes: null } });
  t.deepEqual(task.details, { searchableAttributes: ['*'] });
  t.deepEqual((await client.get('/indexes/set_null/settings/searchable-attributes')).body, ['*']);
});

test('PATCH /settings with {} is a valid no-op task', async (t) => {
  const { client } = server;
  await client.createIndex('set_noop');
  const task = await client.run('PATCH', '/indexes/set_noop/settings', { body: {} });
  t.deepEqual(task.details, {});
  t.deepEqual((await client.get('/indexes/set_noop/settings')).body, DEFAULT_SETTINGS);
});

test('wrong setting types are rejected with the setting code', async (t) => {
  const { client } = server;
  const patch = await client.patch('/indexes/set_invalid/settings', { searchableAttributes: 'title' });
  t.is(patch.status, 400);
  t.deepEqual(
    patch.body,
    errorBody(
      'Invalid value type at `.searchableAttributes`: expected an array, but found a string: `"title"`',
      'invalid_settings_searchable_attributes',
    ),
  );
  const displayed = await client.put('/indexes/set_invalid/settings/displayed-attributes', [1]);
  t.is(displayed.status, 400);
  t.is(displayed.body.code, 'invalid_settings_displayed_attributes');
  const unknown = await client.patch('/indexes/set_invalid/settings', { notASetting: true });
  t.is(unknown.status, 400);
  t.is(unknown.body.code, 'bad_request');
  t.is((await client.get('/indexes/set_invalid')).status, 404, 'rejected updates create nothing');
});

test('settings sub-route bodies need a JSON Content-Type', async (t) => {
  const response = await server.client.put('/indexes/set_ct/settings/searchable-attributes', ['a'], { contentType: null });
  t.is(response.status, 415);
  t.is(response.body.code, 'missing_content_type');
});
