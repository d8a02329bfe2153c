// useNetwork on the documents routes (Meilisearch v1.37+): GET /documents, POST /documents/fetch and
// GET /documents/{id} answer every shard group's documents, not only this node's: each group's first
// offset + limit (its node's `_network-documents` route, with the remote's searchApiKey), merged by
// the sort values then internal id, totals summed, `remoteErrors` for a group that does not answer;
// a document not held here is fetched from the group holding it. The parameter needs the network
// feature (feature_not_enabled), a boolean (invalid_document_use_network). Two single nodes, one group each.
import test from 'ava';
import { freePort, startTestServer, type Client, type TestServer } from './harness.js';

const MASTER = 'network-documents-master-key-0123';

async function setUp(t: { is: (a: unknown, b: unknown, m?: string) => void }, servers: TestServer[]): Promise<{ client: Client; other: Client; deadPort: number }> {
  const one = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  servers.push(one);
  const two = await startTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER });
  servers.push(two);
  const other = two.client.withKey(MASTER);
  const settings = { filterableAttributes: ['genre'], sortableAttributes: ['rank'] };
  for (const [client, documents] of [
    [one.client, [{ id: 1, title: 'red river', genre: 'a', rank: 5 }, { id: 2, title: 'blue river', genre: 'b', rank: 1 }, { id: 3, title: 'grey', genre: 'a', rank: 3 }]],
    [other, [{ id: 10, title: 'red river delta', genre: 'a', rank: 4 }, { id: 11, title: 'green river', genre: 'c', rank: 2 }]],
  ] as const) {
    await client.waitForTask((await client.post('/indexes/books/documents', documents)).body.taskUid);
    await client.waitForTask((await client.patch('/indexes/books/settings', settings)).body.taskUid);
    t.is((await client.patch('/experimental-features', { network: true })).status, 200);
  }
  const documentsKey = (await other.post('/keys', { actions: ['documents.get', 'search'], indexes: ['*'], expiresAt: null })).body.key as string;
  const deadPort = await freePort();
  const remotes = { one: { url: `http://127.0.0.1:${one.port}` }, two: { url: `http://127.0.0.1:${two.port}`, searchApiKey: documentsKey } };
  const set = await one.client.patch('/network', { self: 'one', remotes, shards: { g1: { remotes: ['one'] }, g2: { remotes: ['two'] } } });
  t.is(set.status, 200, set.text);
  t.is((await other.patch('/network', { self: 'two', remotes, shards: { g1: { remotes: ['one'] }, g2: { remotes: ['two'] } } })).status, 200);
  return { client: one.client, other, deadPort };
}

const ids = (body: { results: { id: number }[] }) => body.results.map((document) => document.id);

