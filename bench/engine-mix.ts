// A workload's query mix run straight against one ShardEngine, no threads and no HTTP: the cost of
// the engine alone per query kind, and the loop to profile (`node --cpu-prof dist/bench/engine-mix.js`).
//   node dist/bench/engine-mix.js [workload=synthetic] [documents=100000] [shards=1] [seconds=5] [warmupQueries=2000] [onlyKind]
// The engine holds `shards` shards of the index, as one shard worker does.
import { performance } from 'node:perf_hooks';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import { createDataset } from './dataset.js';
import { buildQueries } from './query-mix.js';
import { fileURLToPath } from 'node:url';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath(process.argv[2] ?? 'synthetic', workloadsDirectory)), { documents: Number(process.argv[3] ?? 100_000) });
const shardCount = Number(process.argv[4] ?? 1);
const seconds = Number(process.argv[5] ?? 5);
const dataset = createDataset(workload.dataset);

function* documents(): Generator<[number, JsonDocument]> {
  for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq * shardCount + (seq % shardCount), dataset.documentAt(seq) as JsonDocument];
}

let start = performance.now();
const engine = new ShardEngine(0, 1);
engine.loadIndex('bench', shardCount, workload.index.settings, documents());
console.log(`indexed ${dataset.spec.documents} documents in ${shardCount} shard(s): ${((performance.now() - start) / 1000).toFixed(1)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);

const onlyKind = process.argv[7];
const queries = buildQueries(dataset, workload.queries).filter((query) => !onlyKind || query.kind === onlyKind);
const shards = [...Array(shardCount).keys()];
const byKind = new Map<string, { count: number; ms: number; worst: number }>();
const runOne = (index: number): void => {
  const query = queries[index % queries.length]!;
  const body = JSON.parse(query.body) as Record<string, unknown>;
  const { q, limit, ...options } = body;
  const began = performance.now();
  engine.search({ indexUid: 'bench', shards, q: (q as string) || null, hitsWanted: (limit as number) ?? 20, matchingStrategy: 'last', options });
  const ms = performance.now() - began;
  const entry = byKind.get(query.kind) ?? { count: 0, ms: 0, worst: 0 };
  entry.count++;
  entry.ms += ms;
  entry.worst = Math.max(entry.worst, ms);
  byKind.set(query.kind, entry);
};
const warmup = Number(process.argv[6] ?? 2000);
for (let i = 0; i < warmup; i++) runOne(i);
byKind.clear();
start = performance.now();
let ran = 0;
while (performance.now() - start < seconds * 1000) runOne(warmup + ran++);
const elapsed = performance.now() - start;
console.log(`${ran} queries in ${(elapsed / 1000).toFixed(1)} s: ${(ran / (elapsed / 1000)).toFixed(0)} queries/s on one thread`);
for (const [kind, entry] of byKind) {
  console.log(`${kind.padEnd(10)} ${String(entry.count).padStart(6)} queries  mean ${(entry.ms / entry.count).toFixed(3).padStart(8)} ms  worst ${entry.worst.toFixed(1).padStart(7)} ms`);
}
