// POST /tasks/cancel and DELETE /tasks in depth: strict date filters, canceledBy, a processing document
// task stopped mid-way and rolled back, a cancelation canceled by a newer one, delete atomicity, and
// matchedTasks restricted to the indexes of the requesting key.
import test from 'ava';
import { errorBody, startTestServer, sleep, type Client, type TestServer } from './harness.js';

const MASTER = 'tasks-cancel-master-key-0123';
let server: TestServer;
let client: Client;
test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 2 });
  client = server.client;
});
test.after.always(async () => {
  await server?.close();
});

/** A payload big enough that its batch stays `processing` for a while. */
function bigPayload(count: number, offset = 0) {
  return Array.from({ length: count }, (_, i) => ({
    id: i + offset, title: `document number ${i} about ${['cats', 'dogs', 'birds', 'fish'][i % 4]}`,
    body: 'lorem ipsum dolor sit amet consectetur adipiscing elit '.repeat(4), rank: i,
  }));
}

async function waitForStatus(uid: number, status: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = (await client.get(`/tasks/${uid}`)).body;
    if (task.status === status) return task;
    if (Date.now() > deadline || ['succeeded', 'failed', 'canceled'].includes(task.status)) {
      throw new Error(`task ${uid} is ${task.status}, never ${status}`);
    }
    await sleep(5);
  }
}

async function indexSnapshot(uid: string) {
  const documents = (await client.get(`/indexes/${uid}/documents?limit=100000`)).body;
  const stats = (await client.get(`/indexes/${uid}/stats`)).body;
  const search = (await client.post(`/indexes/${uid}/search`, { q: 'dogs', limit: 50 })).body;
  delete search.processingTimeMs;
  return { documents, stats: { ...stats, isIndexing: undefined }, search };
}

test.serial('date filters are strict: a task is not before/after its own timestamps', async (t) => {
  const task = await client.createIndex('dates');
  for (const field of ['Enqueued', 'Started', 'Finished']) {
    const at = task[`${field.toLowerCase()}At`] as string;
    const count = async (query: string) => (await client.get(`/tasks?uids=${task.uid}&${query}`)).body.total;
    t.is(await count(`before${field}At=${at}`), 0, field);
    t.is(await count(`after${field}At=${at}`), 0, field);
    const earlier = new Date(Date.parse(at) - 1).toISOString();
    const later = new Date(Date.parse(at) + 1).toISOString();
    t.is(await count(`after${field}At=${earlier}`), 1, field);
    t.is(await count(`before${field}At=${later}`), 1, field);
    const bad = await client.get(`/tasks?before${field}At=yesterday`);
    t.is(bad.status, 400);
    t.is(bad.body.code, `invalid_task_before_${field.toLowerCase()}_at`);
  }
  t.is((await client.get('/tasks?indexUids=DATES')).body.total, 0, 'index uids are case-sensitive');
  t.is((await client.get('/tasks?indexUids=dates')).body.total, 1);
  t.is((await client.get('/tasks?canceledBy=x')).body.code, 'invalid_task_canceled_by');
});

test.serial('canceling a processing document task mid-way leaves the index exactly as before; a cancelation can be canceled', async (t) => {
  await client.addDocuments('films', bigPayload(300));
  const before = await indexSnapshot('films');
  // Overwrites the first 300 documents and adds many more.
  const big = await client.enqueue('POST', '/indexes/films/documents', { body: bigPayload(40_000).map((doc) => ({ ...doc, title: `changed ${doc.title}` })) });
  await waitForStatus(big, 'processing');
  // Enqueued while the batch runs: A matches nothing; B targets A; C targets the processing task.
  const a = (await client.post('/tasks/cancel?uids=999999', undefined, { contentType: null })).body.taskUid;
  const b = (await client.post('/tasks/cancel?types=taskCancelation', undefined, { contentType: null })).body.taskUid;
  const c = (await client.post(`/tasks/cancel?uids=${big}`, undefined, { contentType: null })).body.taskUid;
  const canceled = await client.waitForTask(big, 60_000);
  t.is(canceled.status, 'canceled');
  t.is(canceled.canceledBy, c);
  t.deepEqual((await client.waitForTask(c)).details, { matchedTasks: 1, canceledTasks: 1, originalFilter: `?uids=${big}` });
  // C ran first (newest cancelation first), then B canceled A before A ever ran.
  const cancelB = await client.waitForTask(b);
  t.like(cancelB, { status: 'succeeded', details: { matchedTasks: 1, canceledTasks: 1, originalFilter: '?types=taskCancelation' } });
  t.like(await client.waitForTask(a), { status: 'canceled', canceledBy: b });
  t.deepEqual(await indexSnapshot('films'), before);
  // The canceledBy filter finds them.
  t.deepEqual((await client.get(`/tasks?canceledBy=${c},${b}`)).body.results.map((task: any) => task.uid).sort(), [a, big].sort());
});

