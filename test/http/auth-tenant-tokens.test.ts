// The official client's key helpers and tenant tokens (meilisearch v0.62: client.*Key(s), `meilisearch/token`).
import test from 'ava';
import { Meilisearch } from 'meilisearch';
import { generateTenantToken } from 'meilisearch/token';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'tenant-master-key-0123456789';
let server: TestServer;
let admin: Meilisearch;
test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 2 });
  admin = new Meilisearch({ host: server.client.baseUrl, apiKey: MASTER });
  await admin.index('medical').updateSettings({ filterableAttributes: ['user', 'id'] }).waitTask();
  await admin.index('medical').addDocuments([
    { id: 1, user: 1, text: 'flu report' }, { id: 2, user: 2, text: 'flu checkup' }, { id: 3, user: 1, text: 'broken arm' },
  ]).waitTask();
  await admin.index('other').addDocuments([{ id: 1, text: 'flu' }]).waitTask();
});
test.after.always(async () => {
  await server?.close();
});

test.serial('the client manages keys: create, get, list, update, delete', async (t) => {
  const created = await admin.createKey({ name: 'client key', actions: ['search'], indexes: ['medical'], expiresAt: null });
  t.is(created.name, 'client key');
  t.is((await admin.getKey(created.uid)).key, created.key);
  t.is((await admin.getKey(created.key)).uid, created.uid);
  const list = await admin.getKeys({ limit: 100 });
  t.true(list.results.some((key) => key.uid === created.uid));
  t.is((await admin.updateKey(created.uid, { description: 'updated' })).description, 'updated');
  await admin.deleteKey(created.key);
  await t.throwsAsync(admin.getKey(created.uid), { message: /not found/ });
});

test.serial('a tenant token from meilisearch/token searches with its rule filter ANDed in', async (t) => {
  const { results } = await admin.getKeys();
  const searchKey = results.find((key) => key.name === 'Default Search API Key')!;
  const token = await generateTenantToken({
    apiKey: searchKey.key, apiKeyUid: searchKey.uid, searchRules: { medical: { filter: 'user = 1' } }, expiresAt: new Date(Date.now() + 60_000),
  });
  const tenant = new Meilisearch({ host: server.client.baseUrl, apiKey: token });
  const all = await tenant.index('medical').search('');
  t.deepEqual(all.hits.map((hit) => hit.id).sort(), [1, 3]);
  const flu = await tenant.index('medical').search('flu');
  t.deepEqual(flu.hits.map((hit) => hit.id), [1]);
  const narrowed = await tenant.index('medical').search('', { filter: 'id = 3' });
  t.deepEqual(narrowed.hits.map((hit) => hit.id), [3]);
  // AND, not OR: the request cannot widen the tenant's view.
  t.deepEqual((await tenant.index('medical').search('', { filter: 'id = 2' })).hits, []);
  t.deepEqual((await tenant.index('medical').search('', { filter: ['id = 2', ['user = 2', 'id = 3']] })).hits, []);
  const get = await server.client.withKey(token).get('/indexes/medical/search?q=flu');
  t.deepEqual(get.body.hits.map((hit: any) => hit.id), [1]);
  // Another index, and other routes, are refused.
  const other = await server.client.withKey(token).post('/indexes/other/search', { q: 'flu' });
  t.is(other.status, 403);
  t.is(other.body.message, 'The provided tenant token cannot acces the index `other`, allowed indexes are ["medical"].');
  t.is((await server.client.withKey(token).get('/indexes/medical/documents')).status, 403);
});

test.serial('deleting the parent key revokes its tokens; expired tokens are refused', async (t) => {
  const parent = await admin.createKey({ actions: ['search'], indexes: ['*'], expiresAt: null });
  const token = await generateTenantToken({ apiKey: parent.key, apiKeyUid: parent.uid, searchRules: ['*'], algorithm: 'HS512' });
  t.is((await server.client.withKey(token).post('/indexes/other/search', { q: 'flu' })).status, 200);
  await admin.deleteKey(parent.uid);
  const revoked = await server.client.withKey(token).post('/indexes/other/search', { q: 'flu' });
  t.is(revoked.status, 403);
  t.is(revoked.body.code, 'invalid_api_key');
  const { results } = await admin.getKeys();
  const searchKey = results.find((key) => key.name === 'Default Search API Key')!;
  const expired = await generateTenantToken({ apiKey: searchKey.key, apiKeyUid: searchKey.uid, searchRules: ['*'], expiresAt: Math.floor(Date.now() / 1000) - 5, force: true });
  const refused = await server.client.withKey(expired).post('/indexes/other/search', { q: 'flu' });
  t.is(refused.status, 403);
  t.regex(refused.body.message, /^Tenant token expired\./);
});
