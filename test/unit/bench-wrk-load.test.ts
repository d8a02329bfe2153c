import test from 'ava';
import { runQueryLoad } from '../../bench/load-generator.js';
import type { BenchQuery } from '../../bench/query-mix.js';
import { parseWrkOutput, runWrk, wrkInstalled } from '../../bench/wrk-load.js';
import { startStandIn } from './bench-stand-in-server.js';

const query = (q: string): BenchQuery => ({ kind: 'word', q, body: JSON.stringify({ q, limit: 20 }) });

test('wrk figures: answered per second without the refused, microseconds to milliseconds, wrk CPU per second', (t) => {
  const stdout = 'Running 2s test\nWRK_RESULT {"requests":10000,"durationMicros":2000000,"connectErrors":0,"readErrors":1,"writeErrors":0,' +
    '"statusErrors":2000,"timeouts":3,"meanMicros":1234.5,"p50Micros":1000,"p90Micros":2500,"p99Micros":9876,"maxMicros":20000}\n';
  const figures = parseWrkOutput(stdout, 0.5);
  t.is(figures.queriesPerSecond, 4000);
  t.is(figures.non2xx, 2000);
  t.is(figures.errors, 4);
  t.is(figures.timeouts, 3);
  t.deepEqual(figures.latencyMs, { count: 10000, mean: 1.23, p50: 1, p90: 2.5, p99: 9.88, max: 20 });
  t.is(figures.clientCpuPercent, 25);
  t.throws(() => parseWrkOutput('wrk: connection refused', 0), { message: /no result/ });
});

const withWrk = wrkInstalled() ? test : test.skip;

withWrk('wrk posts every body of the list in turn and counts refusals', async (t) => {
  const standIn = await startStandIn({ searchStatus: (q) => (q === 'q3' ? 503 : 200) });
  try {
    const bodies = Array.from({ length: 8 }, (_, index) => query(`q${index}`).body);
    const figures = await runWrk({ baseUrl: standIn.baseUrl, indexUid: 'bench', bodies, concurrency: 4, durationSeconds: 1, threads: 2 });
    t.true(figures.requests > 50, String(figures.requests));
    t.deepEqual([...new Set(standIn.searchedQueries)].sort(), bodies.map((body) => JSON.parse(body).q as string).sort());
    // One body in eight is refused.
    t.true(Math.abs(figures.non2xx / figures.requests - 1 / 8) < 0.05, `${figures.non2xx} of ${figures.requests}`);
    t.true(figures.latencyMs.p50 > 0 && figures.latencyMs.p50 <= figures.latencyMs.p99);
  } finally {
    await standIn.close();
  }
});

withWrk('the measured runs go through wrk when asked, after autocannon\'s warm-up', async (t) => {
  const standIn = await startStandIn();
  try {
    const result = await runQueryLoad({
      baseUrl: standIn.baseUrl, indexUid: 'bench', queries: [query('alpha'), query('beta')], concurrency: 2, durationSeconds: 1, warmupSeconds: 1, runs: 2, client: 'wrk',
    });
    t.is(result.perRun.length, 2);
    t.true(result.queriesPerSecond > 0);
    t.deepEqual(result.latencyMsByKind, {});
    t.true(result.warmup!.latencyMs.count > 0);
  } finally {
    await standIn.close();
  }
});
