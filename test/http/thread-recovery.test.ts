// A shard worker or the scheduler thread dies (a failure point armed through startServer's test
// hooks, a terminate, or real heap exhaustion): searches in flight answer `internal` at once, the
// thread is replaced and attached again, later searches and writes succeed without a restart, the
// index holds exactly the documents of the tasks that succeeded, nothing stays processing/enqueued,
// and /health says `unavailable` meanwhile, `available` after.
import test from 'ava';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ThreadEvent } from '../../src/index.js';
import { withTestServer, type Client, type StartOptions, type TestServer } from './harness.js';

/** Thread events as they come, each awaitable. */
class ThreadEvents {
  readonly seen: (ThreadEvent & { at: number })[] = [];
  private waiters: { match: (event: ThreadEvent) => boolean; resolve: (event: ThreadEvent) => void; from: number }[] = [];

  readonly record = (event: ThreadEvent): void => {
    this.seen.push({ ...event, at: Date.now() });
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.match(event)) return true;
      waiter.resolve(event);
      return false;
    });
  };

  /** The next event (from now on) matching, or a failure after timeoutMs. */
  next(thread: ThreadEvent['thread'], event: ThreadEvent['event'], timeoutMs = 15_000): Promise<ThreadEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${thread} ${event} event within ${timeoutMs} ms: ${JSON.stringify(this.seen)}`)), timeoutMs);
      this.waiters.push({
        match: (seen) => seen.thread === thread && seen.event === event, from: this.seen.length,
        resolve: (seen) => {
          clearTimeout(timer);
          resolve(seen);
        },
      });
    });
  }
}

function withRecoveringServer<T>(options: StartOptions, body: (server: TestServer & { testHooks: NonNullable<TestServer['testHooks']> }, events: ThreadEvents) => Promise<T>): Promise<T> {
  const events = new ThreadEvents();
  return withTestServer({ workers: 2, shardsPerIndex: 3, ...options, testHooks: { ...options.testHooks, onThreadEvent: events.record } }, (server) => {
    if (!server.testHooks) throw new Error('the server has no test hooks');
    return body(server as TestServer & { testHooks: NonNullable<TestServer['testHooks']> }, events);
  });
}

const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heron'];

/** Documents whose ids and a word of their own say which batch they came from. */
function batch(label: string, from: number, count: number) {
  return Array.from({ length: count }, (_, k) => ({ id: from + k, batch: label, title: `${label} ${WORDS[k % WORDS.length]} document ${from + k}` }));
}

async function allIds(client: Client, index: string): Promise<number[]> {
  const response = await client.get(`/indexes/${index}/documents?limit=10000&fields=id`);
  if (response.status !== 200) throw new Error(`GET documents answered ${response.status}: ${response.text}`);
  return (response.body.results as { id: number }[]).map((document) => document.id).sort((a, b) => a - b);
}

/** Every document, as the shards see it: a placeholder search over every shard. */
async function searchedIds(client: Client, index: string): Promise<number[]> {
  const response = await client.post(`/indexes/${index}/search`, { q: '', limit: 10000, attributesToRetrieve: ['id'] });
  if (response.status !== 200) throw new Error(`search answered ${response.status}: ${response.text}`);
  return (response.body.hits as { id: number }[]).map((hit) => hit.id).sort((a, b) => a - b);
}

async function hitsFor(client: Client, index: string, q: string): Promise<number> {
  const response = await client.post(`/indexes/${index}/search`, { q, limit: 1000 });
  if (response.status !== 200) throw new Error(`search ${q} answered ${response.status}: ${response.text}`);
  return response.body.hits.length;
}

/** No task left enqueued or processing (waits for the queue to drain, bounded). */
async function queueDrained(client: Client, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get('/tasks?statuses=enqueued,processing&limit=1');
    if (response.status === 200 && response.body.total === 0) return;
    if (Date.now() > deadline) throw new Error(`tasks still enqueued or processing after ${timeoutMs} ms: ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test.serial('a shard worker that dies during searches: searches in flight answer internal at once, /health is unavailable until it is replaced, later searches succeed', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    const documents = batch('base', 1, 60);
    await client.addDocuments('books', documents);
    t.is(await hitsFor(client, 'books', 'amber'), 8);

    const release = testHooks.holdReplacements();
    testHooks.armThreadFailure({ thread: 'shard', worker: 0, point: 'beforeQueryBatch', how: 'throw' });
    const died = events.next('shard', 'died');
    const startedAt = Date.now();
    const inFlight = await Promise.all(Array.from({ length: 6 }, (_, k) => client.post('/indexes/books/search', { q: WORDS[k % WORDS.length] })));
    const elapsed = Date.now() - startedAt;
    for (const response of inFlight) {
      t.is(response.status, 500, response.text);
      t.is(response.body.code, 'internal');
      t.is(response.body.type, 'internal');
    }
    t.true(elapsed < 5_000, `the searches in flight took ${elapsed} ms`);
    t.is((await died).worker, 0);

    // Not replaced yet (held): the server says so, and searches on the dead worker fail at once.
    const health = await client.get('/health');
    t.is(health.status, 503);
    t.deepEqual(health.body, { status: 'unavailable' });
    const meanwhile = await client.post('/indexes/books/search', { q: 'birch' });
    t.is(meanwhile.status, 500);
    t.is(meanwhile.body.code, 'internal');

    const replaced = events.next('shard', 'replaced');
    release();
    t.is((await replaced).worker, 0);
    t.deepEqual(await client.get('/health').then((response) => [response.status, response.body]), [200, { status: 'available' }]);
    t.is(await hitsFor(client, 'books', 'amber'), 8);
    t.deepEqual(await searchedIds(client, 'books'), documents.map((document) => document.id));

    // Writes go on: the new thread was attached to the scheduler again.
    const more = batch('more', 100, 20);
    await client.addDocuments('books', more);
    t.deepEqual(await searchedIds(client, 'books'), [...documents, ...more].map((document) => document.id));
    await queueDrained(client);
  }));

