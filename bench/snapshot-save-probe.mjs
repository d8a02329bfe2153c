// usage: node bench/snapshot-save-probe.mjs TREE [documents] [rounds]: the latency of searches landing
// during a shard worker's quiet-time snapshot save. One shard (ShardEngine of TREE's dist) over the first
// `documents` real npm packages (npm.tsv: name, version, downloads, summary; searchable name then
// summary), built for search; this thread runs what the shard worker runs between query batches (the
// SlicedJobs runner with SnapshotKeeper.saveSteps, files in a temporary folder) and answers searches
// posted by a client thread every ~4 ms (open loop, one-word and two-word queries from the summaries, 20
// hits). Each round: 1 s of searches alone (the first one a warm-up, left out), then a save (a new commit stamp each round) with searches,
// then 0.5 s more. Prints p50 / p99 / max of the save's steps (wall time: what a search waits behind at
// most), of the searches sent during the saves and of those sent outside (on a shared machine the
// thread's descheduling shows in both: compare with the steps).
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const now = () => performance.timeOrigin + performance.now();

if (!isMainThread) {
  // The client: posts a search every ~4 ms, whatever the answers (so they land anywhere in a save).
  const { queries } = workerData;
  const sent = new Map();
  const results = [];
  let next = 0;
  parentPort.on('message', (message) => {
    if (message.stop) {
      clearInterval(timer);
      parentPort.postMessage({ results });
      return;
    }
    const at = sent.get(message.id);
    sent.delete(message.id);
    results.push([at, now() - at]);
  });
  const timer = setInterval(() => {
    const id = next++;
    sent.set(id, now());
    parentPort.postMessage({ id, q: queries[id % queries.length] });
  }, 4);
} else {
  const [tree, documentsArg = '100000', roundsArg = '5'] = process.argv.slice(2);
  const { ShardEngine } = await import(`${tree}/dist/src/shard/shard-engine.js`);
  const { SlicedJobs } = await import(`${tree}/dist/src/shard/sliced-jobs.js`);
  const { SnapshotKeeper } = await import(`${tree}/dist/src/shard/snapshot/snapshot-keeper.js`);
  const lines = readFileSync('/work/.library/env/packages/npm.tsv', 'utf8').split('\n').slice(1, 1 + Number(documentsArg)).filter(Boolean);
  const docs = lines.map((line, id) => { const [name, version, downloads, summary] = line.split('\t'); return [id, { id, name, version, downloads: Number(downloads), summary: summary ?? '' }]; });
  let seed = 11;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const words = [...new Set(docs.flatMap(([, doc]) => doc.summary.toLowerCase().split(/[^a-z]+/).filter((word) => word.length > 2)))];
  const queries = Array.from({ length: 20000 }, () => Array.from({ length: 1 + Math.floor(random() * 2) }, () => words[Math.floor(random() * words.length)]).join(' '));
  const engine = new ShardEngine(0, 1);
  engine.loadIndex('npm', 1, { searchableAttributes: ['name', 'summary'] }, docs);
  engine.prepareForSearch();
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-save-probe-'));
  const keeper = new SnapshotKeeper(dbPath, engine, (message) => console.error(message));
  keeper.loaded('npm', 1);
  const background = new SlicedJobs({ onError: (_key, cause) => console.error(cause) });
  const client = new Worker(new URL(import.meta.url), { workerData: { queries } });
  client.on('message', (message) => {
    if (message.results) return finish(message.results);
    engine.search({ indexUid: 'npm', shards: [0], q: message.q, hitsWanted: 20, matchingStrategy: 'last' });
    client.postMessage({ id: message.id });
  });
  const saves = [];
  const firstAt = now();
  /** Wall time of each step of the save (what a search arriving meanwhile waits behind, at most). */
  const stepTimes = [];
  function* timedSteps(job) {
    for (;;) {
      const started = now();
      const step = job.next();
      stepTimes.push(now() - started);
      if (step.done) return;
      yield step.value;
    }
  }
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  for (let round = 0; round < Number(roundsArg); round++) {
    await sleep(1000);
    keeper.committed('npm', 2 + round);
    const started = now();
    await new Promise((resolve) => background.enqueue(keeper, () => timedSteps(keeper.saveSteps()), { onLeave: resolve }));
    saves.push([started, now()]);
    await sleep(500);
  }
  client.postMessage({ stop: true });
  function finish(results) {
    const during = [];
    const outside = [];
    // The first second is a warm-up (cold caches), left out.
    for (const [at, latency] of results) if (at >= firstAt + 1000) (saves.some(([start, end]) => at >= start && at <= end) ? during : outside).push(latency);
    const stats = (values) => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
      return `${sorted.length} searches, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`;
    };
    console.log(`${tree}: saves ${saves.map(([start, end]) => Math.round(end - start)).join(', ')} ms`);
    console.log(`  save steps: ${stats(stepTimes).replace('searches', 'steps')}`);
    console.log(`  during the saves: ${stats(during)}`);
    console.log(`  outside:          ${stats(outside)}`);
    rmSync(dbPath, { recursive: true, force: true });
    process.exit(0);
  }
}
