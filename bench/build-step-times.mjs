#!/usr/bin/env node
// Which step of a shard's deferred rebuild runs long (issue 19: the worker runs them in catch-up slices
// bounded at 8 ms, PRE_COMMIT_MAX_SLICE_MS, but a slice cannot end inside a step): 100k npm rows on one
// in-process ShardEngine (built dist), then write batches of 1,000 rows (as the mixed phase); after each
// batch that left structures to rebuild, their steps run one by one, timed, by structure.
//   node bench/build-step-times.mjs [batches=40]
import { fileURLToPath } from 'node:url';
import { ShardEngine } from '../dist/src/shard/shard-engine.js';
import { createNpmDataset } from '../dist/bench/npm-dataset.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from '../dist/bench/workload.js';
const workloadsDirectory = fileURLToPath(new URL('./workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: 100000 });
const dataset = createNpmDataset(workload.dataset);
const engine = new ShardEngine(0, 1);
engine.loadIndex('npm', 1, workload.index.settings, (function* () { for (let s = 0; s < 100000; s++) yield [s, dataset.documentAt(s)]; })());
engine.prepareForSearch();
const shard = [...engine.allShards()][0];
for (let batch = 0; batch < Number(process.argv[2] ?? 12); batch++) {
  const ops = Array.from({ length: 1000 }, (_, j) => ({ kind: 'upsert', docId: 100000 + batch * 1000 + j, document: JSON.stringify(dataset.furtherDocument(batch * 1000 + j, 100000 + batch * 1000 + j)) }));
  engine.writeBatch('npm', 0, ops, () => {});
  const stale = shard.derived.map((s, k) => s.needsBuild ? k : -1).filter((k) => k >= 0);
  if (stale.length === 0) continue;
  console.log(`batch ${batch}: stale structures ${stale.map((k) => shard.derived[k].constructor.name).join(', ')}`);
  for (const k of stale) {
    const structure = shard.derived[k];
    const steps = structure.buildSteps();
    const times = [];
    let t = performance.now();
    for (;;) { const r = steps.next(); const now = performance.now(); times.push(now - t); t = now; if (r.done) break; }
    times.sort((a, b) => b - a);
    console.log(`  ${structure.constructor.name}: ${times.length} steps, total ${times.reduce((a, b) => a + b, 0).toFixed(0)} ms, longest ${times.slice(0, 5).map((x) => x.toFixed(1)).join(' ')} ms`);
  }
}
