// kill -9 loop (issue 18), bounded for `npm test`: 5 SIGKILLs of the CLI under writes and searches,
// each followed by a restart on the same db-path and a check against the model of succeeded tasks
// (test/fuzz/kill-loop.ts says what is checked). Replay: SKEIN_KILLLOOP_SEED=<seed>. The long version:
// `npm run killloop -- --kills 200`.
import test from 'ava';
import { runKillLoop } from '../fuzz/kill-loop.js';
import { withTempDir } from './harness.js';

const seed = Number(process.env.SKEIN_KILLLOOP_SEED ?? 18);

test(`kill -9 loop (seed ${seed}): after each SIGKILL and restart, succeeded tasks hold exactly their documents, no batch is partial, uids are never reused`, (t) =>
  withTempDir(async (dbPath) => {
    t.timeout(150_000);
    const report = await runKillLoop({ seed, kills: 5, maxMs: 45_000, killAfterMs: [300, 1500], workers: 2, shardsPerIndex: 3, dbPath, log: (line) => t.log(line) });
    t.log(`seed ${seed}: ${report.kills} kills, ${report.writesAnswered} writes answered, ${report.tasksVerified} tasks verified, ${report.searches} searches in ${(report.elapsedMs / 1000).toFixed(1)} s`);
    t.deepEqual(report.failures, [], `seed ${seed} (replay with SKEIN_KILLLOOP_SEED=${seed})`);
    t.true(report.kills >= 2, `only ${report.kills} kills within the time bound`);
    t.true(report.tasksVerified > 0);
  }));
