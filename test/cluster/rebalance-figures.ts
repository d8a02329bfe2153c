// Figures for issue 23's rebalancing (not a test): `node dist/test/cluster/rebalance-figures.js [rows]`
// on loopback. npm.tsv rows in a 3-node cluster split over 2 shard groups (g1: skein1; g2: skein2 and
// skein3), then a third group (g3: skein3, which leaves g2), with the default page of 1,000 documents.
// Prints: the share of documents that moved (~1/3 expected), documents moved per second (PATCH to the
// task finished on every node), and the searches sent meanwhile through skein1 and skein2 (useNetwork,
// one at a time each): how many counted every document exactly once, more (a document counted twice,
// Meilisearch's window), fewer (never expected), or failed; their latency during the move and after.
import { loadavg } from 'node:os';
import { rendezvousGroup } from '../../src/documents/shard-group.js';
import { call, sleep, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';
import { npmPackages } from './npm-sample.js';

const ROWS = Number(process.argv[2] ?? 30_000);

function documents(): Array<Record<string, unknown>> {
  return npmPackages(ROWS);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

interface Tally { exact: number; over: number; under: number; failed: number; latencies: number[] }

async function searchLoop(url: string, total: number, tally: Tally, running: () => boolean): Promise<void> {
  const words = ['react', 'parser', 'cli', 'vue', 'test', 'http', ''];
  for (let i = 0; running(); i++) {
    const at = performance.now();
    // Facet counts are not capped by maxTotalHits: their sum is how many documents the groups answered with.
    const answer = await call(url, 'POST', '/indexes/npm/search', { q: words[i % words.length], limit: 5, facets: ['band'], useNetwork: true }).catch(() => null);
    tally.latencies.push(performance.now() - at);
    if (!answer || answer.status !== 200 || answer.body.remoteErrors) { tally.failed++; continue; }
    if (words[i % words.length] !== '') continue;
    const counted = Object.values(answer.body.facetDistribution?.band ?? {}).reduce((a: number, b) => a + (b as number), 0);
    if (counted === total) tally.exact++;
    else if (counted > total) tally.over++;
    else tally.under++;
  }
}

async function main(): Promise<void> {
  const docs = documents();
  const cluster = new LocalCluster({ size: 3 });
  try {
    await cluster.start();
    const urls = cluster.nodes.map((node) => node.url);
    const remotes = { skein1: { url: urls[0] }, skein2: { url: urls[1] }, skein3: { url: urls[2] } };
    for (const [i, url] of urls.entries()) {
      await call(url, 'PATCH', '/experimental-features', { network: true });
      await call(url, 'PATCH', '/network', { self: `skein${i + 1}`, remotes, shards: { g1: { remotes: ['skein1'] }, g2: { remotes: ['skein2', 'skein3'] } } });
    }
    await call(urls[0]!, 'PATCH', '/indexes/npm/settings', { filterableAttributes: ['band'], searchableAttributes: ['name', 'summary'] });
    let last = 0;
    for (let from = 0; from < docs.length; from += 10_000) last = (await call(urls[0]!, 'POST', '/indexes/npm/documents', docs.slice(from, from + 10_000), 60_000)).body.taskUid;
    for (const url of urls) await waitForTask(url, last, 300_000);
    const toG3 = docs.filter((doc) => rendezvousGroup(String(doc.id), ['g1', 'g2', 'g3']) === 'g3').length;

    const before: Tally = { exact: 0, over: 0, under: 0, failed: 0, latencies: [] };
    let quiet = true;
    const stopQuiet = sleep(3000).then(() => { quiet = false; });
    await Promise.all([searchLoop(urls[0]!, docs.length, before, () => quiet), searchLoop(urls[1]!, docs.length, before, () => quiet), stopQuiet]);

    const during: Tally = { exact: 0, over: 0, under: 0, failed: 0, latencies: [] };
    let moving = true;
    const searches = [searchLoop(urls[0]!, docs.length, during, () => moving), searchLoop(urls[1]!, docs.length, during, () => moving)];
    const load = loadavg().map((x) => x.toFixed(2)).join(' ');
    const started = performance.now();
    await call(urls[0]!, 'PATCH', '/network', { shards: { g2: { remotes: ['skein2'] }, g3: { remotes: ['skein3'] } } });
    const moveUid = (await call(urls[0]!, 'GET', '/tasks?types=networkTopologyChange&limit=1')).body.results[0].uid as number;
    for (const url of urls) await waitForTask(url, moveUid, 600_000);
    const seconds = (performance.now() - started) / 1000;
    moving = false;
    await Promise.all(searches);
    const tasks = await Promise.all(urls.map(async (url) => (await call(url, 'GET', `/tasks/${moveUid}`)).body));
    const moved = tasks[0].details.movedDocuments + tasks[1].details.movedDocuments;
    const describe = (tally: Tally) => `${tally.latencies.length} searches (${tally.exact + tally.over + tally.under} counting every document): exact ${tally.exact}, `
      + `over ${tally.over}, under ${tally.under}, failed ${tally.failed}; latency p50 ${percentile(tally.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(tally.latencies, 0.99).toFixed(1)} ms`;
    console.log(`${docs.length} npm.tsv rows, 2 -> 3 shard groups, pages of 1000, loopback; load average at the PATCH: ${load}`);
    console.log(`moved to g3: ${moved} of ${docs.length} (${(100 * moved / docs.length).toFixed(1)} %; rendezvous over the names: ${toG3}), statuses ${tasks.map((task) => task.status).join(' ')}`);
    console.log(`PATCH to finished on every node: ${seconds.toFixed(2)} s, ${(moved / seconds).toFixed(0)} documents moved per second`);
    console.log(`before the move: ${describe(before)}`);
    console.log(`during the move: ${describe(during)}`);
    console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await cluster.stop();
  }
}

await main();
