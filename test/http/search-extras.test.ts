// Search parameters answered as Meilisearch 1.3x does: showPerformanceDetails adds `performanceDetails`
// (step -> "N.NNms") to single and multi-search results, and nothing otherwise.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  await server.client.addDocuments('perf', [{ id: 1, title: 'prince of persia' }, { id: 2, title: 'little prince' }]);
});
test.after.always(async () => {
  await server?.close();
});

function checkDetails(t: import('ava').ExecutionContext, details: unknown) {
  t.truthy(details);
  const entries = Object.entries(details as Record<string, string>);
  t.true(entries.length >= 2);
  for (const [step, took] of entries) {
    t.regex(step, /^search( > .+)?$/);
    t.regex(took, /^\d+\.\d{2}ms$/);
  }
}

test('showPerformanceDetails: POST, GET and multi-search results carry performanceDetails last; absent by default', async (t) => {
  const { client } = server;
  const post = await client.post('/indexes/perf/search', { q: 'prince', showPerformanceDetails: true });
  t.is(post.status, 200);
  checkDetails(t, post.body.performanceDetails);
  t.is(Object.keys(post.body).at(-1), 'performanceDetails');
  t.is(post.body.hits.length, 2);
  checkDetails(t, (await client.get('/indexes/perf/search?q=prince&showPerformanceDetails=true')).body.performanceDetails);
  const multi = await client.post('/multi-search', { queries: [{ indexUid: 'perf', q: 'prince', showPerformanceDetails: true }, { indexUid: 'perf', q: 'little' }] });
  checkDetails(t, multi.body.results[0].performanceDetails);
  t.false('performanceDetails' in multi.body.results[1]);
  t.false('performanceDetails' in (await client.post('/indexes/perf/search', { q: 'prince' })).body);
  const bad = await client.post('/indexes/perf/search', { q: 'prince', showPerformanceDetails: 'yes' });
  t.is(bad.body.code, 'invalid_search_show_performance_details');
});
