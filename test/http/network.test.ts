// GET / PATCH /network on a single node (src/network/network-config.ts): Meilisearch's shape (self,
// remotes {url, searchApiKey, writeApiKey}, shards {name: {remotes}}, leader), the `network` feature
// required, Meilisearch's merge (absent keeps, null removes), invalid_network_* / missing_network_url
// errors, the network.* key actions, the value kept across a restart; useNetwork over a network whose
// only group is this node answers as a local search; each remote's `status` and POST /network/control.
import test from 'ava';
import { Client, freePort, startTestServer, withTempDir, withTestServer } from './harness.js';

const MASTER = 'network-master-key-0123456789';

async function enableNetwork(client: Client): Promise<void> {
  const response = await client.patch('/experimental-features', { network: true });
  if (response.status !== 200) throw new Error(response.text);
}

test('/network needs the network feature, then merges a PATCH and keeps it across a restart', (t) =>
  withTempDir(async (dbPath) => {
    await withTestServer({ dbPath, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
      const off = await client.get('/network');
      t.is(off.status, 400);
      t.is(off.body.code, 'feature_not_enabled');
      t.is((await client.patch('/network', { self: 'a' })).body.code, 'feature_not_enabled');
      await enableNetwork(client);
      const empty = await client.get('/network');
      t.is(empty.status, 200);
      t.deepEqual({ ...empty.body, version: null }, { self: null, remotes: {}, shards: {}, leader: null, version: null });

      const first = await client.patch('/network', {
        self: 'ms-0',
        remotes: { 'ms-0': { url: 'http://127.0.0.1:7700' }, 'ms-1': { url: 'http://127.0.0.1:7701', searchApiKey: 'foo', writeApiKey: 'bar' } },
        shards: { s0: { remotes: ['ms-0'] }, s1: { remotes: ['ms-1'] } },
      });
      t.is(first.status, 200, first.text);
      t.deepEqual(first.body.remotes, {
        'ms-0': { url: 'http://127.0.0.1:7700', searchApiKey: null, writeApiKey: null, status: 'available' },
        'ms-1': { url: 'http://127.0.0.1:7701', searchApiKey: 'foo', writeApiKey: 'bar', status: 'available' },
      });
      t.deepEqual(first.body.shards, { s0: { remotes: ['ms-0'] }, s1: { remotes: ['ms-1'] } });
      // Absent keeps, null resets a key, a removed remote leaves its shards.
      const second = await client.patch('/network', {
        remotes: { 'ms-1': { searchApiKey: null }, 'ms-2': { url: 'https://example.org' } },
        shards: { s1: { addRemotes: ['ms-2'] } },
      });
      t.is(second.status, 200, second.text);
      t.is(second.body.self, 'ms-0');
      t.deepEqual(second.body.remotes['ms-1'], { url: 'http://127.0.0.1:7701', searchApiKey: null, writeApiKey: 'bar', status: 'available' });
      t.deepEqual(second.body.shards.s1, { remotes: ['ms-1', 'ms-2'] });
      const third = await client.patch('/network', { remotes: { 'ms-1': null } });
      t.deepEqual(third.body.shards, { s0: { remotes: ['ms-0'] }, s1: { remotes: ['ms-2'] } });
      t.not(third.body.version, second.body.version);
    });
    await withTestServer({ dbPath, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
      const after = await client.get('/network');
      t.is(after.status, 200);
      t.is(after.body.self, 'ms-0');
      t.deepEqual(Object.keys(after.body.remotes), ['ms-0', 'ms-2']);
    });
  }));