test.serial('cancel is atomic over every matched enqueued or processing task', async (t) => {
  await client.createIndex('queue');
  const enqueued: number[] = [];
  const first = await client.enqueue('POST', '/indexes/queue/documents', { body: bigPayload(20_000) });
  await waitForStatus(first, 'processing');
  for (let i = 0; i < 8; i++) enqueued.push(await client.enqueue('POST', '/indexes/queue/documents', { body: [{ id: 1_000_000 + i }] }));
  const response = await client.post('/tasks/cancel?indexUids=queue&statuses=enqueued,processing', undefined, { contentType: null });
  t.is(response.status, 200);
  const cancelation = await client.waitForTask(response.body.taskUid, 60_000);
  t.deepEqual(cancelation.details, { matchedTasks: 9, canceledTasks: 9, originalFilter: '?indexUids=queue&statuses=enqueued,processing' });
  for (const uid of [first, ...enqueued]) t.like((await client.get(`/tasks/${uid}`)).body, { status: 'canceled', canceledBy: cancelation.uid });
  t.is((await client.get('/indexes/queue/stats')).body.numberOfDocuments, 0);
  // Finished tasks are not canceled again.
  const again = await client.waitForTask((await client.post(`/tasks/cancel?uids=${first}`, undefined, { contentType: null })).body.taskUid);
  t.deepEqual(again.details, { matchedTasks: 1, canceledTasks: 0, originalFilter: `?uids=${first}` });
});

test.serial('delete is atomic over finished tasks only; deleted tasks are task_not_found', async (t) => {
  await client.createIndex('trash');
  const finished = [(await client.addDocuments('trash', [{ id: 1 }])).uid, (await client.addDocuments('trash', [{ id: 2 }])).uid];
  const running = await client.enqueue('POST', '/indexes/trash/documents', { body: bigPayload(20_000) });
  await waitForStatus(running, 'processing');
  const waiting = await client.enqueue('POST', '/indexes/trash/documents', { body: [{ id: 3 }] });
  const response = await client.delete('/tasks?indexUids=trash');
  t.is(response.status, 200);
  const deletion = await client.waitForTask(response.body.taskUid, 60_000);
  // Deletions run before index tasks: `running` had finished by then and goes; `waiting` was still enqueued and stays.
  t.deepEqual(deletion.details, { matchedTasks: 5, deletedTasks: 4, originalFilter: '?indexUids=trash' });
  for (const uid of [...finished, running]) {
    const gone = await client.get(`/tasks/${uid}`);
    t.is(gone.status, 404);
    t.deepEqual(gone.body, errorBody(`Task \`${uid}\` not found.`, 'task_not_found'));
  }
  t.is((await client.waitForTask(waiting)).status, 'succeeded');
});

test.serial('a key restricted to some indexes only sees, matches, cancels and deletes their tasks', async (t) => {
  await client.createIndex('mine_1');
  await client.createIndex('theirs');
  const { body: key } = await client.post('/keys', { actions: ['tasks.*', 'indexes.*'], indexes: ['mine_*'], expiresAt: null });
  const restricted = client.withKey(key.key);
  const listed = (await restricted.get('/tasks?limit=1000')).body.results;
  t.true(listed.length > 0);
  t.true(listed.every((task: any) => task.indexUid === null || task.indexUid.startsWith('mine_')));
  const theirs = (await client.get('/tasks?indexUids=theirs')).body.results[0].uid;
  t.is((await restricted.get(`/tasks/${theirs}`)).status, 404);
  const mineCount = (await client.get('/tasks?indexUids=mine_1&statuses=succeeded')).body.total;
  const matched = await restricted.post('/tasks/cancel?statuses=succeeded&indexUids=mine_1,theirs', undefined, { contentType: null });
  t.is((await client.waitForTask(matched.body.taskUid)).details.matchedTasks, mineCount);
  const deleted = await restricted.delete('/tasks?indexUids=mine_1,theirs');
  const deletion = await client.waitForTask(deleted.body.taskUid);
  t.is(deletion.details.deletedTasks, mineCount);
  t.is((await client.get(`/tasks/${theirs}`)).status, 200);
});
