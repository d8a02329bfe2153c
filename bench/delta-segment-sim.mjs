// Would a delta segment help searches under writes? In process, on the npm workload: a base engine of
// 100k rows that never takes writes (its caches kept) searched together with a small engine holding only
// the rows written since (its caches dropped by each batch), against one engine taking the writes
// (today's design); the same queries on both sides, the order alternating batch by batch. Process CPU
// per search (the merge of the two answers not counted), and per written document.
//   node bench/delta-segment-sim.mjs [batches=12] [searchesPerBatch=1500] [batchSize=1000]   (after npm run build)
import { ShardEngine } from '../dist/src/shard/shard-engine.js';
import { loadedEngine } from '../dist/bench/switched-engines.js';
import { createNpmDataset } from '../dist/bench/npm-dataset.js';
import { buildRealQueries } from '../dist/bench/npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from '../dist/bench/workload.js';
const root = new URL('..', import.meta.url).pathname;
const [batches = 12, perBatch = 1500, batchSize = 1000] = process.argv.slice(2).map(Number);
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', `${root}/bench/workloads`)), { documents: 100000 });
const dataset = createNpmDataset(workload.dataset);
const queries = buildRealQueries(dataset, workload.queries);
const settings = workload.index.settings;
const A = loadedEngine(dataset, settings);
const C = loadedEngine(dataset, settings);
const R = new ShardEngine(0, 1);
R.loadIndex('npm', 1, settings, (function* () {})());
R.prepareForSearch();
const req = (q) => ({ indexUid: 'npm', shards: [0], q, hitsWanted: 20, matchingStrategy: 'last', options: {} });
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
let next = 0;
for (let k = 0; k < 20000; k++) { const q = queries[next++].q; A.search(req(q)); C.search(req(q)); }
// read-only reference on A
let t = cpu(); const ro0 = next; for (let k = 0; k < 5000; k++) A.search(req(queries[next++].q)); const readOnly = (cpu() - t) / 5000;
let usC = 0, usAR = 0, usR = 0, wC = 0, wR = 0, n = 0;
const firstId = dataset.spec.documents;
for (let b = 0; b < batches; b++) {
  const ops = Array.from({ length: batchSize }, (_, j) => { const docId = firstId + b * batchSize + j; return { kind: 'upsert', docId, document: JSON.stringify(dataset.furtherDocument(b * batchSize + j, docId)) }; });
  t = cpu(); C.writeBatch('npm', 0, ops, () => {}, { sliceMs: 0, fairShare: false }); wC += cpu() - t;
  t = cpu(); R.writeBatch('npm', 0, ops, () => {}, { sliceMs: 0, fairShare: false }); wR += cpu() - t;
  const qs = queries.slice(next, next + perBatch).map((q) => q.q); next += perBatch;
  const order = b % 2 === 0;
  const runC = () => { const a = cpu(); for (let i = 0; i < qs.length; i++) { if (i % 16 === 0) C.releaseRetired(performance.now() + 1); C.search(req(qs[i])); } usC += cpu() - a; };
  const runAR = () => { const a = cpu(); for (let i = 0; i < qs.length; i++) { if (i % 16 === 0) R.releaseRetired(performance.now() + 1); A.search(req(qs[i])); const r0 = cpu(); R.search(req(qs[i])); usR += cpu() - r0; } usAR += cpu() - a; };
  if (order) { runC(); runAR(); } else { runAR(); runC(); }
  n += qs.length;
}
console.log(JSON.stringify({ batches, perBatch, readOnlyUs: readOnly.toFixed(0), todayUsPerSearch: (usC / n).toFixed(0), baseAndRecentUsPerSearch: (usAR / n).toFixed(0), ofWhichRecentUs: (usR / n).toFixed(0), writeUsPerDocToday: (wC / (batches * batchSize)).toFixed(0), writeUsPerDocRecent: (wR / (batches * batchSize)).toFixed(0), recentDocs: batches * batchSize }));
