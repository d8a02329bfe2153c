// An in-process A/B of one ShardIndex switch (a boolean field, e.g. nearPrefixFilter) on the real-text
// workload's unique queries (bench/workloads/npm.json): one ShardEngine answers the list in its order,
// in blocks of `block` queries alternately with the switch on and off, so both sides run in the same
// conditions (a shared machine's load swings between runs of a minute, not between blocks); CPU per
// query by kind and side (process CPU: the collector's threads included), and the ratio.
//   node dist/bench/interleaved-ab.js FIELD [documents=100000] [warm=10000] [queries=40000] [block=20]
import { fileURLToPath } from 'node:url';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import type { ShardIndex } from '../src/shard/shard-index.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries, realQueryKinds } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [field, documentsArg = '100000', warmArg = '10000', queriesArg = '40000', blockArg = '20'] = process.argv.slice(2);
if (field === undefined) throw new Error('usage: node dist/bench/interleaved-ab.js FIELD [documents] [warm] [queries] [block]');
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const queries = buildRealQueries(dataset, workload.queries as never).slice(0, Number(warmArg) + Number(queriesArg));
function* documents(): Generator<[number, JsonDocument]> {
  for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq, dataset.documentAt(seq) as JsonDocument];
}
const engine = new ShardEngine(0, 1);
engine.loadIndex('npm', 1, workload.index.settings, documents());
engine.prepareForSearch();
const shard = engine.loadedIndex('npm')!.shards.get(0)! as unknown as Record<string, unknown> & ShardIndex;
if (typeof shard[field] !== 'boolean') throw new Error(`ShardIndex.${field} is not a boolean switch`);
const search = (q: string) => engine.search({ indexUid: 'npm', shards: [0], q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
const warm = Number(warmArg);
for (const query of queries.slice(0, warm)) search(query.q);
const block = Number(blockArg);
const sums = new Map<string, { on: number; off: number; onCount: number; offCount: number }>();
for (let start = warm, side = 0; start < queries.length; start += block, side ^= 1) {
  shard[field] = side === 0;
  for (const query of queries.slice(start, start + block)) {
    const before = process.cpuUsage();
    search(query.q);
    const used = process.cpuUsage(before);
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
console.log(`${field}: ${queries.length - warm} queries after ${warm}, blocks of ${block}; µs CPU per query, on / off`);
for (const kind of [...realQueryKinds, 'all']) {
  const sum = sums.get(kind);
  if (sum === undefined) continue;
  const on = sum.on / sum.onCount;
  const off = sum.off / sum.offCount;
  console.log(`${kind.padEnd(10)} on ${on.toFixed(0).padStart(5)} (${sum.onCount})  off ${off.toFixed(0).padStart(5)} (${sum.offCount})  on/off ${(on / off).toFixed(3)}`);
}
