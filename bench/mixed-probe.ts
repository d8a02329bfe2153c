// The bench's mixed phase alone, with a timeline: searches at 64 connections (wrk) while npm rows
// arrive every second, against read-only windows just before, on one fresh server. Beside wrk, a
// sampler sends one search every `sampleMs` and records (time, latency), and every write task's
// enqueued / started / finished times are read back, so latency spikes line up with write steps. Times
// are also given on the monotonic clock (µs, as V8's CPU profiles stamp their samples), so a server
// run with SKEIN_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" can be cut by phase
// (bench/cpu-profile-phases.mjs).
//   node dist/bench/mixed-probe.js [--docs 100000] [--warm 2] [--read 1] [--writing 2] [--batch 1000]
//     [--seconds 10] [--connections 64] [--server-cli PATH] [--out FILE.json] [--keep-server-files (its log: --trace-gc-nvp...)]
import { writeFileSync, mkdtempSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDataset } from './dataset.js';
import { loadDataset } from './loader.js';
import type { NpmDataset } from './npm-dataset.js';
import { buildRealQueries, searchPath } from './npm-queries.js';
import { startSkeinServer } from './server-process.js';
import { SkeinHttpClient } from './skein-http.js';
import { runWindows, type WindowFigures } from './window-phase.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '100000' }, warm: { type: 'string', default: '2' }, read: { type: 'string', default: '1' },
    writing: { type: 'string', default: '2' }, batch: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' }, 'sample-ms': { type: 'string', default: '20' }, 'server-cli': { type: 'string' }, out: { type: 'string' },
    'keep-server-files': { type: 'boolean', default: false },
  },
});
const documents = Number(values.docs);
const batchSize = Number(values.batch);
const sampleMs = Number(values['sample-ms']);
const here = dirname(fileURLToPath(import.meta.url));
const cliPath = resolve(values['server-cli'] ?? join(here, '..', 'src', 'cli.js'));
/** The monotonic clock in µs (CPU profiles' sample times). */
const monoUs = () => Number(process.hrtime.bigint() / 1000n);
const load1 = () => Math.round(loadavg()[0] * 100) / 100;
const log = (line: string) => console.error(`[mixed-probe ${new Date().toISOString().slice(11, 19)}] ${line}`);

const dataset = createDataset({ kind: 'npm', documents, seed: 42, vocabularySize: 1, zipfExponent: 1 }) as NpmDataset;
const queries = buildRealQueries(dataset, { count: 200_000, limit: 20, mix: { word: 25, twoWords: 20, threeWords: 10, prefix: 20, typo: 15, rare: 10 } });
const directory = mkdtempSync(join(tmpdir(), 'skein-mixed-probe-'));
const pathsFile = join(directory, 'paths.txt');
writeFileSync(pathsFile, queries.map((query) => searchPath('npm', query.q, 20)).join('\n') + '\n');