test('PATCH /network refuses bad values with Meilisearch codes and changes nothing', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    await enableNetwork(client);
    const cases: Array<[unknown, string]> = [
      [[], 'bad_request'],
      [{ selfie: 'a' }, 'bad_request'],
      [{ self: 3 }, 'invalid_network_self'],
      [{ leader: true }, 'invalid_network_leader'],
      [{ remotes: [] }, 'invalid_network_remotes'],
      [{ remotes: { a: 'http://x' } }, 'invalid_network_remotes'],
      [{ remotes: { a: { url: 'http://x', other: 1 } } }, 'invalid_network_remotes'],
      [{ remotes: { a: {} } }, 'missing_network_url'],
      [{ remotes: { a: { url: 5 } } }, 'invalid_network_url'],
      [{ remotes: { a: { url: 'not a url' } } }, 'invalid_network_url'],
      [{ remotes: { a: { url: 'ftp://x' } } }, 'invalid_network_url'],
      [{ remotes: { a: { url: 'http://x', searchApiKey: 1 } } }, 'invalid_network_search_api_key'],
      [{ remotes: { a: { url: 'http://x', writeApiKey: [] } } }, 'invalid_network_write_api_key'],
      [{ shards: { s: { remotes: ['nobody'] } } }, 'invalid_network_shards'],
      [{ shards: { s: { remotes: 'a' } } }, 'invalid_network_shards'],
      [{ shards: { s: { owners: [] } } }, 'invalid_network_shards'],
      [{ self: 'x'.repeat(100_000) }, 'invalid_network_self'],
    ];
    for (const [body, code] of cases) {
      const response = await client.patch('/network', body);
      t.is(response.status, 400, JSON.stringify(body).slice(0, 80));
      t.is(response.body.code, code, JSON.stringify(body).slice(0, 80));
      t.is(response.body.type, 'invalid_request');
      t.true(response.body.message.length < 600);
    }
    t.is((await client.patch('/network', { remotes: { a: { url: 'http://x' } } })).status, 200);
    const nullUrl = await client.patch('/network', { remotes: { a: { url: null } } });
    t.is(nullUrl.body.code, 'invalid_network_url');
    t.is(nullUrl.body.message, 'Field `.remotes.a.url` cannot be set to `null`');
    t.deepEqual((await client.get('/network')).body.remotes, { a: { url: 'http://x', searchApiKey: null, writeApiKey: null, status: 'available' } });
  }));

test('network.get / network.update / network.* key actions decide who reads and changes /network', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER }, async ({ client }) => {
    const admin = client.withKey(MASTER);
    await enableNetwork(admin);
    const key = async (actions: string[]) => (await admin.post('/keys', { actions, indexes: ['*'], expiresAt: null })).body.key as string;
    const reader = client.withKey(await key(['network.get']));
    const writer = client.withKey(await key(['network.update']));
    const both = client.withKey(await key(['network.*']));
    const searcher = client.withKey(await key(['search']));
    t.is((await reader.get('/network')).status, 200);
    t.is((await reader.patch('/network', { self: 'a' })).status, 403);
    t.is((await writer.patch('/network', { self: 'a' })).status, 200);
    t.is((await writer.get('/network')).status, 403);
    t.is((await both.get('/network')).status, 200);
    t.is((await both.patch('/network', { self: 'b' })).status, 200);
    t.is((await searcher.get('/network')).status, 403);
    t.is((await new (client.constructor as typeof Client)(client.baseUrl).get('/network')).status, 401);
    const scoped = await admin.post('/keys', { actions: ['network.*'], indexes: ['movies'], expiresAt: null });
    t.is(scoped.status, 400, 'a global action on an index-scoped key');
  }));

test('useNetwork over a network whose one group is this node answers as the local search; the shard-search route checks its input', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client, port }) => {
    await enableNetwork(client);
    const documents = Array.from({ length: 40 }, (_, i) => ({ id: i, title: `word${i % 7} common`, genre: i % 3 === 0 ? 'a' : 'b' }));
    const task = await client.post('/indexes/docs/documents', documents);
    await client.waitForTask(task.body.taskUid);
    await client.waitForTask((await client.patch('/indexes/docs/settings', { filterableAttributes: ['genre'] })).body.taskUid);
    await client.patch('/network', { self: 'me', remotes: { me: { url: `http://127.0.0.1:${port}` } }, shards: { only: { remotes: ['me'] } } });
    const body = { q: 'common', facets: ['genre'], limit: 7, offset: 3 };
    const local = await client.post('/indexes/docs/search', body);
    const network = await client.post('/indexes/docs/search', { ...body, useNetwork: true });
    t.is(network.status, 200, network.text);
    const strip = (answer: Record<string, unknown>) => ({ ...answer, processingTimeMs: 0 });
    t.deepEqual(strip(network.body), strip(local.body));
    const bad = await client.post('/indexes/docs/_network-shard-search', { search: { q: 1 } });
    t.is(bad.status, 400);
    t.is(bad.body.code, 'invalid_search_q');
    const counts = await client.post('/indexes/docs/_network-shard-search', { search: {}, termDocCounts: [-1] });
    t.is(counts.body.code, 'bad_request');
  }));