test.serial('a shard worker that dies while it applies a batch: the batch fails whole (its other shards rolled back), the worker is replaced, later batches succeed', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    const base = batch('base', 1, 40);
    await client.addDocuments('books', base);

    testHooks.armThreadFailure({ thread: 'shard', worker: 1, point: 'beforeWriteBatch', how: 'exit' });
    const replaced = events.next('shard', 'replaced');
    const doomed = batch('doomed', 1000, 40);
    const failedUid = await client.enqueue('POST', '/indexes/books/documents', { body: doomed });
    const failed = await client.waitForTask(failedUid);
    t.is(failed.status, 'failed');
    t.is(failed.error.code, 'internal');
    t.is((await replaced).worker, 1);

    // Nothing of the failed batch is searchable, on the surviving worker or on the new one.
    t.is(await hitsFor(client, 'books', 'doomed'), 0);
    t.deepEqual(await searchedIds(client, 'books'), base.map((document) => document.id));
    t.deepEqual(await allIds(client, 'books'), base.map((document) => document.id));

    const later = batch('later', 2000, 40);
    await client.addDocuments('books', later);
    const expected = [...base, ...later].map((document) => document.id);
    t.deepEqual(await searchedIds(client, 'books'), expected);
    t.deepEqual(await allIds(client, 'books'), expected);
    t.is(await hitsFor(client, 'books', 'later'), 40);
    await queueDrained(client);
    t.deepEqual(await client.get('/health').then((response) => response.body), { status: 'available' });
  }));

test.serial('a shard worker that dies right after it acknowledged a batch: the batch commits or fails whole, and the replacement holds exactly what was committed', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    const base = batch('base', 1, 40);
    await client.addDocuments('books', base);
    testHooks.armThreadFailure({ thread: 'shard', worker: 1, point: 'afterWriteBatchAck', how: 'exit' });
    const replaced = events.next('shard', 'replaced');
    const acked = batch('acked', 1000, 40);
    const task = await client.waitForTask(await client.enqueue('POST', '/indexes/books/documents', { body: acked }));
    await replaced;
    // The ack may or may not have crossed before the thread ended: either way the index agrees with the task.
    const expected = task.status === 'succeeded' ? [...base, ...acked] : base;
    t.true(['succeeded', 'failed'].includes(task.status));
    t.deepEqual(await searchedIds(client, 'books'), expected.map((document) => document.id), `task ${task.status}`);
    t.deepEqual(await allIds(client, 'books'), expected.map((document) => document.id));
    t.is(await hitsFor(client, 'books', 'acked'), task.status === 'succeeded' ? 40 : 0);
    await client.addDocuments('books', batch('later', 2000, 5));
    t.is(await hitsFor(client, 'books', 'later'), 5);
    await queueDrained(client);
  }));

test.serial('a terminated shard worker (an exit with no error event) is replaced too', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    const base = batch('base', 1, 30);
    await client.addDocuments('books', base);
    const replaced = events.next('shard', 'replaced');
    await testHooks.terminateShardWorker(0);
    await replaced;
    t.deepEqual(await searchedIds(client, 'books'), base.map((document) => document.id));
    await client.addDocuments('books', batch('next', 500, 5));
    t.is(await hitsFor(client, 'books', 'next'), 5);
  }));

