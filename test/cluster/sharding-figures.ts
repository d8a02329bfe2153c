// Figure for issue 23's sharding (not a test): `node dist/test/cluster/sharding-figures.js [rows] [queries]`
// on loopback. The same npm.tsv rows in a plain single node and in a 3-node cluster with 3 shard groups
// (one node each); the same seeded real-text queries (single words, pairs, prefixes, some with facets)
// sent one at a time, then 8 at a time, to: the single node; a cluster node with useNetwork (fan-out to
// the 3 groups and merge); the same cluster node without it (its own group's third only).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, waitForTask } from './cluster-client.js';
import { freePort, LocalCluster, REPO_ROOT } from './local-cluster.js';
import { npmPackages } from './npm-sample.js';

const ROWS = Number(process.argv[2] ?? 30_000);
const QUERIES = Number(process.argv[3] ?? 600);

function documents(): Array<Record<string, unknown>> {
  return npmPackages(ROWS);
}

function queries(docs: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const words = [...new Set(docs.slice(0, 5000).flatMap((doc) => `${doc.name} ${doc.summary}`.toLowerCase().split(/[^a-z0-9]+/)).filter((word) => word.length > 2))];
  const pick = () => words[Math.floor(random() * words.length)]!;
  return Array.from({ length: QUERIES }, (_, i) => {
    const q = i % 4 === 0 ? pick() : i % 4 === 1 ? `${pick()} ${pick()}` : i % 4 === 2 ? pick().slice(0, 3) : pick().replace(/[aeiou]/, 'x');
    return i % 5 === 0 ? { q, facets: ['band'] } : { q };
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function run(url: string, list: Array<Record<string, unknown>>, extra: Record<string, unknown>, concurrency: number): Promise<string> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < list.length) {
      const query = list[next++]!;
      const at = performance.now();
      const answer = await call(url, 'POST', '/indexes/npm/search', { ...query, ...extra });
      if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
      latencies.push(performance.now() - at);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  return `p50 ${percentile(latencies, 0.5).toFixed(2)} ms, p90 ${percentile(latencies, 0.9).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms, ${(list.length / seconds).toFixed(0)} q/s`;
}

async function main(): Promise<void> {
  const docs = documents();
  const list = queries(docs);
  const settings = { filterableAttributes: ['band'], searchableAttributes: ['name', 'summary'] };
  const root = mkdtempSync(join(tmpdir(), 'skein-shard-fig-'));
  const port = await freePort();
  const single: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'dist/src/cli.js'), '--db-path', join(root, 'single'), '--http-addr', `127.0.0.1:${port}`,
    '--workers', '1', '--log-level', 'warn'], { stdio: 'ignore' });
  const singleUrl = `http://127.0.0.1:${port}`;
  const cluster = new LocalCluster({ size: 3 });
  try {
    await cluster.start();
    const urls = cluster.nodes.map((node) => node.url);
    for (let i = 0; i < 60; i++) if ((await call(singleUrl, 'GET', '/health').catch(() => null))?.status === 200) break; else await new Promise((r) => setTimeout(r, 250));
    const remotes = Object.fromEntries(urls.map((url, i) => [`skein${i + 1}`, { url }]));
    const shards = Object.fromEntries(urls.map((_, i) => [`g${i + 1}`, { remotes: [`skein${i + 1}`] }]));
    for (const [i, url] of urls.entries()) {
      await call(url, 'PATCH', '/experimental-features', { network: true });
      await call(url, 'PATCH', '/network', { self: `skein${i + 1}`, remotes, shards });
    }
    for (const url of [singleUrl, urls[0]!]) {
      await call(url, 'PATCH', '/indexes/npm/settings', settings);
      let last = 0;
      for (let from = 0; from < docs.length; from += 10_000) last = (await call(url, 'POST', '/indexes/npm/documents', docs.slice(from, from + 10_000), 60_000)).body.taskUid;
      await waitForTask(url, last, 300_000);
    }
    for (const url of urls) await waitForTask(url, (await call(urls[0]!, 'GET', '/tasks?limit=1')).body.results[0].uid, 300_000);
    // One warm-up pass each, then the measured passes back to back.
    for (const [url, extra] of [[singleUrl, {}], [urls[0]!, { useNetwork: true }]] as const) await run(url, list, extra, 4);
    console.log(`${ROWS} npm.tsv rows, ${QUERIES} queries (real text, 1 in 5 with facets), loopback, load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    for (const concurrency of [1, 8]) {
      console.log(`concurrency ${concurrency}:`);
      console.log(`  single node, every document:        ${await run(singleUrl, list, {}, concurrency)}`);
      console.log(`  cluster node, useNetwork (3 groups): ${await run(urls[0]!, list, { useNetwork: true }, concurrency)}`);
      console.log(`  cluster node, its group only:        ${await run(urls[0]!, list, {}, concurrency)}`);
    }
    console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await cluster.stop();
    single.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
