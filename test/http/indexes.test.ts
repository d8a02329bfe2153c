// /indexes: list, create, get, update primaryKey, delete, and their errors.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
test.before(async () => {
  server = await startTestServer();
});
test.after.always(async () => {
  await server?.close();
});

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const INVALID_UID = (uid: string) =>
  `\`${uid}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.`;

test.serial('POST /indexes answers 202 with a summarized indexCreation task', async (t) => {
  const { client } = server;
  const response = await client.post('/indexes', { uid: 'idx_create', primaryKey: 'sku' });
  t.is(response.status, 202);
  t.deepEqual(Object.keys(response.body), ['taskUid', 'indexUid', 'status', 'type', 'enqueuedAt']);
  t.like(response.body, { indexUid: 'idx_create', status: 'enqueued', type: 'indexCreation' });
  t.regex(response.body.enqueuedAt, RFC3339);

  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { primaryKey: 'sku' });

  const index = await client.get('/indexes/idx_create');
  t.is(index.status, 200);
  t.deepEqual(Object.keys(index.body), ['uid', 'createdAt', 'updatedAt', 'primaryKey']);
  t.is(index.body.uid, 'idx_create');
  t.is(index.body.primaryKey, 'sku');
  t.regex(index.body.createdAt, RFC3339);
  t.regex(index.body.updatedAt, RFC3339);
});

test.serial('an index created without primary key shows primaryKey null', async (t) => {
  const { client } = server;
  const task = await client.createIndex('idx_nopk');
  t.deepEqual(task.details, { primaryKey: null });
  t.is((await client.get('/indexes/idx_nopk')).body.primaryKey, null);
});

test.serial('creating an existing index fails the task with index_already_exists', async (t) => {
  const { client } = server;
  await client.createIndex('idx_twice');
  const task = await client.waitForTask(await client.enqueue('POST', '/indexes', { body: { uid: 'idx_twice' } }));
  t.is(task.status, 'failed');
  t.deepEqual(task.error, errorBody('Index `idx_twice` already exists.', 'index_already_exists'));
});

test.serial('GET /indexes/{uid} of a missing index is 404 index_not_found', async (t) => {
  const response = await server.client.get('/indexes/idx_missing');
  t.is(response.status, 404);
  t.deepEqual(response.body, errorBody('Index `idx_missing` not found.', 'index_not_found'));
});

test.serial('invalid index uids are rejected with 400 invalid_index_uid', async (t) => {
  const { client } = server;
  const created = await client.post('/indexes', { uid: 'bad uid!' });
  t.is(created.status, 400);
  t.deepEqual(created.body, errorBody(INVALID_UID('bad uid!'), 'invalid_index_uid'));

  const inPath = await client.get('/indexes/bad!uid');
  t.is(inPath.status, 400);
  t.deepEqual(inPath.body, errorBody(INVALID_UID('bad!uid'), 'invalid_index_uid'));

  const tooLong = await client.post('/indexes', { uid: 'a'.repeat(401) });
  t.is(tooLong.status, 400);
  t.is(tooLong.body.code, 'invalid_index_uid');

  const longest = await client.post('/indexes', { uid: 'b'.repeat(400) });
  t.is(longest.status, 202);
});

test.serial('POST /indexes without uid is missing_index_uid', async (t) => {
  const response = await server.client.post('/indexes', { primaryKey: 'id' });
  t.is(response.status, 400);
  t.deepEqual(response.body, errorBody('Missing field `uid`', 'missing_index_uid'));
});

test.serial('POST /indexes with an unknown field is bad_request', async (t) => {
  const response = await server.client.post('/indexes', { uid: 'idx_unknown_field', foo: 1 });
  t.is(response.status, 400);
  t.is(response.body.code, 'bad_request');
  t.regex(response.body.message, /^Unknown field `foo`: expected one of /);
});

test.serial('PATCH /indexes/{uid} updates the primary key of an empty index', async (t) => {
  const { client } = server;
  await client.createIndex('idx_patch');
  const response = await client.patch('/indexes/idx_patch', { primaryKey: 'code' });
  t.is(response.status, 202);
  t.like(response.body, { indexUid: 'idx_patch', status: 'enqueued', type: 'indexUpdate' });
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { primaryKey: 'code' });
  t.is((await client.get('/indexes/idx_patch')).body.primaryKey, 'code');
});

