// Per-query service time of the real-text workload (bench/workloads/npm.json) on one ShardEngine, no
// threads and no HTTP: the same 100,000 documents and the same query list in the same order as the
// windows, each query timed alone. Prints the distribution per kind and the slowest queries, to tell
// a tail made by a few expensive queries from one made by queueing or pauses (issue 19, tail).
//   node [--trace-gc] dist/bench/npm-service-times.js [documents=100000] [queries=60000] [slowest=30] [--from N]
//     [--shards N]   (N shards in the one engine, each search over all of them; with --first-shard-only over shard 0
//     alone, as a worker not holding every shard: counts the searches answered by split counts, protocol/split-choice.ts)
import { performance, PerformanceObserver, constants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const args = process.argv.slice(2);
const fromAt = args.indexOf('--from');
const from = fromAt >= 0 ? Number(args.splice(fromAt, 2)[1]) : 0;
const shardsAt = args.indexOf('--shards');
const shardCount = shardsAt >= 0 ? Number(args.splice(shardsAt, 2)[1]) : 1;
const firstOnlyAt = args.indexOf('--first-shard-only');
const firstShardOnly = firstOnlyAt >= 0 && args.splice(firstOnlyAt, 1).length > 0;
const searchedShards = firstShardOnly ? [0] : Array.from({ length: shardCount }, (_, shard) => shard);
const [documentsArg = '100000', queriesArg = '60000', slowestArg = '30'] = args;
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const queries = buildRealQueries(dataset, workload.queries as never).slice(from, from + Number(queriesArg));

function* documents(): Generator<[number, JsonDocument]> {
  for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq * shardCount + (seq % shardCount), dataset.documentAt(seq) as JsonDocument];
}
let start = performance.now();
const engine = new ShardEngine(0, 1);
engine.loadIndex('npm', shardCount, workload.index.settings, documents());
engine.prepareForSearch();
console.log(`indexed ${dataset.spec.documents} documents: ${((performance.now() - start) / 1000).toFixed(1)} s`);

// Garbage collections: their pauses, by kind, and which queries they fell in.
const gcs: { start: number; duration: number; kind: number }[] = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, duration: entry.duration, kind: (entry as unknown as { detail: { kind: number } }).detail.kind });
});
observer.observe({ entryTypes: ['gc'] });
const times = new Float64Array(queries.length);
let splitCounted = 0;
const cpu = new Float64Array(queries.length);
const began = new Float64Array(queries.length);
start = performance.now();
for (let i = 0; i < queries.length; i++) {
  const query = queries[i]!;
  const cpuBefore = process.cpuUsage();
  began[i] = performance.now();
  const answer = engine.search({ indexUid: 'npm', shards: searchedShards, q: query.q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
  if ((answer.extras as { splitCounts?: unknown } | null)?.splitCounts !== undefined) splitCounted++;
  times[i] = performance.now() - began[i]!;
  const used = process.cpuUsage(cpuBefore);
  cpu[i] = (used.user + used.system) / 1000;
}
const elapsed = performance.now() - start;
await new Promise((resolve) => setTimeout(resolve, 50));
observer.disconnect();
const gcKinds: Record<number, string> = { [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb' };
const gcByKind = new Map<string, number[]>();
for (const gc of gcs) {
  const kind = gcKinds[gc.kind] ?? String(gc.kind);
  gcByKind.set(kind, [...(gcByKind.get(kind) ?? []), gc.duration]);
}
for (const [kind, durations] of gcByKind) {
  durations.sort((a, b) => a - b);
  console.log(`gc ${kind}: ${durations.length}, total ${durations.reduce((a, b) => a + b, 0).toFixed(0)} ms, median ${durations[durations.length >> 1]!.toFixed(2)} ms, max ${durations[durations.length - 1]!.toFixed(1)} ms, >10 ms: ${durations.filter((d) => d > 10).length}`);
}
/** GC pause time inside query i's interval. */
const gcIn = (i: number): number => {
  let sum = 0;
  for (const gc of gcs) if (gc.start >= began[i]! && gc.start < began[i]! + times[i]!) sum += gc.duration;
  return sum;
};
if (shardCount > 1) console.log(`${shardCount} shards, searched ${JSON.stringify(searchedShards)}: ${splitCounted} searches answered by split counts (a second round on the front the first time)`);
console.log(`${queries.length} queries in ${(elapsed / 1000).toFixed(1)} s: ${(queries.length / (elapsed / 1000)).toFixed(0)} queries/s, mean ${(elapsed / queries.length * 1000).toFixed(0)} µs`);
const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const kinds = [...new Set(queries.map((query) => query.kind))];
for (const kind of [...kinds, 'all']) {
  const mine = Float64Array.from(times.filter((_t, i) => kind === 'all' || queries[i]!.kind === kind)).sort();
  const sum = mine.reduce((a, b) => a + b, 0);
  const over = (ms: number) => mine.filter((t) => t > ms).length;
  console.log(`${kind.padEnd(10)} ${String(mine.length).padStart(6)}  mean ${(sum / mine.length).toFixed(3)} ms  p50 ${percentile(mine, 0.5).toFixed(3)}  p90 ${percentile(mine, 0.9).toFixed(3)}  p99 ${percentile(mine, 0.99).toFixed(2)}  p99.9 ${percentile(mine, 0.999).toFixed(2)}  max ${mine[mine.length - 1]!.toFixed(1)}  >5ms ${over(5)}  >10ms ${over(10)}  >50ms ${over(50)}  time share ${(sum / elapsed * 100).toFixed(1)}%`);
}
const byCpu = Float64Array.from(cpu).sort();
const cpuTotal = byCpu.reduce((a, b) => a + b, 0);
const cpuTop = (share: number) => byCpu.slice(Math.floor(byCpu.length * (1 - share))).reduce((a, b) => a + b, 0) / cpuTotal * 100;
console.log(`cpu: the costliest 1% of queries take ${cpuTop(0.01).toFixed(0)}% of it, the costliest 0.1% ${cpuTop(0.001).toFixed(0)}%`);
console.log(`cpu per query: mean ${(cpuTotal / byCpu.length).toFixed(3)} p50 ${percentile(byCpu, 0.5).toFixed(3)} p90 ${percentile(byCpu, 0.9).toFixed(3)} p99 ${percentile(byCpu, 0.99).toFixed(2)} p99.9 ${percentile(byCpu, 0.999).toFixed(2)} max ${byCpu[byCpu.length - 1]!.toFixed(1)} ms; >10 ms: ${byCpu.filter((t) => t > 10).length}`);
// By CPU time: on a shared machine the wall time of a query includes the OS giving the core away.
const order = [...times.keys()].sort((a, b) => cpu[b]! - cpu[a]!).slice(0, Number(slowestArg));
for (const i of order) console.log(`${times[i]!.toFixed(2).padStart(8)} ms (cpu ${cpu[i]!.toFixed(1)}, gc ${gcIn(i).toFixed(1)})  #${from + i} ${queries[i]!.kind.padEnd(10)} ${JSON.stringify(queries[i]!.q)}`);