test.serial('the scheduler thread dies after the shards applied a batch: the batch is redone whole by the new thread, writes fail at once meanwhile', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    const base = batch('base', 1, 40);
    await client.addDocuments('books', base);

    const release = testHooks.holdReplacements();
    testHooks.armThreadFailure({ thread: 'scheduler', point: 'afterShardsApplied' });
    const died = events.next('scheduler', 'died');
    const redoneUid = await client.enqueue('POST', '/indexes/books/documents', { body: batch('redone', 1000, 40) });
    await died;
    t.deepEqual(await client.get('/health').then((response) => [response.status, response.body]), [503, { status: 'unavailable' }]);
    // Writes fail at once while there is no scheduler thread (never a task enqueued twice).
    const refused = await client.post('/indexes/books/documents', batch('refused', 3000, 3));
    t.is(refused.status, 500, refused.text);
    t.is(refused.body.code, 'internal');
    // Searches do not need the scheduler.
    t.is((await client.post('/indexes/books/search', { q: 'base' })).status, 200);

    const replaced = events.next('scheduler', 'replaced');
    release();
    await replaced;
    t.deepEqual(await client.get('/health').then((response) => [response.status, response.body]), [200, { status: 'available' }]);
    const redone = await client.waitForTask(redoneUid);
    t.is(redone.status, 'succeeded', JSON.stringify(redone.error));
    const expected = [...base, ...batch('redone', 1000, 40)].map((document) => document.id);
    t.deepEqual(await searchedIds(client, 'books'), expected);
    t.deepEqual(await allIds(client, 'books'), expected);
    t.is(await hitsFor(client, 'books', 'refused'), 0);

    await client.addDocuments('books', batch('after', 5000, 10));
    t.is(await hitsFor(client, 'books', 'after'), 10);
    await queueDrained(client);
    const all = (await client.get('/tasks?limit=100')).body;
    t.is(all.total, 3, 'no task enqueued twice, none lost');
  }));

test.serial('the scheduler thread dies with a batch applied in the shards but not committed: the shard workers drop it (reloaded) even when the redo fails', (t) =>
  withRecoveringServer({}, async ({ client, dbPath, testHooks }, events) => {
    const base = batch('base', 1, 40);
    await client.addDocuments('books', base);
    const release = testHooks.holdReplacements();
    testHooks.armThreadFailure({ thread: 'scheduler', point: 'afterShardsApplied' });
    const died = events.next('scheduler', 'died');
    const ghostUid = await client.enqueue('POST', '/indexes/books/documents', { body: batch('ghost', 1000, 30) });
    await died;
    // The shards hold the uncommitted batch meanwhile.
    t.is(await hitsFor(client, 'books', 'ghost'), 30);
    // Its update file goes, so the new thread's redo fails: only a reload of the shards removes the documents.
    const updateFiles = join(dbPath, 'update-files');
    for (const name of readdirSync(updateFiles)) rmSync(join(updateFiles, name), { force: true });
    const replaced = events.next('scheduler', 'replaced');
    release();
    await replaced;
    const ghost = await client.waitForTask(ghostUid);
    t.is(ghost.status, 'failed');
    t.is(await hitsFor(client, 'books', 'ghost'), 0);
    t.deepEqual(await searchedIds(client, 'books'), base.map((document) => document.id));
    t.deepEqual(await allIds(client, 'books'), base.map((document) => document.id));
    await queueDrained(client);
  }));

test.serial('the scheduler thread dies after it persisted an enqueued task: the request answers internal, the task is processed once by the new thread', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    await client.addDocuments('books', batch('base', 1, 10));
    testHooks.armThreadFailure({ thread: 'scheduler', point: 'afterEnqueuePersisted' });
    const replaced = events.next('scheduler', 'replaced');
    const lost = await client.post('/indexes/books/documents', batch('persisted', 100, 10));
    t.is(lost.status, 500, lost.text);
    t.is(lost.body.code, 'internal');
    await replaced;
    await queueDrained(client);
    const tasks = (await client.get('/tasks?limit=100')).body;
    t.is(tasks.total, 2);
    t.is(tasks.results[0].status, 'succeeded');
    t.is(await hitsFor(client, 'books', 'persisted'), 10);
  }));

test.serial('the scheduler thread dies during searches and indexing: searches in flight answer (200 or internal) in bounded time, later ones succeed', (t) =>
  withRecoveringServer({}, async ({ client, testHooks }, events) => {
    const base = batch('base', 1, 60);
    await client.addDocuments('books', base);
    testHooks.armThreadFailure({ thread: 'scheduler', point: 'beforeCommit' });
    const replaced = events.next('scheduler', 'replaced');
    const uid = await client.enqueue('POST', '/indexes/books/documents', { body: batch('second', 1000, 30) });
    const startedAt = Date.now();
    const during = await Promise.all(Array.from({ length: 20 }, (_, k) => client.post('/indexes/books/search', { q: WORDS[k % WORDS.length] })));
    t.true(Date.now() - startedAt < 10_000);
    for (const response of during) t.true(response.status === 200 || (response.status === 500 && response.body.code === 'internal'), response.text);
    await replaced;
    t.is((await client.waitForTask(uid)).status, 'succeeded');
    t.deepEqual(await searchedIds(client, 'books'), [...base, ...batch('second', 1000, 30)].map((document) => document.id));
    await queueDrained(client);
  }));

