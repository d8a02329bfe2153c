// /tasks: task object shape, details per type, listing with limit/from/next, filters, cancel/delete, errors.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
const uids: Record<string, number> = {};

test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  const { client } = server;
  // A fixed history, one task at a time so that uids are known.
  uids.createA = (await client.createIndex('tasks_a', 'id')).uid;
  uids.addA = (await client.addDocuments('tasks_a', [{ id: 1 }, { id: 2 }, { id: 3 }])).uid;
  uids.createAgain = (await client.waitForTask(await client.enqueue('POST', '/indexes', { body: { uid: 'tasks_a' } }))).uid;
  uids.deleteOne = (await client.run('DELETE', '/indexes/tasks_a/documents/1')).uid;
  uids.deleteBatch = (await client.run('POST', '/indexes/tasks_a/documents/delete-batch', { body: [2, 42] })).uid;
  uids.settings = (await client.run('PUT', '/indexes/tasks_a/settings/searchable-attributes', { body: ['title'] })).uid;
  uids.createB = (await client.run('POST', '/indexes', { body: { uid: 'tasks_b' } })).uid;
  uids.patchB = (await client.run('PATCH', '/indexes/tasks_b', { body: { primaryKey: 'key' } })).uid;
  uids.clearA = (await client.run('DELETE', '/indexes/tasks_a/documents')).uid;
  uids.deleteB = (await client.run('DELETE', '/indexes/tasks_b')).uid;
});
test.after.always(async () => {
  await server?.close();
});

const TASK_KEYS = [
  'uid', 'batchUid', 'indexUid', 'status', 'type', 'canceledBy', 'details', 'error', 'duration', 'enqueuedAt',
  'startedAt', 'finishedAt',
];

