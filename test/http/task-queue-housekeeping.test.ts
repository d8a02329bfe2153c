// Task queue housekeeping with small configured bounds (SkeinOptions maxNumberOfTasks, maxTaskDbSize):
// the oldest finished tasks deleted automatically past the count (Meilisearch's cleanup_task_queue),
// new tasks refused with no_space_left_on_device when the task store is full, and its size in /stats.
import test from 'ava';
import { errorBody, sleep, withTestServer } from './harness.js';

test('past maxNumberOfTasks, a taskDeletion of the oldest finished tasks is registered', (t) =>
  withTestServer({ maxNumberOfTasks: 20 }, async ({ client }) => {
    for (let i = 0; i < 25; i++) await client.addDocuments('kept', [{ id: i, title: `document ${i}` }]);
    const deletions = (await client.get('/tasks?types=taskDeletion')).body.results;
    t.true(deletions.length >= 1, 'an automatic deletion ran');
    const first = deletions[deletions.length - 1];
    t.is(first.status, 'succeeded');
    t.is(first.indexUid, null);
    // Registered before the batch that found 20 tasks: the 19 finished ones then (the 20th was enqueued).
    t.is(first.details.matchedTasks, 19);
    t.is(first.details.deletedTasks, 19);
    t.regex(first.details.originalFilter, /^\?beforeEnqueuedAt=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z&statuses=succeeded,failed,canceled$/);
    const remaining = (await client.get('/tasks?limit=1000')).body;
    t.true(remaining.total < 20, `${remaining.total} tasks left`);
    t.is((await client.get('/tasks/0')).status, 404, 'the oldest task is gone');
    t.is((await client.get('/indexes/kept/stats')).body.numberOfDocuments, 25, 'the documents stay');
    const stats = (await client.get('/stats')).body.taskQueue;
    t.is(stats.maxNumberOfTasks, 20);
    t.is(stats.numberOfTasks, remaining.total);
  }));

test('a full task store refuses new tasks with no_space_left_on_device until tasks are deleted', (t) =>
  // 40% of 40,000 bytes: the task store may use 16,000 bytes (4 pages).
  withTestServer({ maxTaskDbSize: 40_000 }, async ({ client }) => {
    const before = (await client.get('/stats')).body.taskQueue;
    t.is(before.maxSize, 40_000);
    t.is(before.sizeUntilStopRegistering, 16_000 - before.usedSize);
    let refused = null;
    for (let i = 0; i < 2000 && refused === null; i++) {
      const response = await client.post('/indexes/full/documents', [{ id: i, title: `a document with some words in it, number ${i}` }]);
      if (response.status !== 202) refused = response;
    }
    t.truthy(refused, 'the store filled up');
    t.is(refused!.status, 422);
    t.deepEqual(refused!.body, errorBody('Meilisearch cannot receive write operations because the limit of the task database has been reached. '
      + 'Please delete tasks to continue performing write operations.', 'no_space_left_on_device', 'system'));
    const full = (await client.get('/stats')).body.taskQueue;
    t.true(full.usedSize > 16_000);
    t.is(full.sizeUntilStopRegistering, 0);
    // Other writes are refused too; a deletion that matches tasks is not (it frees the space).
    t.is((await client.post('/indexes', { uid: 'other' })).status, 422);
    const empty = await client.delete('/tasks?uids=999999');
    t.is(empty.status, 422, 'a deletion matching nothing frees nothing');
    // Wait for the queue to drain so the deletion can take every task.
    for (let i = 0; i < 400 && (await client.get('/tasks?statuses=enqueued,processing&limit=0')).body.total > 0; i++) await sleep(50);
    const deletion = await client.delete('/tasks?statuses=succeeded,failed');
    t.is(deletion.status, 200);
    await client.waitForTask(deletion.body.taskUid);
    const after = (await client.get('/stats')).body.taskQueue;
    t.true(after.usedSize < full.usedSize, `${after.usedSize} < ${full.usedSize}`);
    t.is((await client.post('/indexes/full/documents', [{ id: 'again', title: 'accepted again' }])).status, 202);
  }));
