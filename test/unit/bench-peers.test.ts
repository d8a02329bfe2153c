// The peer processes for real: each compiled peer is started as a child on a tiny dataset and
// measured with the same code path as Skein.
import test from 'ava';
import { createDataset } from '../../bench/dataset.js';
import { buildQueries } from '../../bench/query-mix.js';
import { peerScriptPath, runPeer } from '../../bench/run-peers.js';
import { startSkeinServer } from '../../bench/server-process.js';
import { SkeinHttpClient } from '../../bench/skein-http.js';
import { peerNames, resolveWorkload } from '../../bench/workload.js';

const workload = resolveWorkload(
  { dataset: { documents: 300, vocabularySize: 500 }, queries: { count: 50, mix: { word: 1, prefix: 1, typo: 1 } }, concurrency: 2, durationSeconds: 1, warmupSeconds: 0, runs: 2 },
  'tiny',
);
const dataset = createDataset(workload.dataset);

for (const name of peerNames) {
  test(`${name}: answers Meilisearch-shaped searches over the generated documents`, async (t) => {
    const server = await startSkeinServer({ cliPath: peerScriptPath(name), extraArgs: ['--dataset', JSON.stringify(workload.dataset), '--settings', JSON.stringify({ searchableAttributes: ['title'] })] });
    try {
      const client = new SkeinHttpClient(server.baseUrl);
      const title = String(dataset.documentAt(7).title);
      const { status, json } = await client.request('POST', '/indexes/bench/search', JSON.stringify({ q: title.toLowerCase(), limit: 3 }));
      t.is(status, 200);
      const body = json as { hits: Array<{ id: number }>; query: string; limit: number; offset: number; estimatedTotalHits: number };
      t.is(body.limit, 3);
      t.is(body.offset, 0);
      t.true(body.hits.length > 0 && body.hits.length <= 3);
      if (name !== 'ceiling') t.true(body.hits.some((hit) => hit.id === 7), `${name} finds document 7 by its title`);
      t.deepEqual(body.hits[0], JSON.parse(JSON.stringify(dataset.documentAt(body.hits[0].id))), 'hits are whole documents');
      t.is((await client.request('POST', '/indexes/bench/search', '{"q":')).status, 400);
      const figures = (await client.request('GET', '/bench/peer')).json as { name: string; documents: number };
      t.is(figures.name, name);
      t.is(figures.documents, 300);
    } finally {
      await server.stop();
    }
  });
}

test('runPeer measures a peer like Skein: medians of the runs, memory, CPU', async (t) => {
  const result = await runPeer(workload, 'minisearch', buildQueries(dataset, workload.queries), () => {});
  t.is(result.error, null);
  t.is(result.search?.runs, 2);
  t.is(result.search?.perRun.length, 2);
  t.true((result.search?.queriesPerSecond ?? 0) > 0);
  t.is(result.search?.non2xx, 0);
  t.true((result.server.rssAfterLoadBytes ?? 0) > 1e6);
  t.is(result.loading?.documents, 300);
});

test('a peer that cannot start is recorded as failed, not thrown', async (t) => {
  const result = await runPeer({ ...workload, load: { ...workload.load, taskTimeoutSeconds: 5 }, dataset: { ...workload.dataset, kind: 'nope' } }, 'ceiling', [], () => {});
  t.regex(result.error ?? '', /exited|unknown dataset kind/);
  t.is(result.search, null);
});
