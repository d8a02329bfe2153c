// GET /tasks/{uid}/documents (experimental getTaskDocumentsRoute): the NDJSON a documentAdditionOrUpdate
// task still holds, gated by the feature, with Meilisearch's errors.
import test from 'ava';
import { withTestServer } from './harness.js';

test('gated by getTaskDocumentsRoute; serves the documents of an enqueued addition; errors as Meilisearch', async (t) => {
  await withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    await client.createIndex('docs', 'id');
    const off = await client.get('/tasks/0/documents');
    t.is(off.status, 400);
    t.is(off.body.code, 'feature_not_enabled');
    t.is(off.body.message, 'Getting the documents of an enqueued task requires enabling the `get task documents route` experimental feature. See https://github.com/orgs/meilisearch/discussions/808');
    t.is((await client.patch('/experimental-features', { getTaskDocumentsRoute: true })).status, 200);

    // A queue long enough that the last addition is still waiting when its documents are asked for.
    // Written by hand: JSON.stringify would round the big number before it is sent.
    const batches = Array.from({ length: 12 }, (_, b) => `[${Array.from({ length: 4000 }, (_, i) => `{"id":${b * 4000 + i},"big":12345678901234567890,"title":"doc ${i}"}`).join(',')}]`);
    const uids: number[] = [];
    for (const documents of batches) uids.push(await client.enqueue('POST', '/indexes/docs/documents', { raw: documents }));
    const last = uids[uids.length - 1]!;
    const response = await client.get(`/tasks/${last}/documents`);
    const status = (await client.get(`/tasks/${last}`)).body.status;
    if (response.status === 404) {
      t.is(status, 'succeeded', 'only a finished task has no documents any more');
    } else {
      t.is(response.status, 200);
      t.is(response.headers.get('content-type'), 'application/x-ndjson');
      const lines = response.text.split('\n').filter((line) => line.trim() !== '');
      t.is(lines.length, 4000);
      t.deepEqual(JSON.parse(lines[0]!).id, 11 * 4000);
      t.true(lines[0]!.includes('12345678901234567890'), 'numbers as sent');
    }
    for (const uid of uids) await client.waitForTask(uid, 60_000);
    const finished = await client.get(`/tasks/${last}/documents`);
    t.is(finished.status, 404);
    t.is(finished.body.code, 'task_file_not_found');
    t.is((await client.get('/tasks/0/documents')).body.code, 'task_file_not_found');
    t.is((await client.get('/tasks/999999/documents')).body.code, 'task_not_found');
    t.is((await client.get('/tasks/abc/documents')).body.code, 'invalid_task_uids');
  });
});