test.serial('PATCH primaryKey on an index holding documents fails with index_primary_key_already_exists', async (t) => {
  const { client } = server;
  await client.addDocuments('idx_patch_full', [{ id: 1, name: 'a' }]);
  const task = await client.waitForTask(await client.enqueue('PATCH', '/indexes/idx_patch_full', { body: { primaryKey: 'name' } }));
  t.is(task.status, 'failed');
  t.is(task.error.code, 'index_primary_key_already_exists');
  t.is((await client.get('/indexes/idx_patch_full')).body.primaryKey, 'id');
});

test.serial('PATCH with createdAt is immutable_index_created_at', async (t) => {
  const { client } = server;
  await client.createIndex('idx_immutable');
  const response = await client.patch('/indexes/idx_immutable', { createdAt: '2020-01-01T00:00:00Z' });
  t.is(response.status, 400);
  t.is(response.body.code, 'immutable_index_created_at');
});

test.serial('DELETE /indexes/{uid} removes the index and reports deletedDocuments', async (t) => {
  const { client } = server;
  await client.addDocuments('idx_delete', [{ id: 1 }, { id: 2 }]);
  const response = await client.delete('/indexes/idx_delete');
  t.is(response.status, 202);
  t.like(response.body, { indexUid: 'idx_delete', status: 'enqueued', type: 'indexDeletion' });
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { deletedDocuments: 2 });
  t.is((await client.get('/indexes/idx_delete')).status, 404);
  t.is((await client.get('/indexes/idx_delete/documents/1')).status, 404);
});

test.serial('deleting a missing index fails the task with index_not_found', async (t) => {
  const { client } = server;
  const response = await client.delete('/indexes/idx_never_was');
  t.is(response.status, 202);
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'failed');
  t.is(task.type, 'indexDeletion');
  t.deepEqual(task.error, errorBody('Index `idx_never_was` not found.', 'index_not_found'));
});

test.serial('a recreated index starts empty', async (t) => {
  const { client } = server;
  await client.addDocuments('idx_recreate', [{ id: 1, title: 'old' }]);
  await client.run('DELETE', '/indexes/idx_recreate');
  await client.createIndex('idx_recreate');
  const documents = await client.get('/indexes/idx_recreate/documents');
  t.deepEqual(documents.body, { results: [], offset: 0, limit: 20, total: 0 });
  const search = await client.post('/indexes/idx_recreate/search', { q: 'old' });
  t.is(search.body.hits.length, 0);
});

test.serial('GET /indexes lists by uid with offset, limit and total', async (t) => {
  const { client } = server;
  const list = await client.get('/indexes?limit=1000');
  t.is(list.status, 200);
  t.deepEqual(Object.keys(list.body), ['results', 'offset', 'limit', 'total']);
  const uids = list.body.results.map((index: { uid: string }) => index.uid);
  t.deepEqual(uids, [...uids].sort());
  t.is(list.body.total, uids.length);
  t.true(uids.length >= 3);

  const page = await client.get('/indexes?offset=1&limit=2');
  t.is(page.status, 200);
  t.is(page.body.offset, 1);
  t.is(page.body.limit, 2);
  t.is(page.body.total, uids.length);
  t.deepEqual(page.body.results.map((index: { uid: string }) => index.uid), uids.slice(1, 3));

  const defaults = await client.get('/indexes');
  t.is(defaults.body.offset, 0);
  t.is(defaults.body.limit, 20);
});

test.serial('GET /indexes with a bad limit or offset', async (t) => {
  const { client } = server;
  const limit = await client.get('/indexes?limit=abc');
  t.is(limit.status, 400);
  t.deepEqual(
    limit.body,
    errorBody('Invalid value in parameter `limit`: could not parse `abc` as a positive integer', 'invalid_index_limit'),
  );
  const offset = await client.get('/indexes?offset=-1');
  t.is(offset.status, 400);
  t.is(offset.body.code, 'invalid_index_offset');
});
