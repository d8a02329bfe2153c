// The front's and the shard worker's CPU per search on the real-text workload, per thread, for A/B pairs
// of builds on one prepared database (the npm workload's documents, settings and GET paths).
//   node bench/front-hop-probe.mjs prepare DIR [documents=100000]
//   node bench/front-hop-probe.mjs run DIR CLI [seconds=10] [warmSeconds=5] [startLine=0] [repeated=1]
// `prepare` loads the documents into DIR/db through a server of this build and writes DIR/unique.txt
// (the workload's 200,000 GET paths) and DIR/repeated.txt (its first 100). `run` starts CLI (a
// dist/src/cli.js) on a copy-free restart of DIR/db, sends a warm-up of unique paths, then one window of
// unique paths from startLine (after the warm-up's) and, with repeated=1, one of the 100 cycled; per window
// it prints req/s, wrk's p50/p99/max, and CPU µs per request of the main thread (the front: tid = pid),
// of the busiest other thread (the shard worker) and of the whole process, read from /proc/PID/task,
// and the query batches sent meanwhile with their mean size (GET /metrics).
// PROBE_SERVER_ARGS="--log-level WARN" adds server flags.
// SKEIN_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server's threads (server-process.ts).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createDataset } from '../dist/bench/dataset.js';
import { buildRealQueries, searchPath } from '../dist/bench/npm-queries.js';
import { loadDataset } from '../dist/bench/loader.js';
import { startSkeinServer } from '../dist/bench/server-process.js';
import { SkeinHttpClient } from '../dist/bench/skein-http.js';
import { runWrkGetWindow } from '../dist/bench/wrk-load.js';

const workload = JSON.parse(readFileSync(new URL('./workloads/npm.json', import.meta.url), 'utf8'));
const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
const [command, directory, ...rest] = process.argv.slice(2);
if (!directory) throw new Error('usage: prepare DIR [documents] | run DIR CLI [seconds] [warm] [startLine] [repeated]');

/** CPU seconds per thread of a process, by tid. */
function threadCpu(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / TICKS);
    } catch {}
  }
  return out;
}

/** Query batches sent so far and the searches they carried (GET /metrics: skein_query_batch_size). */
async function batchTotals(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const value = (name) => Number(text.match(new RegExp(`^${name}(?:\\{\\})? (\\S+)$`, 'm'))?.[1] ?? NaN);
  return { batches: value('skein_query_batch_size_count'), searches: value('skein_query_batch_size_sum') };
}

async function window(server, pathsFile, startLine, seconds, label) {
  const batchesBefore = await batchTotals(server.baseUrl);
  const before = threadCpu(server.pid);
  const figures = await runWrkGetWindow({ baseUrl: server.baseUrl, pathsFile, startLine, concurrency: workload.concurrency, durationSeconds: seconds });
  const after = threadCpu(server.pid);
  const batchesAfter = await batchTotals(server.baseUrl);
  const batches = batchesAfter.batches - batchesBefore.batches;
  let total = 0;
  let front = 0;
  let busiest = 0;
  for (const [tid, cpu] of after) {
    const used = cpu - (before.get(tid) ?? 0);
    total += used;
    if (tid === server.pid) front = used;
    else busiest = Math.max(busiest, used);
  }
  const perRequest = (cpu) => Math.round((cpu / Math.max(1, figures.requests)) * 1e7) / 10;
  const line = {
    label, requests: figures.requests, reqPerSecond: figures.queriesPerSecond,
    p50Ms: figures.latencyMs.p50, p99Ms: figures.latencyMs.p99, maxMs: figures.latencyMs.max,
    non2xx: figures.non2xx, errors: figures.errors,
    frontUsPerRequest: perRequest(front), workerUsPerRequest: perRequest(busiest), processUsPerRequest: perRequest(total),
    frontCpuPercent: Math.round((front / seconds) * 100), workerCpuPercent: Math.round((busiest / seconds) * 100),
    batches, searchesPerBatch: Math.round(((batchesAfter.searches - batchesBefore.searches) / Math.max(1, batches)) * 10) / 10,
    load1: Math.round(loadavg()[0] * 100) / 100,
  };
  console.log(JSON.stringify(line));
  return figures.requests;
}

if (command === 'prepare') {
  const documents = Number(rest[0] ?? workload.dataset.documents);
  mkdirSync(directory, { recursive: true });
  const dataset = createDataset({ ...workload.dataset, documents });
  const queries = buildRealQueries(dataset, workload.queries);
  const lines = (list) => list.map((query) => searchPath(workload.index.uid, query.q, workload.queries.limit)).join('\n') + '\n';
  writeFileSync(join(directory, 'unique.txt'), lines(queries));
  writeFileSync(join(directory, 'repeated.txt'), lines(queries.slice(0, workload.windows.repeatedQueries)));
  const server = await startSkeinServer({ cliPath: new URL('../dist/src/cli.js', import.meta.url).pathname, directory, keepFiles: true });
  try {
    const loaded = await loadDataset(new SkeinHttpClient(server.baseUrl), dataset, { indexUid: workload.index.uid, settings: workload.index.settings, ...workload.load, log: console.error });
    console.log(`loaded ${loaded.documents} documents in ${loaded.totalSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 4000)); // the workers save their snapshots after 2 s idle
  } finally {
    await server.stop({ keepFiles: true });
  }
} else if (command === 'run') {
  const [cli, seconds = '10', warm = '5', startLine = '0', repeated = '1'] = rest;
  const extraArgs = ['--experimental-enable-metrics', ...(process.env.PROBE_SERVER_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)];
  const server = await startSkeinServer({ cliPath: cli, directory, keepFiles: true, startTimeoutSeconds: 120, extraArgs });
  try {
    const client = new SkeinHttpClient(server.baseUrl);
    for (let k = 0; k < 1200; k++) {
      const { status } = await client.request('GET', `/indexes/${workload.index.uid}/search?q=a&limit=1`);
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const unique = join(directory, 'unique.txt');
    let line = Number(startLine);
    if (Number(warm) > 0) line += await window(server, unique, line, Number(warm), 'warm-up');
    await window(server, unique, line, Number(seconds), 'unique');
    if (repeated === '1') await window(server, join(directory, 'repeated.txt'), 0, Number(seconds), 'repeated');
  } finally {
    await server.stop({ keepFiles: true });
  }
} else {
  throw new Error(`unknown command ${command}`);
}