test.serial('a shard worker that exhausts its heap (small resourceLimits) is replaced; a replacement dying while it loads is retried with a growing delay', (t) =>
  withRecoveringServer({ testHooks: { shardWorkerResourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 } } }, async ({ client, testHooks }, events) => {
    const base = batch('base', 1, 30);
    await client.addDocuments('books', base);
    // Real heap exhaustion in the search path, then two replacements that die before they load.
    testHooks.armThreadFailure({ thread: 'shard', worker: 0, point: 'beforeQueryBatch', how: 'oom' });
    testHooks.armThreadFailure({ thread: 'shard', worker: 0, point: 'beforeLoad', how: 'exit' });
    testHooks.armThreadFailure({ thread: 'shard', worker: 0, point: 'beforeLoad', how: 'exit' });
    const replaced = events.next('shard', 'replaced', 20_000);
    const search = await client.post('/indexes/books/search', { q: 'amber' });
    t.is(search.status, 500, search.text);
    t.is(search.body.code, 'internal');
    t.regex(search.body.message, /memory/, 'the thread died of heap exhaustion (ERR_WORKER_OUT_OF_MEMORY)');
    await replaced;
    const deaths = events.seen.filter((event) => event.thread === 'shard' && event.event === 'died');
    t.is(deaths.length, 3);
    const back = events.seen.find((event) => event.thread === 'shard' && event.event === 'replaced')!;
    // The first replacement at once, the next one after a 500 ms wait, the one after that after 1 s.
    const gaps = [deaths[1]!.at - deaths[0]!.at, deaths[2]!.at - deaths[1]!.at, back.at - deaths[2]!.at];
    // Lower bounds only: on a busy machine a thread's start alone can take seconds.
    t.true(gaps[1]! >= 450 && gaps[2]! >= 950, `gaps between deaths and the replacement: ${gaps.join(', ')} ms`);
    t.deepEqual(await searchedIds(client, 'books'), base.map((document) => document.id));
    await client.addDocuments('books', batch('after', 100, 5));
    t.is(await hitsFor(client, 'books', 'after'), 5);
  }));

test.serial('close() while a dead thread waits for its replacement does not hang', async (t) => {
  const events = new ThreadEvents();
  await withTestServer({ workers: 2, shardsPerIndex: 3, testHooks: { onThreadEvent: events.record } }, async ({ client, testHooks }) => {
    await client.addDocuments('books', batch('base', 1, 10));
    testHooks!.holdReplacements();
    const died = events.next('shard', 'died');
    await testHooks!.terminateShardWorker(1);
    await died;
    const schedulerDied = events.next('scheduler', 'died');
    testHooks!.armThreadFailure({ thread: 'scheduler', point: 'afterEnqueuePersisted' });
    t.is((await client.post('/indexes/books/documents', batch('x', 100, 2))).status, 500);
    await schedulerDied;
    // withTestServer closes the server here, with both replacements held.
  });
  t.false(events.seen.some((event) => event.event === 'replaced'));
});

test.serial('close() after searches that read LMDB in the shard workers: every shard thread ends itself, none is terminated (a terminate inside an LMDB call aborts the process)', async (t) => {
  const events = new ThreadEvents();
  await withTestServer({ workers: 2, shardsPerIndex: 3, testHooks: { onThreadEvent: events.record } }, async ({ client }) => {
    await client.addDocuments('books', batch('base', 1, 200));
    // attributesToHighlight: the worker reads each hit's stored document from LMDB.
    const searches = Array.from({ length: 40 }, () => client.post('/indexes/books/search', { q: 'base', limit: 50, attributesToHighlight: ['title'] }));
    for (const search of await Promise.all(searches)) t.is(search.status, 200);
    // Left in flight: close() answers them (200 or shutting down); the threads must still end by themselves.
    for (let k = 0; k < 20; k++) void client.post('/indexes/books/search', { q: 'base', attributesToHighlight: ['title'] }).catch(() => {});
  });
  const stops = events.seen.filter((event) => event.thread === 'shard' && (event.event === 'ended' || event.event === 'terminated'));
  t.deepEqual(stops.map((event) => `${event.worker} ${event.event}`).sort(), ['0 ended', '1 ended']);
});
