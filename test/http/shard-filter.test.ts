// The `_shard` filter (src/filter/shard-filter.ts, Meilisearch v1.37+): on a node, `_shard = "g"`
// selects its documents when g is the group listing its `self`, none for another group of the
// network; `!=`, `IN`, `NOT IN` and `NOT` alike; on search, facet search, GET /documents and POST
// /documents/fetch (ids too); through useNetwork each group answers for its own documents. Errors as
// Meilisearch's: the feature off (feature_not_enabled, pointing at `_shard`), a group the network
// does not have and an operator other than =, != and IN (invalid_search_filter, after the filterable
// check); `_shard` needs no filterableAttributes entry; `"_shard"` as a value is an ordinary value.
import test from 'ava';
import { startTestServer, type Client, type TestServer } from './harness.js';

async function enableNetwork(client: Client): Promise<void> {
  const response = await client.patch('/experimental-features', { network: true });
  if (response.status !== 200) throw new Error(response.text);
}

async function load(client: Client, documents: Record<string, unknown>[]): Promise<void> {
  await client.waitForTask((await client.post('/indexes/books/documents', documents)).body.taskUid);
  await client.waitForTask((await client.patch('/indexes/books/settings', { filterableAttributes: ['genre'] })).body.taskUid);
}

const ids = (body: { hits?: { id: number }[]; results?: { id: number }[] }) => (body.hits ?? body.results ?? []).map((hit) => hit.id).sort((a, b) => a - b);

