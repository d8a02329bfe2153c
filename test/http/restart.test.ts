// Durability: everything survives close() + startServer on the same dbPath, and kill -9 of the CLI process.
import test from 'ava';
import { freePort, spawnCli, startTestServer, stopChild, withTempDir, withTestServer, type Client, type TestServer } from './harness.js';

const MOVIES = [
  { id: 1, title: 'Carol', overview: 'romance in new york' },
  { id: 2, title: 'Wonder Woman', overview: 'amazon princess' },
  { id: 3, title: 'Life of Pi', overview: 'tiger on a boat' },
];

const ids = (body: { hits: Array<{ id: number }> }) => body.hits.map((hit) => hit.id);

async function searchIds(client: Client, index: string, q: string) {
  const response = await client.post(`/indexes/${index}/search`, { q });
  if (response.status !== 200) throw new Error(`search: ${response.status} ${response.text}`);
  return ids(response.body);
}

test('indexes, documents, settings and tasks survive close and restart; an enqueued task is processed', (t) =>
  withTempDir(async (dbPath) => {
    const { failedUid, indexBefore, tasksBefore, lateUid } = await withTestServer({ dbPath }, async (first) => {
      const before = first.client;
      await before.addDocuments('rs_movies', MOVIES);
      await before.run('PUT', '/indexes/rs_movies/settings/searchable-attributes', { body: ['title'] });
      await before.createIndex('rs_other', 'key');
      const failedUid = await before.enqueue('POST', '/indexes', { body: { uid: 'rs_other' } });
      await before.waitForTask(failedUid);
      const indexBefore = (await before.get('/indexes/rs_movies')).body;
      const tasksBefore = (await before.get('/tasks')).body;
      // Enqueued just before close: it must be processed after the restart (if not already).
      const lateUid = await before.enqueue('POST', '/indexes/rs_movies/documents', { body: [{ id: 10, title: 'Late arrival' }] });
      return { failedUid, indexBefore, tasksBefore, lateUid };
    });

    await withTestServer({ dbPath }, async (second) => {
      const after = second.client;
      const late = await after.waitForTask(lateUid);
      t.is(late.status, 'succeeded');
      t.deepEqual(late.details, { receivedDocuments: 1, indexedDocuments: 1 });

      t.deepEqual((await after.get('/indexes/rs_movies')).body, {
        ...indexBefore,
        updatedAt: (await after.get('/indexes/rs_movies')).body.updatedAt,
      });
      t.is((await after.get('/indexes/rs_other')).body.primaryKey, 'key');
      const documents = await after.get('/indexes/rs_movies/documents');
      t.deepEqual(documents.body.results, [...MOVIES, { id: 10, title: 'Late arrival' }]);
      t.deepEqual((await after.get('/indexes/rs_movies/settings/searchable-attributes')).body, ['title']);

      t.deepEqual(await searchIds(after, 'rs_movies', 'wonder'), [2]);
      t.deepEqual(await searchIds(after, 'rs_movies', 'late'), [10]);
      t.deepEqual(await searchIds(after, 'rs_movies', 'tiger'), [], 'searchable attributes still apply');

      const tasksAfter = (await after.get('/tasks')).body;
      t.is(tasksAfter.total, tasksBefore.total + 1);
      t.deepEqual(tasksAfter.results.slice(1), tasksBefore.results, 'finished tasks are unchanged');
      const failed = (await after.get(`/tasks/${failedUid}`)).body;
      t.is(failed.status, 'failed');
      t.is(failed.error.code, 'index_already_exists');

      const next = await after.createIndex('rs_third');
      t.is(next.uid, lateUid + 1, 'task uids continue from the stored maximum');
    });
  }));

// The hang of session 26 (PrepareSearch on: the shutdown's snapshot save ended the prepare, whose ack
// let the batch commit while close() stopped the threads): a scheduler thread terminated inside its
// commit transaction never finished exiting (lmdb-js's cleanup waits on the write lock its own thread
// holds), so close() never resolved. Here the scheduler is held inside the transaction (a pause at
// `duringCommit`) until close() asks it to end: the close must end, with the batch committed.
test('close while the scheduler is inside its commit transaction: the close ends and the batch is kept', (t) =>
  withTempDir(async (dbPath) => {
    const duringCommit = { thread: 'scheduler', point: 'duringCommit' } as const;
    let server: TestServer | null = null;
    server = await startTestServer({
      dbPath,
      testHooks: {
        onThreadEvent: (event) => {
          // After the stop request was made (a microtask later), never before it.
          if (event.thread === 'scheduler' && event.event === 'stopping') void Promise.resolve().then(() => server?.testHooks?.releaseThreadPause(duringCommit));
        },
      },
    });
    const first = server;
    await first.client.addDocuments('cc_movies', MOVIES);
    first.testHooks!.armThreadFailure({ ...duringCommit, how: 'pause' });
    const lateUid = await first.client.enqueue('POST', '/indexes/cc_movies/documents', { body: [{ id: 10, title: 'Late arrival' }] });
    await first.testHooks!.whenThreadPaused(duringCommit);
    // Bounded: before the fix this close never ended (and its threads stay behind).
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([first.close().then(() => true), new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), 30_000); })]);
    clearTimeout(timer);
    t.true(closed, 'close() ended');
    if (!closed) return;

    await withTestServer({ dbPath }, async (second) => {
      const late = await second.client.waitForTask(lateUid);
      t.is(late.status, 'succeeded');
      t.deepEqual(await searchIds(second.client, 'cc_movies', 'late'), [10]);
      t.is((await second.client.get('/indexes/cc_movies/documents')).body.total, MOVIES.length + 1);
    });
  }));

test('kill -9 of the CLI process: succeeded and enqueued tasks survive', (t) =>
  withTempDir(async (dbPath) => {
    const first = await spawnCli(dbPath, await freePort());
    const enqueued: number[] = [];
    try {
      await first.client.addDocuments('k9_movies', MOVIES);
      // Accepted (202) tasks are durable: a crash right after the answers must not lose them.
      for (let i = 0; i < 5; i++) {
        enqueued.push(
          await first.client.enqueue('POST', '/indexes/k9_movies/documents', {
            body: [{ id: 100 + i, title: `burst document ${i}` }],
          }),
        );
      }
    } finally {
      await stopChild(first, 'SIGKILL');
    }
    t.is(first.child.signalCode, 'SIGKILL');

    const second = await spawnCli(dbPath, await freePort());
    try {
      const client = second.client;
      for (const uid of enqueued) {
        const task = await client.waitForTask(uid);
        t.is(task.status, 'succeeded', `task ${uid}`);
      }
      const documents = await client.get('/indexes/k9_movies/documents?limit=100');
      t.is(documents.body.total, 8);
      t.deepEqual(documents.body.results.slice(0, 3), MOVIES);
      t.deepEqual(await searchIds(client, 'k9_movies', 'princess'), [2]);
      t.deepEqual((await searchIds(client, 'k9_movies', 'burst')).sort(), [100, 101, 102, 103, 104]);
      const stats = (await client.get('/indexes/k9_movies/stats')).body;
      t.is(stats.numberOfDocuments, 8);
      t.deepEqual(stats.fieldDistribution, { id: 8, overview: 3, title: 8 });
    } finally {
      await stopChild(second, 'SIGTERM');
    }
  }));
