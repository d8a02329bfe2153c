// An in-process A/B of one ShardIndex switch (a boolean field, e.g. nearPrefixFilter) on the real-text
// workload's unique queries (bench/workloads/npm.json): two ShardEngines on the same documents, the
// switch on in one and off in the other, answer the list in its order, each query on both (which one
// first alternates by blocks of `block` queries), so both sides answer the same queries in the same
// conditions (a shared machine's load swings between runs of a minute, not between queries); CPU per
// query by kind and side (process CPU: the collector's threads included), and the ratio.
//   node dist/bench/interleaved-ab.js FIELD [documents=100000] [warm=10000] [queries=40000] [block=20]
import { fileURLToPath } from 'node:url';
import type { ShardEngine } from '../src/shard/shard-engine.js';
import { loadedEngine, setSwitch } from './switched-engines.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries, realQueryKinds } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [field, documentsArg = '100000', warmArg = '10000', queriesArg = '40000', blockArg = '20'] = process.argv.slice(2);
if (field === undefined) throw new Error('usage: node dist/bench/interleaved-ab.js FIELD [documents] [warm] [queries] [block]');
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const queries = buildRealQueries(dataset, workload.queries as never).slice(0, Number(warmArg) + Number(queriesArg));
const engines = [true, false].map((on) => {
  const engine = loadedEngine(dataset, workload.index.settings);
  setSwitch(engine, field, on);
  return engine;
});
const search = (engine: ShardEngine, q: string) => engine.search({ indexUid: 'npm', shards: [0], q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
const warm = Number(warmArg);
for (const query of queries.slice(0, warm)) for (const engine of engines) search(engine, query.q);
const block = Number(blockArg);
const sums = new Map<string, { on: number; off: number; onCount: number; offCount: number }>();
/** [query][side]: µs CPU (for the means without the collector's long pauses, which fall on a few queries at random). */
const perQuery: { kind: string; cpu: [number, number] }[] = [];
for (let start = warm; start < queries.length; start++) {
  const query = queries[start]!;
  const order = Math.floor((start - warm) / block) % 2 === 0 ? [0, 1] : [1, 0];
  for (const side of order) {
    const before = process.cpuUsage();
    search(engines[side]!, query.q);
    const used = process.cpuUsage(before);
    if (side === order[0]) perQuery.push({ kind: query.kind, cpu: [0, 0] });
    perQuery[perQuery.length - 1]!.cpu[side] = used.user + used.system;
    for (const kind of [query.kind, 'all']) {
      const sum = sums.get(kind) ?? { on: 0, off: 0, onCount: 0, offCount: 0 };
      if (side === 0) {
        sum.on += used.user + used.system;
        sum.onCount++;
      } else {
        sum.off += used.user + used.system;
        sum.offCount++;
      }
      sums.set(kind, sum);
    }
  }
}
console.log(`${field}: ${queries.length - warm} queries after ${warm}, each on both engines (order alternating by ${block}); µs CPU per query, on / off`);
// Trimmed: without the queries whose CPU on either side is in the top 1% of their kind (a pause of the collector, tens of ms, falls on one query at random).
const trimmed = (kind: string): [number, number] => {
  const mine = perQuery.filter((query) => kind === 'all' || query.kind === kind);
  const cut = (side: number) => mine.map((query) => query.cpu[side]!).sort((a, b) => a - b)[Math.floor(mine.length * 0.99)]!;
  const cuts = [cut(0), cut(1)];
  const kept = mine.filter((query) => query.cpu[0]! <= cuts[0]! && query.cpu[1]! <= cuts[1]!);
  return [0, 1].map((side) => kept.reduce((sum, query) => sum + query.cpu[side]!, 0) / kept.length) as [number, number];
};
for (const kind of [...realQueryKinds, 'all']) {
  const sum = sums.get(kind);
  if (sum === undefined) continue;
  const on = sum.on / sum.onCount;
  const off = sum.off / sum.offCount;
  const [trimmedOn, trimmedOff] = trimmed(kind);
  console.log(`${kind.padEnd(10)} on ${on.toFixed(0).padStart(5)}  off ${off.toFixed(0).padStart(5)}  on/off ${(on / off).toFixed(3)}   trimmed 1%: on ${trimmedOn.toFixed(0).padStart(5)}  off ${trimmedOff.toFixed(0).padStart(5)}  on/off ${(trimmedOn / trimmedOff).toFixed(3)}  (${sum.onCount})`);
}
