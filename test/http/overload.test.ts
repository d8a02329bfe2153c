// Past its queue bound the server answers 503 too_many_search_requests at once (Meilisearch does so
// past 1,000 queued searches) instead of letting every search wait: a burst far above a small bound,
// every request answered, the queue drained afterwards.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

const QUEUE_BOUND = 8;
const BURST = 300;
let server: TestServer;

test.before(async () => {
  server = await startTestServer({ maxQueuedSearches: QUEUE_BOUND, workers: 2, shardsPerIndex: 2 });
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  const documents = Array.from({ length: 3000 }, (_, id) => ({
    id, text: Array.from({ length: 30 }, (_, k) => words[(id * 7 + k * 3) % words.length]).join(' '),
  }));
  await server.client.run('POST', '/indexes/overload/documents', { body: documents });
});

test.after.always(async () => {
  await server?.close();
});

test('a burst past the queue bound gets 503 too_many_search_requests; the rest are answered', async (t) => {
  const responses = await Promise.all(Array.from({ length: BURST }, (_, k) =>
    // A thousand highlighted hits each: searches slow enough for the burst to pile up behind them.
    server.client.request('POST', '/indexes/overload/search', {
      body: { q: k % 2 === 0 ? 'alpha bravo' : 'charlie delt', limit: 1000, attributesToHighlight: ['*'] },
    })));
  const statuses = new Set(responses.map((response) => response.status));
  t.deepEqual([...statuses].filter((status) => status !== 200 && status !== 503), []);
  const refused = responses.filter((response) => response.status === 503);
  const answered = responses.filter((response) => response.status === 200);
  t.true(refused.length > 0, 'no search was refused');
  // Each search queues once per worker owning its shards, so at least bound / workers are taken.
  t.true(answered.length >= QUEUE_BOUND / 2, `only ${answered.length} searches answered`);
  for (const response of refused) {
    t.like(response.body, { code: 'too_many_search_requests', type: 'system', link: 'https://docs.meilisearch.com/errors#too_many_search_requests' });
    t.regex(response.body.message, /^Too many search requests running at the same time: \d+\. Retry after 10s\.$/);
    // A page on another origin may read Retry-After only when CORS exposes it.
    t.is(response.headers.get('retry-after'), '10');
    t.is(response.headers.get('access-control-expose-headers'), 'Retry-After');
    t.is(response.headers.get('access-control-allow-origin'), '*');
  }
  for (const response of answered) t.true(Array.isArray(response.body.hits) && response.body.hits.length > 0);
});

test('after a burst the queue drains: searches are answered again', async (t) => {
  await Promise.all(Array.from({ length: BURST }, () => server.client.request('POST', '/indexes/overload/search', { body: { q: 'echo' } })));
  const after = await server.client.request('POST', '/indexes/overload/search', { body: { q: 'echo' } });
  t.is(after.status, 200);
  t.true(after.body.estimatedTotalHits > 0);
});