test('_shard selects this node\'s group on search, facet search and the documents routes, and the other group through useNetwork', async (t) => {
  const servers: TestServer[] = [];
  try {
    const one = await startTestServer({ workers: 1, shardsPerIndex: 2 });
    servers.push(one);
    const two = await startTestServer({ workers: 1, shardsPerIndex: 2 });
    servers.push(two);
    // Two single nodes, each holding its group's documents (as a cluster's nodes do).
    await load(one.client, [{ id: 1, title: 'red river', genre: 'a' }, { id: 2, title: 'blue river', genre: 'b' }, { id: 3, title: '_shard', genre: 'a' }]);
    await load(two.client, [{ id: 10, title: 'red river delta', genre: 'a' }, { id: 11, title: 'green river', genre: 'c' }]);
    const remotes = { one: { url: `http://127.0.0.1:${one.port}` }, two: { url: `http://127.0.0.1:${two.port}` } };
    const shards = { g1: { remotes: ['one'] }, g2: { remotes: ['two'] } };
    for (const [server, self] of [[one, 'one'], [two, 'two']] as const) {
      await enableNetwork(server.client);
      const set = await server.client.patch('/network', { self, remotes, shards });
      t.is(set.status, 200, set.text);
    }
    const client = one.client;
    const search = async (filter: unknown, more: Record<string, unknown> = {}) => {
      const response = await client.post('/indexes/books/search', { filter, ...more });
      t.is(response.status, 200, `${JSON.stringify(filter)}: ${response.text}`);
      return ids(response.body);
    };
    t.deepEqual(await search('_shard = "g1"'), [1, 2, 3]);
    t.deepEqual(await search('_shard = g2'), []);
    t.deepEqual(await search('_shard != "g2"'), [1, 2, 3]);
    t.deepEqual(await search('_shard != "g1"'), []);
    t.deepEqual(await search('_shard IN [g2, g1]'), [1, 2, 3]);
    t.deepEqual(await search('_shard NOT IN [g1]'), []);
    t.deepEqual(await search('NOT _shard = g2 AND genre = a'), [1, 3]);
    t.deepEqual(await search(['_shard = g2', ['genre = b', '_shard = g1']]), []);
    t.deepEqual(await search([['_shard = g2', 'genre = b']]), [2]);
    // A value "_shard" is a value, not the attribute.
    t.deepEqual(await search('genre = "_shard"'), []);
    // Through the network each group answers for its own documents.
    t.deepEqual(await search('_shard = "g2"', { useNetwork: true }), [10, 11]);
    t.deepEqual(await search('_shard IN ["g1", "g2"] AND genre = a', { useNetwork: true }), [1, 3, 10]);
    t.deepEqual(await search('_shard != "g1"', { useNetwork: true, q: 'river' }), [10, 11]);
    // multi-search, facets
    const multi = await client.post('/multi-search', { queries: [{ indexUid: 'books', filter: '_shard = g1', facets: ['genre'] }] });
    t.is(multi.status, 200, multi.text);
    t.deepEqual(multi.body.results[0].facetDistribution, { genre: { a: 2, b: 1 } });
    const facet = await client.post('/indexes/books/facet-search', { facetName: 'genre', filter: '_shard = g1 AND genre != b' });
    t.is(facet.status, 200, facet.text);
    t.deepEqual(facet.body.facetHits, [{ value: 'a', count: 2 }]);
    t.deepEqual((await client.post('/indexes/books/facet-search', { facetName: 'genre', filter: '_shard = g2' })).body.facetHits, []);
    // documents routes
    const get = await client.get('/indexes/books/documents?filter=_shard%20%3D%20g1');
    t.is(get.status, 200, get.text);
    t.deepEqual(ids(get.body), [1, 2, 3]);
    t.is(get.body.total, 3);
    t.deepEqual(ids((await client.get('/indexes/books/documents?filter=_shard%20%3D%20g2')).body), []);
    const fetch = await client.post('/indexes/books/documents/fetch', { filter: '_shard != g1 OR genre = b' });
    t.is(fetch.status, 200, fetch.text);
    t.deepEqual(ids(fetch.body), [2]);
    const byIds = await client.post('/indexes/books/documents/fetch', { ids: ['1', '2'], filter: '_shard = g1' });
    t.is(byIds.status, 200, byIds.text);
    t.deepEqual(ids(byIds.body), [1, 2]);
    t.deepEqual(ids((await client.post('/indexes/books/documents/fetch', { ids: ['1', '2'], filter: '_shard = g2' })).body), []);

    // Errors: a group the network does not have, an operator other than =, != and IN.
    const unknown = await client.post('/indexes/books/search', { filter: '_shard = nowhere' });
    t.is(unknown.status, 400);
    t.is(unknown.body.code, 'invalid_search_filter');
    t.is(unknown.body.message, 'Index `books`: Shard `nowhere` does not exist');
    t.is((await client.post('/indexes/books/search', { filter: '_shard IN [g1, nowhere]' })).body.message, 'Index `books`: Shard `nowhere` does not exist');
    for (const [filter, operator] of [['_shard > 1', '>'], ['_shard 1 TO 2', 'TO'], ['_shard EXISTS', 'EXISTS'], ['_shard IS NULL', 'IS NULL'],
      ['_shard IS NOT EMPTY', 'IS EMPTY'], ['_shard STARTS WITH g', 'STARTS WITH'], ['_shard <= g1', '<=']]) {
      const refused = await client.post('/indexes/books/search', { filter });
      t.is(refused.status, 400, filter);
      t.is(refused.body.code, 'invalid_search_filter', filter);
      t.is(refused.body.message, `Index \`books\`: Filter operator \`${operator} is not allowed for the special attribute \`_shard\`.\n  - Note: allowed operators: =, !=, IN. \n  - Note: other operators are not allowed for the special attribute \`_shard\`.`, filter);
    }
    // The filterable check comes first.
    const notFilterable = await client.post('/indexes/books/search', { filter: '_shard > 1 AND title = x' });
    t.is(notFilterable.body.code, 'invalid_search_filter');
    t.true(notFilterable.body.message.includes('Attribute `title` is not filterable'), notFilterable.body.message);
    // The documents routes keep Meilisearch's search code for the shard errors.
    const documentsUnknown = await client.post('/indexes/books/documents/fetch', { filter: '_shard = nowhere' });
    t.is(documentsUnknown.status, 400);
    t.is(documentsUnknown.body.code, 'invalid_search_filter');
    t.is(documentsUnknown.body.message, 'Shard `nowhere` does not exist');
    const facetUnknown = await client.post('/indexes/books/facet-search', { facetName: 'genre', filter: '_shard = nowhere' });
    t.is(facetUnknown.body.code, 'invalid_search_filter');

    // The network feature off: feature_not_enabled, pointing at the first `_shard`.
    await client.patch('/experimental-features', { network: false });
    for (const request of [
      () => client.post('/indexes/books/search', { filter: 'genre = a OR _shard = g1' }),
      () => client.post('/indexes/books/documents/fetch', { filter: 'genre = a OR _shard = g1' }),
      () => client.get('/indexes/books/documents?filter=genre%20%3D%20a%20OR%20_shard%20%3D%20g1'),
      () => client.post('/indexes/books/facet-search', { facetName: 'genre', filter: 'genre = a OR _shard = g1' }),
    ]) {
      const off = await request();
      t.is(off.status, 400, off.text);
      t.is(off.body.code, 'feature_not_enabled');
      t.is(off.body.message, 'using a shard filter requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805\n14:20 genre = a OR _shard = g1');
    }
    // ... while a value "_shard" stays a value.
    t.is((await client.post('/indexes/books/search', { filter: 'genre = _shard' })).status, 200);
  } finally {
    for (const server of servers) await server.close();
  }
});

