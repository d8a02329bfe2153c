// /keys: default keys, create/read/update/delete, validation errors, durability, no-master-key mode.
import { createHmac } from 'node:crypto';
import test from 'ava';
import { errorBody, makeTempDir, startTestServer, type TestServer } from './harness.js';

const MASTER = 'keys-test-master-key-0123456789';
const dbPath = makeTempDir();
let server: TestServer;
test.before(async () => {
  server = await startTestServer({ dbPath, masterKey: MASTER, workers: 1, shardsPerIndex: 1 });
});
test.after.always(async () => {
  await server?.close();
});

const KEY_FIELDS = ['name', 'description', 'key', 'uid', 'actions', 'indexes', 'expiresAt', 'createdAt', 'updatedAt'];
const hmac = (uid: string) => createHmac('sha256', MASTER).update(uid).digest('hex');

test.serial('four default keys exist at first launch, derived from the master key', async (t) => {
  const response = await server.client.get('/keys');
  t.is(response.status, 200);
  t.like(response.body, { offset: 0, limit: 20, total: 4 });
  t.deepEqual(response.body.results.map((key: any) => key.name).sort(),
    ['Default Admin API Key', 'Default Chat API Key', 'Default Read-Only Admin API Key', 'Default Search API Key']);
  for (const key of response.body.results) {
    t.deepEqual(Object.keys(key), KEY_FIELDS);
    t.is(key.key, hmac(key.uid));
    t.is(key.expiresAt, null);
  }
  const page = await server.client.get('/keys?offset=1&limit=2');
  t.like(page.body, { offset: 1, limit: 2, total: 4 });
  t.is(page.body.results.length, 2);
});

test.serial('create, read by uid and by key, update, delete', async (t) => {
  const uid = '5e1cb5f9-4d8b-4e3a-8b5a-0123456789ab';
  const created = await server.client.post('/keys', {
    uid, name: 'Indexing', description: null, actions: ['documents.*', 'search'], indexes: ['movies', 'books_*'], expiresAt: '2042-04-02',
  });
  t.is(created.status, 201);
  t.deepEqual(Object.keys(created.body), KEY_FIELDS);
  t.like(created.body, { uid, name: 'Indexing', description: null, key: hmac(uid), actions: ['documents.*', 'search'],
    indexes: ['movies', 'books_*'], expiresAt: '2042-04-02T00:00:00Z' });
  t.is(created.body.createdAt, created.body.updatedAt);
  t.deepEqual((await server.client.get(`/keys/${uid}`)).body, created.body);
  t.deepEqual((await server.client.get(`/keys/${created.body.key}`)).body, created.body);
  // The new key works at once.
  const asKey = server.client.withKey(created.body.key);
  t.is((await asKey.get('/indexes/movies/documents')).status, 404); // authorized: index_not_found
  t.is((await asKey.get('/indexes/songs/documents')).status, 403);
  const patched = await server.client.patch(`/keys/${uid}`, { name: null, description: 'for the importer' });
  t.is(patched.status, 200);
  t.like(patched.body, { name: null, description: 'for the importer', createdAt: created.body.createdAt });
  t.true(patched.body.updatedAt > created.body.updatedAt);
  const deleted = await server.client.delete(`/keys/${created.body.key}`);
  t.is(deleted.status, 204);
  t.is(deleted.text, '');
  const gone = await server.client.get(`/keys/${uid}`);
  t.is(gone.status, 404);
  t.deepEqual(gone.body, errorBody(`API key \`${uid}\` not found.`, 'api_key_not_found'));
  t.is((await asKey.get('/indexes/movies/documents')).status, 403);
});

test.serial('a uid may only be used once: api_key_already_exists', async (t) => {
  const body = { uid: '6e1cb5f9-4d8b-4e3a-8b5a-0123456789ab', actions: ['search'], indexes: ['*'], expiresAt: null };
  t.is((await server.client.post('/keys', body)).status, 201);
  const again = await server.client.post('/keys', body);
  t.is(again.status, 409);
  t.is(again.body.code, 'api_key_already_exists');
});

