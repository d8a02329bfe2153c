// `npm run killloop -- --kills 200 [--seed N] [--minutes M] [--workers W] [--shards S]`: the long kill -9 loop.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { makeTempDir } from '../http/harness.js';
import { runKillLoop } from './kill-loop.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '200' },
    seed: { type: 'string' },
    minutes: { type: 'string', default: '120' },
    workers: { type: 'string', default: '1' },
    shards: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
  },
});
const seed = values.seed === undefined ? (Date.now() % 1_000_000) : Number(values.seed);
const dbPath = makeTempDir('skein-killloop-');
process.stdout.write(`kill loop: seed ${seed}, up to ${values.kills} kills or ${values.minutes} minutes, db ${dbPath}\n`);
const report = await runKillLoop({
  seed,
  kills: Number(values.kills),
  maxMs: Number(values.minutes) * 60_000,
  workers: Number(values.workers),
  shardsPerIndex: Number(values.shards),
  dbPath,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`\nseed ${seed}: survived ${report.failures.length === 0 ? report.kills : report.kills - 1} of ${report.kills} kills in ${(report.elapsedMs / 1000).toFixed(0)} s; ${report.writesAnswered} writes answered, ${report.tasksVerified} tasks verified against the model (${report.unfinishedAtRestart} unfinished at a restart, ${report.inFlightRecovered} whose 202 the kill lost), ${report.searches} searches; ${report.failures.length} failures\n`);
for (const failure of report.failures) process.stdout.write(`FAILURE ${failure}\n`);
if (report.failures.length > 0 && values.keep) process.stdout.write(`db kept at ${dbPath}\n`);
else rmSync(dbPath, { recursive: true, force: true });
process.exit(report.failures.length === 0 ? 0 : 1);
