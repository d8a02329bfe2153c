// Seeded fuzz of the HTTP API (issue 18), bounded for `npm test`: ~25 s of random requests against a
// real server holding 1,800 real npm packages. Replay: SKEIN_FUZZ_SEED=<seed> (printed on failure);
// known-finding categories are all on; switch one off with SKEIN_FUZZ_CATEGORIES=-deepJson,... or none (see test/fuzz/generators.ts).
// The long version: `npm run fuzz -- --minutes 10 --seed N`.
import test from 'ava';
import { categoriesFromEnv, checkHealthAfter, DEFAULT_FUZZ_SEED, prepareFuzzIndexes, runFuzz, summarize } from '../fuzz/fuzz-runner.js';
import { withTestServer } from './harness.js';

const seed = process.env.SKEIN_FUZZ_SEED === undefined ? DEFAULT_FUZZ_SEED : Number(process.env.SKEIN_FUZZ_SEED);
const seconds = Number(process.env.SKEIN_FUZZ_SECONDS ?? 25);

test(`fuzz: random requests (seed ${seed}) get no 5xx, Meilisearch error bodies, answers in time, and leave the server healthy`, (t) =>
  withTestServer({}, async (server) => {
    t.timeout(seconds * 1000 + 90_000);
    const enabled = categoriesFromEnv(process.env.SKEIN_FUZZ_CATEGORIES);
    const { context, probes } = await prepareFuzzIndexes(server.client, enabled);
    const report = await runFuzz(server.client.baseUrl, context, { seed, durationMs: seconds * 1000, concurrency: 4, requestTimeoutMs: 15_000 });
    t.log(summarize(report));
    for (const failure of report.failures.slice(0, 10)) {
      t.log(`request #${failure.index} of seed ${seed}: ${failure.problem}\n  ${failure.request}\n  -> ${failure.response ?? ''}`);
    }
    const health = await checkHealthAfter(server.client, probes);
    t.true(report.requests > 50, `only ${report.requests} requests were sent`);
    t.deepEqual(report.failures.map((failure) => `#${failure.index}: ${failure.problem}`), [], `seed ${seed} (replay with SKEIN_FUZZ_SEED=${seed})`);
    t.deepEqual(health, [], `seed ${seed}: the server is not healthy after the fuzz`);
  }));