test('federationOptions.remote sends a query to that remote (self: answered here), marks _federation.remote, and reports a dead remote in remoteErrors', async (t) => {
  const here = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  const there = await startTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER });
  try {
    const other = there.client.withKey(MASTER);
    const searchKey = (await other.post('/keys', { actions: ['search'], indexes: ['*'], expiresAt: null })).body.key as string;
    await here.client.waitForTask((await here.client.post('/indexes/books/documents', [{ id: 1, title: 'red river' }, { id: 2, title: 'blue river' }])).body.taskUid);
    await other.waitForTask((await other.post('/indexes/books/documents', [{ id: 10, title: 'red river delta' }, { id: 11, title: 'green hill' }])).body.taskUid);
    await enableNetwork(here.client);
    const deadPort = await freePort();
    const set = await here.client.patch('/network', { self: 'here', remotes: {
      here: { url: `http://127.0.0.1:${here.port}` }, there: { url: `http://127.0.0.1:${there.port}`, searchApiKey: searchKey },
      gone: { url: `http://127.0.0.1:${deadPort}` },
    } });
    t.is(set.status, 200, set.text);
    const federated = await here.client.post('/multi-search', { federation: {}, queries: [
      { indexUid: 'books', q: 'river', federationOptions: { remote: 'here' } },
      { indexUid: 'books', q: 'river', federationOptions: { remote: 'there', weight: 0.5 } },
    ] });
    t.is(federated.status, 200, federated.text);
    t.deepEqual(federated.body.hits.map((hit: any) => [hit.id, hit._federation.remote]), [[1, 'here'], [2, 'here'], [10, 'there']]);
    t.is(federated.body.estimatedTotalHits, 3);
    t.is(federated.body.remoteErrors, undefined);
    const partial = await here.client.post('/multi-search', { federation: {}, queries: [
      { indexUid: 'books', q: 'river' },
      { indexUid: 'books', q: 'river', federationOptions: { remote: 'gone' } },
    ] });
    t.is(partial.status, 200, partial.text);
    t.deepEqual(partial.body.hits.map((hit: any) => hit.id), [1, 2]);
    t.is(partial.body.remoteErrors.gone.code, 'remote_could_not_send_request');
    // A wrong key on the remote: remote_invalid_api_key, in remoteErrors too.
    await here.client.patch('/network', { remotes: { there: { searchApiKey: 'not-a-key' } } });
    const refused = await here.client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', q: 'river', federationOptions: { remote: 'there' } }] });
    t.is(refused.body.remoteErrors.there.code, 'remote_invalid_api_key');
    // With a leader, PATCH /network answers a networkTopologyChange task that succeeds.
    const task = await here.client.patch('/network', { leader: 'here', shards: { s: { remotes: ['here'] } } });
    t.is(task.status, 202, task.text);
    t.is(task.body.type, 'networkTopologyChange');
    t.is((await here.client.waitForTask(task.body.taskUid)).status, 'succeeded');
    t.is((await here.client.patch('/network', { leader: null })).status, 200);
  } finally {
    await here.close();
    await there.close();
  }
});

test('the shard-search route a network search uses is authorized like a search of its index', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER }, async ({ client }) => {
    const admin = client.withKey(MASTER);
    await admin.waitForTask((await admin.post('/indexes/secret/documents', [{ id: 1, title: 'classified' }])).body.taskUid);
    await admin.waitForTask((await admin.post('/indexes/open/documents', [{ id: 1, title: 'public' }])).body.taskUid);
    const openOnly = client.withKey((await admin.post('/keys', { actions: ['search'], indexes: ['open'], expiresAt: null })).body.key);
    const refused = await openOnly.post('/indexes/secret/_network-shard-search', { search: { q: 'classified' } });
    t.is(refused.status, 403);
    t.is(refused.body.code, 'invalid_api_key');
    const allowed = await openOnly.post('/indexes/open/_network-shard-search', { search: { q: 'public' } });
    t.is(allowed.status, 200, allowed.text);
    t.is(allowed.body.results[0].hits[0][2], '{"id":1,"title":"public"}');
    t.is(allowed.body.results[0].hits[0][0], 0);
    t.is((await new Client(client.baseUrl).post('/indexes/open/_network-shard-search', { search: { q: 'public' } })).status, 401);
  }));