const server = await startSkeinServer({ cliPath, keepFiles: values['keep-server-files'] });
if (values['keep-server-files']) log(`server files kept in ${dirname(server.logPath)}`);
const client = new SkeinHttpClient(server.baseUrl);
const phases: { name: string; startUs: number; endUs: number; figures: WindowFigures; load: number; threadCpuMs: Record<string, number> }[] = [];
/** CPU seconds (user + system) of each of the server's threads, by thread id (/proc: the CPU profiles count wall time, which a loaded machine inflates). */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  const tick = 100;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) / tick);
    }
  } catch {
    // gone
  }
  return out;
}
const samples: { atUs: number; ms: number }[] = [];
const writes: { batch: number; postedUs: number; acceptedUs: number; uid: number; enqueuedUs?: number; startedUs?: number; finishedUs?: number }[] = [];
try {
  const indexing = await loadDataset(client, dataset, { indexUid: 'npm', settings: { searchableAttributes: ['name', 'summary'], displayedAttributes: ['*'] }, batchSize: 10_000, format: 'json', taskTimeoutSeconds: 900, log });
  log(`indexed ${indexing.documents} in ${indexing.totalSeconds} s`);
  const readyAtMs = performance.now();
  const common = { baseUrl: server.baseUrl, pid: server.pid, pathsFile, pathCount: queries.length, concurrency: Number(values.connections), windowSeconds: Number(values.seconds), readyAtMs, log };
  let line = 0;
  const windowsOf = async (name: string, count: number) => {
    for (let k = 0; k < count; k++) {
      const startUs = monoUs();
      const before = threadCpu(server.pid);
      const run = await runWindows({ ...common, startLine: line, windows: 1, label: `${name} ${k + 1}` });
      line = run.nextLine;
      const after = threadCpu(server.pid);
      const threadCpuMs: Record<string, number> = {};
      for (const [tid, seconds] of after) threadCpuMs[tid] = Math.round((seconds - (before.get(tid) ?? 0)) * 1000);
      phases.push({ name, startUs, endUs: monoUs(), figures: run.windows[0]!, load: load1(), threadCpuMs });
    }
  };
  await windowsOf('warm', Number(values.warm));
  // The sampler: searches of its own (the list's far end), one at a time, every sampleMs.
  let sampling = true;
  const sampler = (async () => {
    for (let k = 0; sampling; k++) {
      const query = queries[queries.length - 1 - (k % 50_000)]!;
      const began = performance.now();
      const atUs = monoUs();
      try {
        await (await fetch(server.baseUrl + searchPath('npm', query.q, 20))).arrayBuffer();
      } catch {
        // counted as a long sample
      }
      samples.push({ atUs, ms: performance.now() - began });
      await new Promise((done) => setTimeout(done, sampleMs));
    }
  })();
  await windowsOf('read-only', Number(values.read));
  // Server task times are wall clock: mapped onto the monotonic clock with this process's offset.
  const wallToMonoUs = (iso: string | null | undefined) => (iso ? Date.parse(iso) * 1000 - (Date.now() * 1000 - monoUs()) : undefined);
  let writing = true;
  const writer = (async () => {
    for (let batch = 0; writing; batch++) {
      const tick = performance.now();
      const postedUs = monoUs();
      const body = JSON.stringify(Array.from({ length: batchSize }, (_, j) => dataset.furtherDocument(batch * batchSize + j, documents + batch * batchSize + j)));
      try {
        const uid = await client.enqueue('POST', '/indexes/npm/documents', body);
        writes.push({ batch, postedUs, acceptedUs: monoUs(), uid });
      } catch (error) {
        log(`write ${batch} failed: ${(error as Error).message}`);
      }
      const wait = 1000 - (performance.now() - tick);
      if (wait > 0 && writing) await new Promise((done) => setTimeout(done, wait));
    }
  })();
  try {
    await windowsOf('writing', Number(values.writing));
  } finally {
    writing = false;
    await writer;
    sampling = false;
    await sampler;
  }
  for (const write of writes) {
    const task = await client.waitForTask(write.uid, 120_000, 25);
    write.enqueuedUs = wallToMonoUs(task.enqueuedAt);
    write.startedUs = wallToMonoUs(task.startedAt);
    write.finishedUs = wallToMonoUs(task.finishedAt);
  }
} finally {
  await server.stop();
  rmSync(directory, { recursive: true, force: true });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 10) / 10;
}
// The shard worker: the thread with the most CPU over the run (one worker on 2 cores); then the others by CPU.
const totals = new Map<string, number>();
for (const phase of phases) for (const [tid, ms] of Object.entries(phase.threadCpuMs)) totals.set(tid, (totals.get(tid) ?? 0) + ms);
const busiest = [...totals].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([tid]) => tid);
const summary = phases.map((phase) => {
  const inside = samples.filter((s) => s.atUs >= phase.startUs && s.atUs < phase.endUs).map((s) => s.ms).sort((a, b) => a - b);
  return { name: phase.name, reqPerS: phase.figures.queriesPerSecond, p50: phase.figures.p50Ms, p99: phase.figures.p99Ms, max: phase.figures.maxMs, load: phase.load,
    sampler: { n: inside.length, p50: percentile(inside, 0.5), p99: percentile(inside, 0.99), max: percentile(inside, 1) },
    /** CPU ms of the busiest threads (worker first), and the first's µs per request. */
    threadCpuMs: busiest.map((tid) => phase.threadCpuMs[tid] ?? 0),
    workerCpuUsPerRequest: Math.round(((phase.threadCpuMs[busiest[0]!] ?? 0) * 1000) / Math.max(1, phase.figures.requests)) };
});
const taskMs = writes.filter((w) => w.finishedUs !== undefined && w.enqueuedUs !== undefined).map((w) => (w.finishedUs! - w.enqueuedUs!) / 1000).sort((a, b) => a - b);
for (const row of summary) console.log(`${row.name.padEnd(10)} ${String(row.reqPerS).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  max ${row.max} ms  | sampler n=${row.sampler.n} p50 ${row.sampler.p50} p99 ${row.sampler.p99} max ${row.sampler.max}  | load ${row.load} | thread CPU ms ${row.threadCpuMs.join(' / ')}, worker ${row.workerCpuUsPerRequest} µs/req`);
console.log(`write tasks: ${writes.length}, enqueued->finished median ${percentile(taskMs, 0.5)} ms, max ${percentile(taskMs, 1)} ms`);
if (values.out) writeFileSync(values.out, JSON.stringify({ phases, summary, samples, writes }, null, 1));