test('without shard groups every _shard names a group that does not exist', async (t) => {
  const server = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  try {
    await load(server.client, [{ id: 1, title: 'x', genre: 'a' }]);
    await enableNetwork(server.client);
    const response = await server.client.post('/indexes/books/search', { filter: '_shard = g1' });
    t.is(response.status, 400);
    t.is(response.body.message, 'Index `books`: Shard `g1` does not exist');
  } finally {
    await server.close();
  }
});

test('delete by filter resolves _shard with the node\'s group: its documents of the named groups go, a group not in the network fails the task', async (t) => {
  const server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  try {
    const { client } = server;
    await load(client, [{ id: 1, title: 'red', genre: 'a' }, { id: 2, title: 'blue', genre: 'b' }, { id: 3, title: 'green', genre: 'a' }, { id: 4, title: 'gold', genre: 'b' }]);
    // The feature off: refused when the task is asked for (Meilisearch checks it at enqueue), pointing at `_shard`.
    const off = await client.post('/indexes/books/documents/delete', { filter: 'genre = a OR _shard = g1' });
    t.is(off.status, 400, off.text);
    t.is(off.body.code, 'feature_not_enabled');
    t.is(off.body.message, 'using a shard filter requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805\n14:20 genre = a OR _shard = g1');
    await enableNetwork(client);
    const set = await client.patch('/network', {
      self: 'one', remotes: { one: { url: 'http://127.0.0.1:1' }, two: { url: 'http://127.0.0.1:2' } }, shards: { g1: { remotes: ['one'] }, g2: { remotes: ['two'] } },
    });
    t.is(set.status, 200, set.text);
    const remove = async (filter: unknown) => {
      const enqueued = await client.post('/indexes/books/documents/delete', { filter });
      t.is(enqueued.status, 202, `${JSON.stringify(filter)}: ${enqueued.text}`);
      return client.waitForTask(enqueued.body.taskUid);
    };
    const remaining = async () => ids((await client.get('/indexes/books/documents')).body);
    // Another group's documents: none here.
    const other = await remove('_shard = g2');
    t.is(other.status, 'succeeded', JSON.stringify(other));
    t.is(other.details.deletedDocuments, 0);
    t.deepEqual(await remaining(), [1, 2, 3, 4]);
    // This node's group, with another condition; `_shard` needs no filterableAttributes entry.
    const own = await remove('_shard = g1 AND genre = b');
    t.is(own.status, 'succeeded', JSON.stringify(own));
    t.is(own.details.deletedDocuments, 2);
    t.deepEqual(await remaining(), [1, 3]);
    t.is((await remove(['_shard != g1', 'genre = a'])).details.deletedDocuments, 0);
    t.deepEqual(await remaining(), [1, 3]);
    // A group the network does not have, an operator other than =, != and IN: the task fails, search's code.
    const unknown = await remove('_shard IN [g1, nowhere]');
    t.is(unknown.status, 'failed');
    t.is(unknown.error.code, 'invalid_search_filter');
    t.is(unknown.error.message, 'Index `books`: Shard `nowhere` does not exist');
    const operator = await remove('_shard EXISTS');
    t.is(operator.status, 'failed');
    t.is(operator.error.code, 'invalid_search_filter');
    t.true(operator.error.message.startsWith('Index `books`: Filter operator `EXISTS is not allowed for the special attribute `_shard`.'), operator.error.message);
    t.deepEqual(await remaining(), [1, 3]);
    t.is((await remove('_shard IN [g1]')).details.deletedDocuments, 2);
    t.deepEqual(await remaining(), []);
  } finally {
    await server.close();
  }
});