test('/network/control: a drained remote is never asked, one that failed shows unavailable, messages to a topology change need one, Meilisearch errors', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER }, async ({ client, port }) => {
    const admin = client.withKey(MASTER);
    const status = (remote: string) => ({ origin: { remoteName: 'me', taskUid: 0 }, message: { type: 'statusChangeForRemote', remote, status: 'unavailable' } });
    const off = await admin.post('/network/control', status('dead'));
    t.is(off.status, 400, off.text);
    t.is(off.body.code, 'feature_not_enabled');
    t.is(off.body.message, 'Using the /network/control route requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805');
    await enableNetwork(admin);
    await admin.waitForTask((await admin.post('/indexes/docs/documents', [{ id: 1, title: 'blue river' }])).body.taskUid);
    const deadPort = await freePort();
    const set = await admin.patch('/network', {
      self: 'me', remotes: { me: { url: `http://127.0.0.1:${port}` }, dead: { url: `http://127.0.0.1:${deadPort}` } },
      shards: { g1: { remotes: ['me'] }, g2: { remotes: ['dead'] } },
    });
    t.is(set.status, 200, set.text);
    t.deepEqual(Object.values(set.body.remotes).map((remote: any) => remote.status), ['available', 'available']);
    const statuses = async () => Object.fromEntries(Object.entries((await admin.get('/network')).body.remotes).map(([name, remote]: [string, any]) => [name, remote.status]));

    // A remote that failed to answer a network search: unavailable (tried last), asked again later.
    const search = () => admin.post('/indexes/docs/search', { q: 'blue', useNetwork: true });
    const failed = await search();
    t.is(failed.status, 200, failed.text);
    t.is(failed.body.hits.length, 1);
    t.is(failed.body.remoteErrors?.dead?.code, 'remote_could_not_send_request', failed.text);
    t.deepEqual(await statuses(), { me: 'available', dead: 'unavailable' });
    t.is((await search()).body.remoteErrors?.dead?.code, 'remote_could_not_send_request', 'a group whose nodes all failed lately is still asked');
    // Marked available, then drained: a drained remote is not asked (its group has no remote to ask).
    const available = await admin.post('/network/control', { ...status('dead'), message: { type: 'statusChangeForRemote', remote: 'dead', status: 'available' } });
    t.is(available.status, 200, available.text);
    t.is(available.text, '');
    t.deepEqual(await statuses(), { me: 'available', dead: 'available' });
    t.is((await admin.post('/network/control', status('dead'))).status, 200);
    t.deepEqual(await statuses(), { me: 'available', dead: 'unavailable' });
    const drained = await search();
    t.is(drained.status, 200, drained.text);
    t.deepEqual(drained.body.remoteErrors, { g2: { message: 'Shard `g2` has no remote.', code: 'remote_could_not_send_request', type: 'system', link: 'https://docs.meilisearch.com/errors#remote_could_not_send_request' } });
    t.is(drained.body.hits.length, 1);

    // Messages to a topology change in progress: none here.
    for (const message of [{ type: 'exportNoIndexForRemote', remote: 'dead' }, { type: 'importFinishedForRemote', remote: 'dead', successful: true }]) {
      const none = await admin.post('/network/control', { origin: { remoteName: 'dead', taskUid: 3, networkVersion: '4f1d3c1e-8c5e-4b7a-9a51-2d4c1a0b9e77' }, message });
      t.is(none.status, 503, none.text);
      t.deepEqual(none.body, { message: 'No network topology change task is currently enqueued or processing', code: 'import_task_without_network_task',
        type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#import_task_without_network_task' });
    }
    // Malformed bodies: bad_request, nothing changed.
    for (const body of [[], {}, { message: status('x').message }, { origin: { remoteName: 'me', taskUid: 0 } }, { ...status('x'), extra: 1 },
      { origin: { remoteName: 'me', taskUid: -1 }, message: status('x').message }, { origin: { taskUid: 0 }, message: status('x').message },
      { origin: { remoteName: 'me', taskUid: 0, networkVersion: 'v2' }, message: status('x').message },
      { origin: { remoteName: 'me', taskUid: 0 }, message: { type: 'reboot', remote: 'x' } },
      { origin: { remoteName: 'me', taskUid: 0 }, message: { type: 'statusChangeForRemote', remote: 'me' } },
      { origin: { remoteName: 'me', taskUid: 0 }, message: { type: 'statusChangeForRemote', remote: 'me', status: 'gone' } },
      { origin: { remoteName: 'me', taskUid: 0 }, message: { type: 'importFinishedForRemote', remote: 'me' } },
      { origin: { remoteName: 'me', taskUid: 0 }, message: { type: 'statusChangeForRemote', remote: 'x'.repeat(100_000), status: 'unavailable' } }]) {
      const refused = await admin.post('/network/control', body);
      t.is(refused.status, 400, JSON.stringify(body).slice(0, 100));
      t.is(refused.body.code, 'bad_request', JSON.stringify(body).slice(0, 100));
      t.true(refused.body.message.length < 300);
    }
    t.deepEqual(await statuses(), { me: 'available', dead: 'unavailable' });
    // network.update decides.
    const key = async (actions: string[]) => client.withKey((await admin.post('/keys', { actions, indexes: ['*'], expiresAt: null })).body.key as string);
    t.is((await (await key(['network.get'])).post('/network/control', status('me'))).status, 403);
    t.is((await (await key(['network.update'])).post('/network/control', { ...status('me'), message: { type: 'statusChangeForRemote', remote: 'me', status: 'available' } })).status, 200);
  }));
