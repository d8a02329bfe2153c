// processingTimeMs counts what Meilisearch's counts: the search itself (its work on the shard worker and
// the front's merge and hit reading), in whole milliseconds truncated (Rust's Duration::as_millis).
// Not the hop to the worker and back nor the wait in its port, which Meilisearch's search, run on a
// blocking thread and timed from inside, does not count either. The official client's facet_search
// snapshots pin `processingTimeMs: 0` for a 4-document index: the hop alone made them 1 ms here.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { withTestServer, type TestServer } from './harness.js';

const MOVIES = [
  { id: 123, title: 'Pride and Prejudice', genres: ['romance', 'action'] },
  { id: 456, title: 'Le Petit Prince', genres: ['adventure', 'comedy'] },
  { id: 2, title: 'Le Rouge et le Noir', genres: 'romance' },
  { id: 1, title: 'Alice In Wonderland', genres: ['adventure'] },
];

const PAUSE = { thread: 'shard', point: 'beforeQueryBatch' } as const;
/** How long the worker is held before it reads the batch: far above what these searches take. */
const HELD_MS = 600;

/** The request, answered while the only worker was held HELD_MS before reading its batch. */
async function heldAnswer(server: TestServer, send: () => Promise<{ status: number; body: any }>) {
  const hooks = server.testHooks!;
  hooks.armThreadFailure({ ...PAUSE, worker: 0, how: 'pause' });
  const started = performance.now();
  const answer = send();
  await hooks.whenThreadPaused(PAUSE);
  await sleep(HELD_MS);
  hooks.releaseThreadPause(PAUSE);
  const response = await answer;
  return { response, roundTripMs: performance.now() - started };
}

test('processingTimeMs leaves out the wait for the shard worker (search, GET search, facet search, multi-search)', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1, testHooks: {} }, async (server) => {
    const { client } = server;
    await client.run('PATCH', '/indexes/movies/settings', { body: { filterableAttributes: ['genres', 'title'] } });
    await client.addDocuments('movies', MOVIES);
    // Settled: one search answered before the worker is held.
    t.is((await client.post('/indexes/movies/search', { q: 'prince' })).status, 200);

    const requests: [string, () => Promise<{ status: number; body: any }>, (body: any) => any][] = [
      ['POST search', () => client.post('/indexes/movies/search', { q: 'prince', facets: ['genres'] }), (body) => body],
      ['GET search', () => client.get('/indexes/movies/search?q=alice'), (body) => body],
      ['facet search', () => client.post('/indexes/movies/facet-search', { facetName: 'genres', facetQuery: 'a' }), (body) => body],
      ['multi-search', () => client.post('/multi-search', { queries: [{ indexUid: 'movies', q: 'rouge' }] }), (body) => body.results[0]],
    ];
    for (const [name, send, answerOf] of requests) {
      const { response, roundTripMs } = await heldAnswer(server, send);
      t.is(response.status, 200, name);
      const processingTimeMs = answerOf(response.body).processingTimeMs;
      t.true(roundTripMs >= HELD_MS, `${name}: the worker was held (${roundTripMs.toFixed(0)} ms)`);
      t.true(Number.isInteger(processingTimeMs) && processingTimeMs >= 0, `${name}: ${processingTimeMs}`);
      // The search takes well under a millisecond here; the margin is for a loaded machine.
      t.true(processingTimeMs < HELD_MS / 2, `${name}: processingTimeMs ${processingTimeMs} counts the ${HELD_MS} ms wait`);
    }
  }));
