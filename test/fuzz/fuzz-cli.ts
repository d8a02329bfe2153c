// `npm run fuzz -- --minutes 10 --seed N [--categories -deepJson,...|none|all (default: all)] [--concurrency 4]`:
// the long fuzz run against an in-process server; prints the request count and every failure.
import { parseArgs } from 'node:util';
import { startTestServer } from '../http/harness.js';
import { categoriesFromEnv, checkHealthAfter, DEFAULT_FUZZ_SEED, prepareFuzzIndexes, runFuzz, summarize } from './fuzz-runner.js';
import { KNOWN_FINDING_CATEGORIES } from './generators.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string', default: String(DEFAULT_FUZZ_SEED) },
    categories: { type: 'string', default: process.env.SKEIN_FUZZ_CATEGORIES ?? '' },
    concurrency: { type: 'string', default: '4' },
    timeout: { type: 'string', default: '15000' },
    requests: { type: 'string' },
  },
});
const seed = Number(values.seed);
const enabled = categoriesFromEnv(values.categories);
const off = Object.keys(KNOWN_FINDING_CATEGORIES).filter((category) => !enabled.has(category as never));
process.stdout.write(`fuzz: seed ${seed}, ${values.minutes} minutes, known-finding categories on: ${[...enabled].join(', ') || 'none'}; off: ${off.join(', ') || 'none'}\n`);
const server = await startTestServer({});
let failed = false;
try {
  const { context, probes } = await prepareFuzzIndexes(server.client, enabled);
  const report = await runFuzz(server.client.baseUrl, context, {
    seed,
    durationMs: Number(values.minutes) * 60_000,
    ...(values.requests === undefined ? {} : { maxRequests: Number(values.requests) }),
    concurrency: Number(values.concurrency),
    requestTimeoutMs: Number(values.timeout),
    enabled,
    log: (line) => process.stdout.write(`FAILURE ${line}\n`),
    progress: (so) => process.stdout.write(`... ${summarize(so)}\n`),
  });
  process.stdout.write(`stream done (${report.requests} requests); checking health\n`);
  const health = await checkHealthAfter(server.client, probes);
  process.stdout.write(`\n${summarize(report)}\n`);
  process.stdout.write(`kinds: ${Object.entries(report.byKind).sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind}:${count}`).join(' ')}\n`);
  for (const failure of report.failures.slice(0, 50)) {
    process.stdout.write(`\n#${failure.index} ${failure.problem}\n  ${failure.request}\n  -> ${failure.status ?? ''} ${failure.response ?? ''}\n`);
  }
  for (const problem of health) process.stdout.write(`UNHEALTHY ${problem}\n`);
  process.stdout.write(`requests ${report.requests}, failures ${report.failures.length}, health problems ${health.length}\n`);
  failed = report.failures.length > 0 || health.length > 0;
} finally {
  await server.close().catch((cause: Error) => {
    process.stdout.write(`close failed: ${cause.message}\n`);
    failed = true;
  });
}
process.exit(failed ? 1 : 0);
