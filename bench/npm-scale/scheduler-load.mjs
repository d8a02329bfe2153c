// The scheduler's part of a bulk load alone, in process (built dist): NDJSON update files of TASK rows
// each (as the decoder writes them), enqueued at once into a fresh LMDB, then run to the end with shard
// workers that acknowledge every command at once. Timed (wall and process CPU) per variant, the
// variants alternating round by round on the same load. Variants: SchedulerOptions overrides.
//   node bench/npm-scale/scheduler-load.mjs FILE.ndjson [docs=all] [task=10000] [rounds=3] [variants=base,noIdFilter]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeStorage, openStorage } from '../../dist/src/storage/environment.js';
import { Scheduler } from '../../dist/src/scheduler/state-machine.js';

const [file, docsArg, taskArg, roundsArg, variantsArg] = process.argv.slice(2);
const VARIANTS = { base: {}, noIdFilter: { storedIdFilter: false } };
const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.length > 0);
const docs = Math.min(lines.length, Number(docsArg ?? lines.length));
const task = Number(taskArg ?? 10_000);
const variants = (variantsArg ?? 'base,noIdFilter').split(',');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const acking = { workerCount: 1, async send() {} };

async function once(variant) {
  const dir = mkdtempSync(join(tmpdir(), 'skein-scheduler-load-'));
  const storage = openStorage(dir);
  const scheduler = new Scheduler({ storage, shards: acking, shardsPerIndex: 1, onIndexesChanged: () => {}, log: () => {}, ...VARIANTS[variant] });
  scheduler.pause();
  await scheduler.start();
  scheduler.enqueue({ type: 'indexCreation', indexUid: 'npm', primaryKey: 'id' });
  for (let start = 0, k = 0; start < docs; start += task, k++) {
    const updateFile = `load-${k}.ndjson`;
    writeFileSync(join(storage.updateFilesDir, updateFile), lines.slice(start, Math.min(docs, start + task)).join('\n') + '\n');
    scheduler.enqueue({ type: 'documentAdditionOrUpdate', indexUid: 'npm', method: 'replace', updateFile, documentCount: Math.min(task, docs - start), primaryKey: null });
  }
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  scheduler.resume();
  await scheduler.whenIdle();
  const c = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  const failed = [...storage.tasks.getRange()].filter(({ value }) => value.status !== 'succeeded').length;
  await closeStorage(storage);
  rmSync(dir, { recursive: true, force: true });
  return { wall: Math.round(wall), cpu: Math.round((c.user + c.system) / 1000), failed };
}

console.log(`${docs} docs in tasks of ${task}; load ${load()}`);
const results = new Map(variants.map((v) => [v, []]));
for (let round = 0; round < Number(roundsArg ?? 3); round++) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
    const r = await once(variant);
    results.get(variant).push(r);
    console.log(`round ${round} ${variant}: wall ${r.wall} ms, cpu ${r.cpu} ms${r.failed ? `, ${r.failed} tasks not succeeded` : ''}; load ${load()}`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [variant, rs] of results) console.log(`${variant}: median wall ${median(rs.map((r) => r.wall))} ms, cpu ${median(rs.map((r) => r.cpu))} ms`);