test.serial('uids are sequential from 0', (t) => {
  t.deepEqual(Object.values(uids), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test.serial('GET /tasks/{uid}: full task object in Meilisearch field order', async (t) => {
  const response = await server.client.get(`/tasks/${uids.addA}`);
  t.is(response.status, 200);
  const task = response.body;
  t.deepEqual(Object.keys(task), TASK_KEYS);
  t.like(task, {
    uid: uids.addA,
    indexUid: 'tasks_a',
    status: 'succeeded',
    type: 'documentAdditionOrUpdate',
    canceledBy: null,
    error: null,
  });
  t.deepEqual(task.details, { receivedDocuments: 3, indexedDocuments: 3 });
  t.is(typeof task.batchUid, 'number');
  t.regex(task.duration, /^PT\d+(\.\d+)?S$/);
  for (const key of ['enqueuedAt', 'startedAt', 'finishedAt']) {
    t.regex(task[key], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, key);
  }
  t.true(Date.parse(task.enqueuedAt) <= Date.parse(task.startedAt));
  t.true(Date.parse(task.startedAt) <= Date.parse(task.finishedAt));
});

test.serial('details per task type', async (t) => {
  const { client } = server;
  const details = async (uid: number) => (await client.get(`/tasks/${uid}`)).body;
  t.deepEqual((await details(uids.createA)).details, { primaryKey: 'id' });
  t.deepEqual((await details(uids.deleteOne)).details, { providedIds: 1, deletedDocuments: 1, originalFilter: null });
  t.deepEqual((await details(uids.deleteBatch)).details, { providedIds: 2, deletedDocuments: 1, originalFilter: null });
  t.deepEqual((await details(uids.settings)).details, { searchableAttributes: ['title'] });
  t.deepEqual((await details(uids.createB)).details, { primaryKey: null });
  const patch = await details(uids.patchB);
  t.is(patch.type, 'indexUpdate');
  t.deepEqual(patch.details, { primaryKey: 'key' });
  const clear = await details(uids.clearA);
  t.is(clear.type, 'documentDeletion');
  t.deepEqual(clear.details, { deletedDocuments: 1 });
  const deletion = await details(uids.deleteB);
  t.is(deletion.type, 'indexDeletion');
  t.deepEqual(deletion.details, { deletedDocuments: 0 });
});

test.serial('a failed task carries its error and keeps status failed', async (t) => {
  const task = (await server.client.get(`/tasks/${uids.createAgain}`)).body;
  t.is(task.status, 'failed');
  t.deepEqual(task.error, errorBody('Index `tasks_a` already exists.', 'index_already_exists'));
  t.deepEqual(task.details, { primaryKey: null });
  t.regex(task.duration, /^PT/);
});

test.serial('GET /tasks lists newest first with total, limit, from, next', async (t) => {
  const response = await server.client.get('/tasks');
  t.is(response.status, 200);
  t.deepEqual(Object.keys(response.body).sort(), ['from', 'limit', 'next', 'results', 'total']);
  t.is(response.body.total, 10);
  t.is(response.body.limit, 20);
  t.is(response.body.from, 9);
  t.is(response.body.next, null);
  t.deepEqual(response.body.results.map((task: { uid: number }) => task.uid), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  t.deepEqual(Object.keys(response.body.results[0]), TASK_KEYS);
});

test.serial('GET /tasks pagination with limit, next and from', async (t) => {
  const { client } = server;
  const first = await client.get('/tasks?limit=3');
  t.deepEqual(first.body.results.map((task: { uid: number }) => task.uid), [9, 8, 7]);
  t.like(first.body, { limit: 3, from: 9, next: 6, total: 10 });
  const second = await client.get(`/tasks?limit=3&from=${first.body.next}`);
  t.deepEqual(second.body.results.map((task: { uid: number }) => task.uid), [6, 5, 4]);
  t.like(second.body, { limit: 3, from: 6, next: 3, total: 10 });
  const last = await client.get('/tasks?limit=3&from=2');
  t.deepEqual(last.body.results.map((task: { uid: number }) => task.uid), [2, 1, 0]);
  t.like(last.body, { from: 2, next: null });
});

test.serial('GET /tasks filters: uids, statuses, types, indexUids combine with AND', async (t) => {
  const { client } = server;
  const ids = async (query: string) => {
    const response = await client.get(`/tasks?${query}`);
    t.is(response.status, 200, query);
    return response.body.results.map((task: { uid: number }) => task.uid);
  };
  t.deepEqual(await ids('uids=0,3,99'), [3, 0]);
  t.deepEqual(await ids('statuses=failed'), [uids.createAgain]);
  t.deepEqual(await ids('types=indexCreation'), [6, 2, 0]);
  t.deepEqual(await ids('types=indexCreation,indexDeletion'), [9, 6, 2, 0]);
  t.deepEqual(await ids('indexUids=tasks_b'), [9, 7, 6]);
  t.deepEqual(await ids('indexUids=tasks_a&types=documentDeletion'), [8, 4, 3]);
  t.deepEqual(await ids('indexUids=tasks_a&statuses=succeeded&types=indexCreation'), [0]);
  t.deepEqual(await ids('statuses=*&types=*&indexUids=*&limit=2'), [9, 8]);
  t.deepEqual(await ids('indexUids=tasks_nope'), []);
  const counted = await client.get('/tasks?indexUids=tasks_b&limit=1');
  t.like(counted.body, { total: 3, from: 9, next: 7 });
});

test.serial('GET /tasks/{uid} errors', async (t) => {
  const { client } = server;
  const missing = await client.get('/tasks/12345');
  t.is(missing.status, 404);
  t.deepEqual(missing.body, errorBody('Task `12345` not found.', 'task_not_found'));
  const invalid = await client.get('/tasks/abc');
  t.is(invalid.status, 400);
  t.deepEqual(
    invalid.body,
    errorBody('Task uid `abc` is invalid. It should only contain numeric characters.', 'invalid_task_uids'),
  );
});

test.serial('GET /tasks filter validation errors', async (t) => {
  const { client } = server;
  const statuses = await client.get('/tasks?statuses=done');
  t.is(statuses.status, 400);
  t.deepEqual(
    statuses.body,
    errorBody(
      'Task status `done` is invalid. Available task statuses are `enqueued`, `processing`, `succeeded`, `failed`, `canceled`.',
      'invalid_task_statuses',
    ),
  );
  const types = await client.get('/tasks?types=indexCreation,bogus');
  t.is(types.status, 400);
  t.is(types.body.code, 'invalid_task_types');
  t.regex(types.body.message, /^Task type `bogus` is invalid\. Available task types are `documentAdditionOrUpdate`/);
  const taskUids = await client.get('/tasks?uids=1,x');
  t.is(taskUids.status, 400);
  t.is(taskUids.body.code, 'invalid_task_uids');
  const limit = await client.get('/tasks?limit=-1');
  t.is(limit.status, 400);
  t.is(limit.body.code, 'invalid_task_limit');
  const from = await client.get('/tasks?from=x');
  t.is(from.status, 400);
  t.is(from.body.code, 'invalid_task_from');
  const indexUids = await client.get('/tasks?indexUids=bad%20uid');
  t.is(indexUids.status, 400);
  t.is(indexUids.body.code, 'invalid_index_uid');
  const unknown = await client.get('/tasks?foo=1');
  t.is(unknown.status, 400);
  t.is(unknown.body.code, 'bad_request');
});

test.serial('types filter is case-insensitive', async (t) => {
  const response = await server.client.get('/tasks?types=INDEXCREATION');
  t.is(response.status, 200);
  t.is(response.body.total, 3);
});

test.serial('cancel and delete need a filter: missing_task_filters', async (t) => {
  const { client } = server;
  const cancel = await client.post('/tasks/cancel', undefined, { contentType: null });
  t.is(cancel.status, 400);
  t.deepEqual(
    cancel.body,
    errorBody(
      'Query parameters to filter the tasks to cancel are missing. Available query parameters are: `uids`, `indexUids`, `statuses`, `types`, `canceledBy`, `beforeEnqueuedAt`, `afterEnqueuedAt`, `beforeStartedAt`, `afterStartedAt`, `beforeFinishedAt`, `afterFinishedAt`.',
      'missing_task_filters',
    ),
  );
  const deletion = await client.delete('/tasks');
  t.is(deletion.status, 400);
  t.deepEqual(
    deletion.body,
    errorBody(
      'Query parameters to filter the tasks to delete are missing. Available query parameters are: `uids`, `indexUids`, `statuses`, `types`, `canceledBy`, `beforeEnqueuedAt`, `afterEnqueuedAt`, `beforeStartedAt`, `afterStartedAt`, `beforeFinishedAt`, `afterFinishedAt`.',
      'missing_task_filters',
    ),
  );
});

test.serial('canceling finished tasks: 200, taskCancelation, canceledTasks 0', async (t) => {
  const { client } = server;
  const response = await client.post('/tasks/cancel?uids=0,1', undefined, { contentType: null });
  t.is(response.status, 200);
  t.deepEqual(Object.keys(response.body), ['taskUid', 'indexUid', 'status', 'type', 'enqueuedAt']);
  t.like(response.body, { indexUid: null, status: 'enqueued', type: 'taskCancelation' });
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.is(task.indexUid, null);
  t.deepEqual(task.details, { matchedTasks: 2, canceledTasks: 0, originalFilter: '?uids=0,1' });
  t.is((await client.get('/tasks/0')).body.status, 'succeeded');
});

test.serial('deleting finished tasks removes them; uids are never reused', async (t) => {
  const { client } = server;
  const response = await client.delete('/tasks?uids=1,2');
  t.is(response.status, 200);
  t.like(response.body, { indexUid: null, status: 'enqueued', type: 'taskDeletion' });
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { matchedTasks: 2, deletedTasks: 2, originalFilter: '?uids=1,2' });
  const gone = await client.get('/tasks/1');
  t.is(gone.status, 404);
  t.deepEqual(gone.body, errorBody('Task `1` not found.', 'task_not_found'));
  t.is((await client.get('/tasks/0')).status, 200);
  const next = await client.createIndex('tasks_c');
  t.is(next.uid, response.body.taskUid + 1);
  const listed = await client.get('/tasks?uids=1,2');
  t.is(listed.body.total, 0);
});
