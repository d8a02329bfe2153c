// Issue 19, bulk loads: a batch that empties the task queue builds the index's search structures before
// its tasks succeed (state-machine.ts prepareSearchWhenLast), but when the client's next payload for the
// index is still arriving (the front counts uploads under way: protocol/upload-gauge.ts) it first waits
// for that task, bounded, so a bulk load pays one build instead of one per emptied queue. Raw sockets
// (node:net) hold an upload half sent. And the quiet-time snapshot save waits while searches come
// (src/shard/quiet-time.ts): the first searches after a load no longer share the worker with it.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import { sleep, withTestServer, type TestServer } from './harness.js';
import { SEARCH_QUIET_MS } from '../../src/shard/quiet-time.js';

/** Opens a POST of `body` to `path` and sends the headers and the first half of it; finish() sends the rest. */
async function halfSentUpload(port: number, path: string, body: string): Promise<{ socket: Socket; answer: Promise<string>; finish(): void }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', () => {}); // destroyed on purpose by some tests
  let received = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (/\r\n\r\n[\s\S]*\}/.test(received)) resolve(received);
    });
    socket.on('close', () => resolve(received));
  });
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`);
  socket.write(bytes.subarray(0, half));
  return { socket, answer, finish: () => socket.write(bytes.subarray(half)) };
}

async function waitFor(probe: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

async function taskStatus(server: TestServer, uid: number): Promise<string> {
  return (await server.client.get(`/tasks/${uid}`)).body.status;
}

const documents = (from: number, count: number) => Array.from({ length: count }, (_, k) => ({ id: from + k, title: `package ${from + k} builds fast` }));

test('a batch that empties the queue waits for the upload of its index under way: its tasks succeed once the next task is enqueued, each in its own batch', (t) =>
  withTestServer({ testHooks: {} }, async (server) => {
    await server.client.createIndex('bulk', 'id');
    await server.client.addDocuments('bulk', documents(0, 50));
    const upload = await halfSentUpload(server.port, '/indexes/bulk/documents', JSON.stringify(documents(1000, 200)));
    await waitFor(() => server.testHooks!.uploadsUnderWay('bulk'), 'the upload to be counted');
    const first = await server.client.enqueue('POST', '/indexes/bulk/documents', { body: documents(100, 50) });
    await waitFor(async () => (await taskStatus(server, first)) !== 'enqueued', 'the first task to start');
    // Before: the first batch (50 documents) committed within a few ms, its queue empty.
    await sleep(150);
    t.is(await taskStatus(server, first), 'processing', 'the batch waits for the upload under way');
    upload.finish();
    const answer = await upload.answer;
    t.regex(answer, /^HTTP\/1\.1 202/);
    const second = Number(/"taskUid":(\d+)/.exec(answer)![1]);
    const [a, b] = [await server.client.waitForTask(first), await server.client.waitForTask(second)];
    t.is(a.status, 'succeeded');
    t.is(b.status, 'succeeded');
    t.true(Date.parse(a.finishedAt) >= Date.parse(b.enqueuedAt), 'the first task finished after the second was enqueued');
    t.not(a.batchUid, b.batchUid, 'a task enqueued while a batch runs is not moved into it');
    t.is(a.details.indexedDocuments, 50);
    t.is(b.details.indexedDocuments, 200);
    t.false(server.testHooks!.uploadsUnderWay('bulk'), 'the answered upload is not counted any more');
    const search = await server.client.request('POST', '/indexes/bulk/search', { body: { q: 'package', limit: 1 } });
    t.is(search.body.estimatedTotalHits, 300);
    upload.socket.destroy();
  }));

test('hostile uploads: one that never ends holds a batch only for a bounded time; ones abandoned, too large or malformed stop counting', (t) =>
  withTestServer({ testHooks: {}, httpPayloadSizeLimit: 64 * 1024 }, async (server) => {
    await server.client.createIndex('stall', 'id');
    const stalled = await halfSentUpload(server.port, '/indexes/stall/documents', JSON.stringify(documents(1000, 200)));
    await waitFor(() => server.testHooks!.uploadsUnderWay('stall'), 'the upload to be counted');
    const started = Date.now();
    const task = await server.client.waitForTask(await server.client.enqueue('POST', '/indexes/stall/documents', { body: documents(0, 20) }), 30_000);
    t.is(task.status, 'succeeded', 'the batch went on without the stalled upload');
    t.true(Date.now() - started < 25_000);
    stalled.socket.destroy();
    await waitFor(() => !server.testHooks!.uploadsUnderWay('stall'), 'the abandoned upload to stop counting');

    const tooLarge = await halfSentUpload(server.port, '/indexes/stall/documents', JSON.stringify(documents(0, 4000)));
    tooLarge.finish();
    t.regex(await tooLarge.answer, /^HTTP\/1\.1 413/);
    t.false(server.testHooks!.uploadsUnderWay('stall'), 'a refused upload is not counted');
    tooLarge.socket.destroy();

    const malformed = await halfSentUpload(server.port, '/indexes/stall/documents', '[{"id": 1,, "title": "broken"}]');
    malformed.finish();
    t.regex(await malformed.answer, /^HTTP\/1\.1 400/);
    t.false(server.testHooks!.uploadsUnderWay('stall'), 'a malformed upload is not counted');
    malformed.socket.destroy();
  }));

function snapshotFiles(dbPath: string, index: string): string[] {
  const folder = join(dbPath, 'snapshots', index);
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.bin')) : [];
}

test('the quiet-time snapshot save waits while searches keep coming, and is written once they pause', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async (server) => {
    await server.client.createIndex('quiet', 'id');
    await server.client.addDocuments('quiet', documents(0, 500));
    // Searches every ~20 ms for 6 s from the commit: before, the save ran ~2 s after it, between them.
    // The save's steps (its file write the last) run only once no search came for SEARCH_QUIET_MS; on a
    // loaded machine this client can itself stall that long between two searches (seen at load 9+ on
    // 2 cores), and the save is then right to run. So the file, whenever it appears, must have been
    // written at least that long after the search sent before it.
    const until = Date.now() + 6_000;
    const sentAt: number[] = [];
    while (Date.now() < until) {
      sentAt.push(Date.now());
      const response = await server.client.request('GET', '/indexes/quiet/search?q=package&limit=1');
      t.is(response.status, 200);
      await sleep(20);
    }
    t.true(sentAt.length > 50);
    const writtenInPause = (): void => {
      const [file] = snapshotFiles(server.dbPath, 'quiet');
      if (file === undefined) return;
      const writtenAt = statSync(join(server.dbPath, 'snapshots', 'quiet', file)).mtimeMs;
      const lastSearchBefore = sentAt.filter((at) => at <= writtenAt).at(-1) ?? Number.NEGATIVE_INFINITY;
      // 50 ms of margin for the clocks' granularity; the save waits from the search's arrival, later than its send.
      t.true(writtenAt - lastSearchBefore >= SEARCH_QUIET_MS - 50,
        `snapshot written ${Math.round(writtenAt - lastSearchBefore)} ms after a search was sent`);
    };
    writtenInPause();
    await waitFor(() => snapshotFiles(server.dbPath, 'quiet').length === 1, 'the snapshot once searches paused', 20_000);
    writtenInPause();
    t.pass();
  }));