test('useNetwork on GET /documents, POST /documents/fetch and GET /documents/{id} answers every group\'s documents', async (t) => {
  const servers: TestServer[] = [];
  try {
    const { client } = await setUp(t, servers);
    const fetch = async (body: Record<string, unknown>) => {
      const response = await client.post('/indexes/books/documents/fetch', body);
      t.is(response.status, 200, `${JSON.stringify(body)}: ${response.text}`);
      return response.body;
    };
    const all = await fetch({ useNetwork: true });
    t.deepEqual(ids(all).sort((a, b) => a - b), [1, 2, 3, 10, 11]);
    t.is(all.total, 5);
    t.is(all.remoteErrors, undefined);
    t.deepEqual(ids(await fetch({ useNetwork: false })), [1, 2, 3]);
    t.deepEqual(ids(await fetch({})), [1, 2, 3]);
    // Sorted: merged by the sort values, the window applied to the merge.
    const sorted = await fetch({ useNetwork: true, sort: ['rank:asc'], offset: 1, limit: 3, fields: ['id', 'rank'] });
    t.deepEqual(sorted.results, [{ id: 11, rank: 2 }, { id: 3, rank: 3 }, { id: 10, rank: 4 }]);
    t.deepEqual([sorted.offset, sorted.limit, sorted.total], [1, 3, 5]);
    t.deepEqual(ids(await fetch({ useNetwork: true, sort: ['rank:desc'], limit: 2 })), [1, 10]);
    t.deepEqual(ids(await fetch({ useNetwork: true, filter: 'genre = a', sort: ['rank:asc'] })), [3, 10, 1]);
    t.is((await fetch({ useNetwork: true, filter: 'genre = a' })).total, 3);
    t.deepEqual(ids(await fetch({ useNetwork: true, ids: ['2', '11', '404'] })).sort((a, b) => a - b), [2, 11]);
    t.deepEqual(ids(await fetch({ useNetwork: true, filter: '_shard = g2', sort: ['rank:asc'] })), [11, 10]);
    // GET /documents
    const get = await client.get('/indexes/books/documents?useNetwork=true&sort=rank:asc&limit=2&fields=id');
    t.is(get.status, 200, get.text);
    t.deepEqual(get.body.results, [{ id: 2 }, { id: 11 }]);
    t.is(get.body.total, 5);
    t.deepEqual(ids((await client.get('/indexes/books/documents?useNetwork=true&ids=10,3')).body).sort((a, b) => a - b), [3, 10]);
    // GET /documents/{id}: here, else from the group holding it.
    t.is((await client.get('/indexes/books/documents/11')).status, 404);
    const remote = await client.get('/indexes/books/documents/11?useNetwork=true&fields=title');
    t.is(remote.status, 200, remote.text);
    t.deepEqual(remote.body, { title: 'green river' });
    t.deepEqual((await client.get('/indexes/books/documents/2?useNetwork=true')).body, { id: 2, title: 'blue river', genre: 'b', rank: 1 });
    const missing = await client.get('/indexes/books/documents/404?useNetwork=true');
    t.is(missing.status, 404);
    t.is(missing.body.code, 'document_not_found');

    // Errors: not a boolean; the feature off.
    const bad = await client.post('/indexes/books/documents/fetch', { useNetwork: 'yes' });
    t.is(bad.body.code, 'invalid_document_use_network');
    t.is((await client.get('/indexes/books/documents?useNetwork=maybe')).body.code, 'invalid_document_use_network');
    await client.patch('/experimental-features', { network: false });
    for (const response of [
      await client.post('/indexes/books/documents/fetch', { useNetwork: true }),
      await client.get('/indexes/books/documents?useNetwork=false'),
      await client.get('/indexes/books/documents/1?useNetwork=true'),
    ]) {
      t.is(response.status, 400, response.text);
      t.is(response.body.code, 'feature_not_enabled');
      t.is(response.body.message, 'passing `useNetwork` in a search query requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805');
    }
  } finally {
    for (const server of servers) await server.close();
  }
});

test('a group that does not answer goes to remoteErrors; a refused key too; the remote route needs documents.get', async (t) => {
  const servers: TestServer[] = [];
  try {
    const { client, other, deadPort } = await setUp(t, servers);
    await client.patch('/network', { remotes: { two: { url: `http://127.0.0.1:${deadPort}` } } });
    const partial = await client.post('/indexes/books/documents/fetch', { useNetwork: true });
    t.is(partial.status, 200, partial.text);
    t.deepEqual(ids(partial.body), [1, 2, 3]);
    t.is(partial.body.total, 3);
    t.is(partial.body.remoteErrors.two.code, 'remote_could_not_send_request');
    const searchOnly = (await other.post('/keys', { actions: ['search'], indexes: ['*'], expiresAt: null })).body.key as string;
    await client.patch('/network', { remotes: { two: { url: servers[1]!.client.baseUrl, searchApiKey: searchOnly } } });
    const refused = await client.get('/indexes/books/documents?useNetwork=true');
    t.is(refused.status, 200, refused.text);
    t.is(refused.body.remoteErrors.two.code, 'remote_invalid_api_key');
    t.deepEqual(ids(refused.body), [1, 2, 3]);
  } finally {
    for (const server of servers) await server.close();
  }
});
