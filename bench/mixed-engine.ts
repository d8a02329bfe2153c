// The mixed phase on one ShardEngine, no threads and no HTTP (a loaded machine makes the HTTP windows
// too noisy to compare): the npm workload's documents and query list; after a warm-up, a read-only run
// of queries, then the same number of the next queries while further npm rows are written in batches,
// with searches at every yield point of each write (as the worker answers the searches that arrived
// meanwhile). Process CPU time per search under writes against read-only, and per written document.
//   node dist/bench/mixed-engine.js [documents=100000] [queries=30000] [batch=1000] [queriesPerBatch=3000] [warm=30000] [docsPerSlice=32] [FIELD=on|off,...]
// The last argument sets ShardIndex switches (boolean fields, e.g. nearPrefixFilter=off) for an A/B.
// queriesPerBatch: searches per write batch (the bench's mixed windows answer ~1,000-3,000 searches per
// second while 1,000 rows arrive each second); spread over the batch's yield points (every 32 documents).
import { fileURLToPath } from 'node:url';
import { loadedEngine, setSwitch } from './switched-engines.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [documentsArg = '100000', queriesArg = '30000', batchArg = '1000', perBatchArg = '3000', warmArg = '30000', sliceArg = '32', switchesArg = ''] = process.argv.slice(2);
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const count = Number(queriesArg);
const warm = Number(warmArg);
const batchSize = Number(batchArg);
const perBatch = Number(perBatchArg);
const queries = buildRealQueries(dataset, workload.queries as never);

const engine = loadedEngine(dataset, workload.index.settings);
for (const [field, value] of switchesArg.split(',').filter(Boolean).map((setting) => setting.split('='))) {
  if (value !== 'on' && value !== 'off') throw new Error(`${field}=${value}: on or off`);
  setSwitch(engine, field!, value === 'on');
}
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
let next = 0;
/** Searches per query batch: before each, the worker frees what the caches let go of for up to 1 ms (worker.ts RELEASE_SLICE_MS). */
const BATCH = 16;
const search = () => {
  if (next % BATCH === 0) engine.releaseRetired(performance.now() + 1);
  const query = queries[next++ % queries.length]!;
  engine.search({ indexUid: 'npm', shards: [0], q: query.q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
};
for (let k = 0; k < warm; k++) search();
/** Phase starts on the monotonic clock in µs (CPU profiles' sample times), on stderr: cut a --cpu-prof profile by phase. */
const stamp = (phase: string) => console.error(JSON.stringify({ phase, monoUs: Number(process.hrtime.bigint() / 1000n) }));
stamp('read-only');
let before = cpuMs();
for (let k = 0; k < count; k++) search();
const readOnlyUs = ((cpuMs() - before) * 1000) / count;

// Mixed: write batches, `perBatch` searches spread over each batch's slices of `docsPerSlice` documents
// (the yield point comes every group of 32 documents; searches run at every docsPerSlice / 32-th).
const docsPerSlice = Math.max(32, Number(sliceArg));
const groupsPerSlice = Math.round(docsPerSlice / 32);
const groups = Math.ceil(batchSize / docsPerSlice);
const perYield = Math.max(1, Math.round(perBatch / groups));
let searchMs = 0;
let searched = 0;
let written = 0;
let batch = 0;
const firstId = dataset.spec.documents;
stamp('mixed');
const started = cpuMs();
while (searched < count) {
  const ops = Array.from({ length: batchSize }, (_, j) => {
    const docId = firstId + batch * batchSize + j;
    return { kind: 'upsert' as const, docId, document: JSON.stringify(dataset.furtherDocument(batch * batchSize + j, docId)) };
  });
  batch++;
  let yields = 0;
  engine.writeBatch('npm', 0, ops, () => {
    if (++yields % groupsPerSlice !== 0) return;
    const at = cpuMs();
    for (let k = 0; k < perYield && searched < count; k++, searched++) search();
    searchMs += cpuMs() - at;
  }, { sliceMs: 0, fairShare: false });
  written += batchSize;
  // The rest of the batch's share of searches, after it (as the worker answers them between batches).
  const at = cpuMs();
  for (let k = perYield * (groups - 1); k < perBatch && searched < count; k++, searched++) search();
  searchMs += cpuMs() - at;
}
const totalMs = cpuMs() - started;
stamp('end');
const mixedUs = (searchMs * 1000) / searched;
console.log(JSON.stringify({
  switches: switchesArg, documents: dataset.spec.documents, queries: count, batchSize, queriesPerBatch: perBatch, docsPerSlice, batches: batch,
  readOnlyUsPerSearch: Math.round(readOnlyUs), mixedUsPerSearch: Math.round(mixedUs), ratio: Math.round((mixedUs / readOnlyUs) * 100) / 100,
  writeUsPerDocument: Math.round(((totalMs - searchMs) * 1000) / written),
}));
