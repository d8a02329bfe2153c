// Index-restricted keys on global routes (filtered, not refused), on POST /indexes (the body's uid is
// checked), and index creation through writes (needs indexes.create, else the task fails).
import test from 'ava';
import { startTestServer, type Client, type TestServer } from './harness.js';

const MASTER = 'index-scope-master-key-01234';
let server: TestServer;
let master: Client;
test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 });
  master = server.client;
  for (const uid of ['movies_a', 'movies_b', 'books']) await master.addDocuments(uid, [{ id: 1, title: uid }]);
});
test.after.always(async () => {
  await server?.close();
});

async function keyFor(actions: string[], indexes: string[]): Promise<Client> {
  const response = await master.post('/keys', { actions, indexes, expiresAt: null });
  return master.withKey(response.body.key);
}

test.serial('GET /indexes and GET /stats only show the key\'s indexes', async (t) => {
  const reader = await keyFor(['indexes.get', 'stats.get'], ['movies_*']);
  const list = await reader.get('/indexes');
  t.is(list.status, 200);
  t.deepEqual(list.body.results.map((index: any) => index.uid), ['movies_a', 'movies_b']);
  t.is(list.body.total, 2);
  const stats = await reader.get('/stats');
  t.deepEqual(Object.keys(stats.body.indexes), ['movies_a', 'movies_b']);
  const denied = await reader.get('/indexes/books');
  t.is(denied.status, 403);
  t.is(denied.body.message, 'The API key cannot acces the index `books`, authorized indexes are ["movies_*"].');
});

test.serial('POST /indexes checks the uid in the body', async (t) => {
  const creator = await keyFor(['indexes.create'], ['movies_*']);
  const refused = await creator.post('/indexes', { uid: 'songs' });
  t.is(refused.status, 403);
  t.is(refused.body.code, 'invalid_api_key');
  const accepted = await creator.post('/indexes', { uid: 'movies_c' });
  t.is(accepted.status, 202);
  t.is((await master.waitForTask(accepted.body.taskUid)).status, 'succeeded');
});

test.serial('a write that would create an index needs indexes.create', async (t) => {
  const writer = await keyFor(['documents.add', 'settings.update'], ['movies_*']);
  const existing = await writer.post('/indexes/movies_a/documents', [{ id: 2 }]);
  t.is((await master.waitForTask(existing.body.taskUid)).status, 'succeeded');
  const missing = await master.waitForTask((await writer.post('/indexes/movies_new/documents', [{ id: 1 }])).body.taskUid);
  t.like(missing, { status: 'failed', error: { code: 'index_not_found', message: 'Index `movies_new` not found.' } });
  const settings = await master.waitForTask((await writer.patch('/indexes/movies_new/settings', { searchableAttributes: ['title'] })).body.taskUid);
  t.like(settings, { status: 'failed', error: { code: 'index_not_found' } });
  t.is((await master.get('/indexes/movies_new')).status, 404);
  const creator = await keyFor(['documents.add', 'indexes.create'], ['movies_*']);
  const created = await master.waitForTask((await creator.post('/indexes/movies_new/documents', [{ id: 1 }])).body.taskUid);
  t.is(created.status, 'succeeded');
});
