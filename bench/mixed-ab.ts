// An in-process A/B of one ShardIndex switch in the mixed phase (bench/mixed-engine.ts's workload): two
// ShardEngines on the same npm documents, the switch on in one and off in the other; each write batch
// goes to both (which one first alternates batch by batch), with the same searches at its yield points
// and after it, so both sides search and write in the same conditions (a shared machine's load swings
// between runs of a minute). Process CPU per search under writes by side (the collector's threads included).
//   node dist/bench/mixed-ab.js FIELD [documents=100000] [queries=20000] [batch=1000] [queriesPerBatch=3000] [warm=20000]
import { fileURLToPath } from 'node:url';
import type { ShardEngine } from '../src/shard/shard-engine.js';
import { loadedEngine, setSwitch } from './switched-engines.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [field, documentsArg = '100000', queriesArg = '20000', batchArg = '1000', perBatchArg = '3000', warmArg = '20000'] = process.argv.slice(2);
if (field === undefined) throw new Error('usage: node dist/bench/mixed-ab.js FIELD [documents] [queries] [batch] [queriesPerBatch] [warm]');
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const queries = buildRealQueries(dataset, workload.queries as never);
const [count, batchSize, perBatch, warm] = [Number(queriesArg), Number(batchArg), Number(perBatchArg), Number(warmArg)];
const engines = [true, false].map((on) => {
  const engine = loadedEngine(dataset, workload.index.settings);
  setSwitch(engine, field, on);
  return engine;
});
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
/** Searches per query batch: before each, the worker frees what the caches let go of for up to 1 ms (worker.ts RELEASE_SLICE_MS). */
const BATCH = 16;
const search = (engine: ShardEngine, k: number) => {
  if (k % BATCH === 0) engine.releaseRetired(performance.now() + 1);
  engine.search({ indexUid: 'npm', shards: [0], q: queries[k % queries.length]!.q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
};
for (let k = 0; k < warm; k++) for (const engine of engines) search(engine, k);
// Searches run at every yield point (a group of 32 documents), spread over the batch.
const groups = Math.ceil(batchSize / 32);
const perYield = Math.max(1, Math.round(perBatch / groups));
const used = [0, 0];
const written = [0, 0];
let next = warm;
let batch = 0;
while (next < warm + count) {
  const ops = Array.from({ length: batchSize }, (_, j) => {
    const docId = dataset.spec.documents + batch * batchSize + j;
    return { kind: 'upsert' as const, docId, document: JSON.stringify(dataset.furtherDocument(batch * batchSize + j, docId)) };
  });
  const order = batch % 2 === 0 ? [0, 1] : [1, 0];
  let searched = 0;
  for (const side of order) {
    const engine = engines[side]!;
    let k = next;
    const end = Math.min(warm + count, next + perBatch);
    const before = cpuUs();
    let inSearches = 0;
    engine.writeBatch('npm', 0, ops, () => {
      const at = cpuUs();
      for (let n = 0; n < perYield && k < end; n++) search(engine, k++);
      inSearches += cpuUs() - at;
    }, { sliceMs: 0, fairShare: false });
    const at = cpuUs();
    while (k < end) search(engine, k++);
    inSearches += cpuUs() - at;
    used[side]! += inSearches;
    written[side]! += cpuUs() - before - inSearches;
    searched = k - next;
  }
  next += searched;
  batch++;
}
const searches = next - warm;
console.log(JSON.stringify({
  field, documents: dataset.spec.documents, searches, batches: batch, batchSize, queriesPerBatch: perBatch,
  onUsPerSearch: Math.round(used[0]! / searches), offUsPerSearch: Math.round(used[1]! / searches), ratio: Math.round((used[0]! / used[1]!) * 1000) / 1000,
  onWriteUsPerDocument: Math.round(written[0]! / (batch * batchSize)), offWriteUsPerDocument: Math.round(written[1]! / (batch * batchSize)),
}));
