// /batches: one record per batch the scheduler processed, as Meilisearch's BatchView; filters as
// Meilisearch's get_batch_ids (a batch matches when one of its tasks does); task deletion removes a
// batch with its last task; a key restricted to one index sees only that index's batches.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

const MASTER = 'batches-master-key-0123456789';
let server: TestServer;
const uids: Record<string, number> = {};

test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 2 });
  const { client } = server;
  uids.createA = (await client.createIndex('batch_a', 'id')).uid;
  // Three additions sent without waiting: they may share one batch; details must add up either way.
  const sent = await Promise.all([1, 2, 3].map((n) => client.enqueue('POST', '/indexes/batch_a/documents',
    { body: Array.from({ length: n }, (_, i) => ({ id: n * 10 + i })) })));
  for (const uid of sent) await client.waitForTask(uid);
  uids.additions = sent[2];
  uids.failed = (await client.waitForTask(await client.enqueue('POST', '/indexes', { body: { uid: 'batch_a' } }))).uid;
  uids.createB = (await client.createIndex('batch_b', 'id')).uid;
  uids.settingsB = (await client.run('PATCH', '/indexes/batch_b/settings', { body: { filterableAttributes: ['x'] } })).uid;
});
test.after.always(async () => {
  await server?.close();
});

const BATCH_KEYS = ['uid', 'progress', 'details', 'stats', 'duration', 'startedAt', 'finishedAt', 'batchStrategy'];

test.serial('GET /batches lists every batch newest first, in the BatchView shape', async (t) => {
  const { body, status } = await server.client.get('/batches');
  t.is(status, 200);
  t.deepEqual(Object.keys(body), ['results', 'total', 'limit', 'from', 'next']);
  t.true(body.results.length >= 4);
  t.is(body.total, body.results.length);
  const batchUids = body.results.map((batch: any) => batch.uid);
  t.deepEqual(batchUids, [...batchUids].sort((a, b) => b - a));
  for (const batch of body.results) {
    t.deepEqual(Object.keys(batch), BATCH_KEYS);
    t.is(batch.progress, null);
    t.regex(batch.duration, /^PT\d+(\.\d+)?S$/);
    t.true(Date.parse(batch.startedAt) <= Date.parse(batch.finishedAt));
    t.deepEqual(Object.keys(batch.stats), ['totalNbTasks', 'status', 'types', 'indexUids', 'progressTrace']);
    for (const [step, took] of Object.entries(batch.stats.progressTrace)) {
      t.regex(step, /^processing tasks > /);
      t.regex(took as string, /^\d+\.\d{2}ms$/);
    }
    t.is(typeof batch.batchStrategy, 'string');
  }
});

test.serial('each task is counted in the batch its batchUid names; details add up over the batch', async (t) => {
  const { client } = server;
  const tasks = (await client.get('/tasks?limit=1000')).body.results;
  const byBatch = new Map<number, any[]>();
  for (const task of tasks) byBatch.set(task.batchUid, [...(byBatch.get(task.batchUid) ?? []), task]);
  for (const [batchUid, members] of byBatch) {
    const batch = (await client.get(`/batches/${batchUid}`)).body;
    t.is(batch.uid, batchUid);
    t.is(batch.stats.totalNbTasks, members.length);
    for (const task of members) {
      t.true(batch.stats.status[task.status] >= 1);
      t.true(batch.stats.types[task.type] >= 1);
      t.true(batch.stats.indexUids[task.indexUid] >= 1);
    }
    const received = members.reduce((sum, task) => sum + (task.details?.receivedDocuments ?? 0), 0);
    if (received > 0) t.is(batch.details.receivedDocuments, received);
  }
  const creation = (await client.get(`/tasks/${uids.createB}`)).body;
  const alone = (await client.get(`/batches/${creation.batchUid}`)).body;
  t.is(alone.batchStrategy, `created batch containing only task with id ${uids.createB} of type \`indexCreation\` that cannot be batched with any other task.`);
});

test.serial('filters select batches through their tasks', async (t) => {
  const { client } = server;
  const failedTask = (await client.get(`/tasks/${uids.failed}`)).body;
  const failed = (await client.get('/batches?statuses=failed')).body;
  t.deepEqual(failed.results.map((batch: any) => batch.uid), [failedTask.batchUid]);
  const settings = (await client.get('/batches?types=settingsUpdate')).body;
  t.true(settings.results.length >= 1);
  for (const batch of settings.results) t.true(batch.stats.types.settingsUpdate >= 1);
  const onlyB = (await client.get('/batches?indexUids=batch_b')).body;
  t.is(onlyB.total, 2);
  for (const batch of onlyB.results) t.deepEqual(Object.keys(batch.stats.indexUids), ['batch_b']);
  const byTask = (await client.get(`/batches?uids=${uids.settingsB}`)).body;
  t.deepEqual(byTask.results.map((batch: any) => batch.uid), [(await client.get(`/tasks/${uids.settingsB}`)).body.batchUid]);
  t.is((await client.get('/batches?statuses=enqueued')).body.total, 0);
  t.is((await client.get('/batches?canceledBy=9999')).body.total, 0);
});

test.serial('limit, from and next page through batches', async (t) => {
  const { client } = server;
  const all = (await client.get('/batches')).body.results.map((batch: any) => batch.uid);
  const first = (await client.get('/batches?limit=2')).body;
  t.deepEqual(first.results.map((batch: any) => batch.uid), all.slice(0, 2));
  t.is(first.next, all[2]);
  const second = (await client.get(`/batches?limit=2&from=${first.next}`)).body;
  t.deepEqual(second.results.map((batch: any) => batch.uid), all.slice(2, 4));
  const reversed = (await client.get('/batches?reverse=true')).body.results.map((batch: any) => batch.uid);
  t.deepEqual(reversed, [...all].reverse());
});

test.serial('errors: unknown batch, bad uid, bad filter', async (t) => {
  const { client } = server;
  const missing = await client.get('/batches/4000000');
  t.is(missing.status, 404);
  t.deepEqual(missing.body, errorBody('Batch `4000000` not found.', 'batch_not_found'));
  const bad = await client.get('/batches/abc');
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_batch_uids');
  const filter = await client.get('/batches?statuses=sleeping');
  t.is(filter.status, 400);
  t.is(filter.body.code, 'invalid_task_statuses');
  t.is((await client.get('/tasks?types=dsrUpdate')).status, 200);
});

test.serial('a key restricted to one index sees only the batches of that index', async (t) => {
  const { client } = server;
  const created = await client.post('/keys', { actions: ['tasks.get'], indexes: ['batch_b'], expiresAt: null });
  t.is(created.status, 201);
  const restricted = client.withKey(created.body.key);
  const seen = (await restricted.get('/batches')).body;
  t.is(seen.total, 2);
  for (const batch of seen.results) t.deepEqual(Object.keys(batch.stats.indexUids), ['batch_b']);
  const otherTask = (await client.get(`/tasks/${uids.createA}`)).body;
  t.is((await restricted.get(`/batches/${otherTask.batchUid}`)).status, 404);
  t.is((await client.withKey('nope').get('/batches')).status, 403);
});

test.serial('deleting the tasks of a batch deletes the batch with the last one', async (t) => {
  const { client } = server;
  const task = (await client.get(`/tasks/${uids.createA}`)).body;
  t.is((await client.get(`/batches/${task.batchUid}`)).status, 200);
  await client.run('DELETE', `/tasks?uids=${uids.createA}`);
  t.is((await client.get(`/batches/${task.batchUid}`)).status, 404);
});