test.serial('create validation errors', async (t) => {
  const base = { actions: ['search'], indexes: ['*'], expiresAt: null };
  const cases: Array<[unknown, string]> = [
    [{ indexes: ['*'], expiresAt: null }, 'missing_api_key_actions'],
    [{ actions: ['search'], expiresAt: null }, 'missing_api_key_indexes'],
    [{ actions: ['search'], indexes: ['*'] }, 'missing_api_key_expires_at'],
    [{ ...base, actions: ['search', 'fly'] }, 'invalid_api_key_actions'],
    [{ ...base, actions: 'search' }, 'invalid_api_key_actions'],
    [{ ...base, indexes: ['mo*vies'] }, 'invalid_api_key_indexes'],
    [{ ...base, expiresAt: '2001-01-01' }, 'invalid_api_key_expires_at'],
    [{ ...base, expiresAt: 'tomorrow' }, 'invalid_api_key_expires_at'],
    [{ ...base, uid: 'not-a-uuid' }, 'invalid_api_key_uid'],
    [{ ...base, name: 42 }, 'invalid_api_key_name'],
    [{ ...base, description: [] }, 'invalid_api_key_description'],
    [{ ...base, indexes: ['movies'], actions: ['keys.get'] }, 'index_scoped_api_key_with_global_action'],
    [{ ...base, color: 'red' }, 'bad_request'],
  ];
  for (const [body, code] of cases) {
    const response = await server.client.post('/keys', body);
    t.is(response.status, 400, JSON.stringify(body));
    t.is(response.body.code, code, JSON.stringify(body));
  }
  const unknown = await server.client.post('/keys', { ...base, actions: ['fly'] });
  t.regex(unknown.body.message, /^Unknown value `fly` at `\.actions\[0\]`: expected one of `\*`, `search`, /);
  t.is((await server.client.post('/keys', { ...base, expiresAt: '2042-04-02 10:00:00' })).body.expiresAt, '2042-04-02T10:00:00Z');
});

test.serial('patch: only name and description; immutable fields have their codes', async (t) => {
  const { body: key } = await server.client.post('/keys', { actions: ['search'], indexes: ['*'], expiresAt: null });
  for (const [field, code] of [['uid', 'immutable_api_key_uid'], ['actions', 'immutable_api_key_actions'], ['indexes', 'immutable_api_key_indexes'],
    ['expiresAt', 'immutable_api_key_expires_at'], ['createdAt', 'immutable_api_key_created_at'], ['updatedAt', 'immutable_api_key_updated_at'], ['key', 'bad_request']]) {
    const response = await server.client.patch(`/keys/${key.uid}`, { [field]: null });
    t.is(response.status, 400, field);
    t.is(response.body.code, code, field);
  }
  t.is((await server.client.patch('/keys/7e1cb5f9-4d8b-4e3a-8b5a-0123456789ab', { name: 'x' })).body.code, 'api_key_not_found');
});

test.serial('list parameters: invalid_api_key_offset / limit, unknown parameter', async (t) => {
  t.is((await server.client.get('/keys?offset=-1')).body.code, 'invalid_api_key_offset');
  t.is((await server.client.get('/keys?limit=x')).body.code, 'invalid_api_key_limit');
  t.is((await server.client.get('/keys?color=red')).body.code, 'bad_request');
});

test.serial('/keys needs the master key or a key with keys.* actions', async (t) => {
  const anonymous = await server.client.request('GET', '/keys', { headers: { authorization: '' } });
  t.is(anonymous.status, 401);
  const { body: keys } = await server.client.get('/keys');
  const search = keys.results.find((key: any) => key.name === 'Default Search API Key');
  const admin = keys.results.find((key: any) => key.name === 'Default Admin API Key');
  const readOnly = keys.results.find((key: any) => key.name === 'Default Read-Only Admin API Key');
  t.is((await server.client.withKey(search.key).get('/keys')).status, 403);
  t.is((await server.client.withKey(admin.key).get('/keys')).status, 200);
  t.is((await server.client.withKey(readOnly.key).get('/keys')).status, 200);
  t.is((await server.client.withKey(readOnly.key).post('/keys', { actions: ['*'], indexes: ['*'], expiresAt: null })).status, 403);
});

test.serial('keys are durable: same keys after a restart, defaults not created twice', async (t) => {
  const before = (await server.client.get('/keys?limit=100')).body;
  await server.close();
  server = await startTestServer({ dbPath, masterKey: MASTER, workers: 1, shardsPerIndex: 1 });
  const after = (await server.client.get('/keys?limit=100')).body;
  t.deepEqual(after, before);
});

test('without a master key: /keys answers missing_master_key, other routes are open', async (t) => {
  const open = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  try {
    const keys = await open.client.get('/keys');
    t.is(keys.status, 401);
    t.deepEqual(keys.body, errorBody(
      'Meilisearch is running without a master key. To access this API endpoint, you must have set a master key at launch.',
      'missing_master_key', 'auth'));
    t.is((await open.client.get('/indexes')).status, 200);
    t.is((await open.client.withKey('anything').get('/indexes')).status, 200);
    t.is((await open.client.get('/indexes', { headers: { authorization: 'Basic abc' } })).status, 401);
  } finally {
    await open.close();
  }
});
