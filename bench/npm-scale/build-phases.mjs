// Engine-level phases of a bulk load into one shard (what the shard worker does for `post-all.mjs`):
// write batches of BATCH documents as the scheduler sends them (yield points on, no searches), an
// optional pre-commit build after the first batch (EARLY=1: the queue emptied once, as in the HTTP
// runs), then the final pre-commit build timed per derived structure. Run with --cpu-prof for the
// split inside each phase (bench/npm-scale/top-profile.mjs).
//   node bench/npm-scale/build-phases.mjs FILE.ndjson [docs=all] [batch=50000]
import { readFileSync } from 'node:fs';
import { ShardEngine } from '../../dist/src/shard/shard-engine.js';
import { finishSteps } from '../../dist/src/shard/sliced-jobs.js';

const [file, docsArg, batchArg] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.length > 0);
const docs = Math.min(lines.length, Number(docsArg ?? lines.length));
const batch = Number(batchArg ?? 50_000);
const engine = new ShardEngine(0, 1);
engine.loadIndex('npm', 1, { searchableAttributes: ['name', 'summary'] }, []);
const shard = engine.shard('npm', 0);
const names = ['rank', 'position', 'nearPairs', 'soleWordFields', 'fieldStartPairs'];
const ms = (t0) => Math.round(performance.now() - t0);
/** Process CPU ms since `c0` (process.cpuUsage(): this thread and V8's helpers). */
const cpu = (c0) => { const c = process.cpuUsage(c0); return Math.round((c.user + c.system) / 1000); };
const buildTimes = () => shard.derived.map((structure, k) => {
  if (!structure.needsBuild) return `${names[k]} -`;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  finishSteps(structure.buildSteps());
  return `${names[k]} ${ms(t0)} ms (cpu ${cpu(c0)})`;
}).join(', ');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load before: ${load()}`);
let writeMs = 0;
const t0 = performance.now();
const c0 = process.cpuUsage();
for (let start = 0, n = 0; start < docs; start += batch, n++) {
  const ops = [];
  for (let k = start; k < Math.min(docs, start + batch); k++) ops.push({ kind: 'upsert', docId: k, document: lines[k] });
  const tw = performance.now();
  engine.writeBatch('npm', 0, ops, () => {});
  writeMs += performance.now() - tw;
  if (n === 0 && process.env.EARLY === '1') console.log(`early build at ${ops.length}: ${buildTimes()}`);
}
const written = ms(t0);
const writtenCpu = cpu(c0);
const tb = performance.now();
const cb = process.cpuUsage();
const builds = buildTimes();
const built = ms(tb);
const builtCpu = cpu(cb);
const memory = process.memoryUsage();
console.log(JSON.stringify({ docs, batch, writeMs: Math.round(writeMs), written, writtenCpu, finalBuildMs: built, finalBuildCpu: builtCpu, total: ms(t0),
  rssMiB: Math.round(memory.rss / 2 ** 20), derivedMiB: shard.memoryBytes().derived.map((b) => Math.round(b / 2 ** 20)) }));
console.log(`final build: ${builds}`);
console.log(`load after: ${load()}`);
