import test from 'ava';
import { runQueryLoad } from '../../bench/load-generator.js';
import type { BenchQuery } from '../../bench/query-mix.js';
import { startStandIn } from './bench-stand-in-server.js';

const query = (kind: BenchQuery['kind'], q: string): BenchQuery => ({ kind, q, body: JSON.stringify({ q, limit: 20 }) });
const queries = [query('word', 'alpha'), query('typo', 'btea'), query('prefix', 'gam'), query('multiWord', 'delta epsilon')];

test('rotates through the whole list across connections and measures latency per kind', async (t) => {
  const standIn = await startStandIn();
  try {
    let seconds = 0;
    let measureStarted = false;
    const result = await runQueryLoad({
      baseUrl: standIn.baseUrl, indexUid: 'bench', queries, concurrency: 4, durationSeconds: 1, warmupSeconds: 0,
      onMeasureStart: () => (measureStarted = true),
      onSecond: () => seconds++,
    });
    t.true(measureStarted);
    t.true(result.requests > 20);
    t.is(result.non2xx, 0);
    t.is(result.errors, 0);
    t.true(result.queriesPerSecond > 0);
    t.is(result.latencyMs.count, result.requests);
    t.is(result.non2xxLatencyMs, null);
    t.deepEqual(Object.keys(result.latencyMsByKind).sort(), ['multiWord', 'prefix', 'typo', 'word']);
    t.true(new Set(standIn.searchedQueries).size === 4);
    // The stand-in never finds anything.
    t.deepEqual(result.emptyHitsShareByKind, { multiWord: 1, prefix: 1, typo: 1, word: 1 });
    t.is(result.malformedResponses, 0);
    // A shared cursor: each query is sent about as often as the others.
    const counts = queries.map(({ q }) => standIn.searchedQueries.filter((sent) => sent === q).length);
    t.true(Math.max(...counts) - Math.min(...counts) <= 4, JSON.stringify(counts));
    t.true(seconds >= 0);
  } finally {
    await standIn.close();
  }
});

test('counts and samples non-2xx answers, keeping them out of the latency figures', async (t) => {
  const standIn = await startStandIn({ searchStatus: (q) => (q === 'btea' ? 500 : 200) });
  try {
    const result = await runQueryLoad({ baseUrl: standIn.baseUrl, indexUid: 'bench', queries, concurrency: 2, durationSeconds: 1, warmupSeconds: 1 });
    t.true(result.non2xx > 0);
    t.is(result.statusCodes['500'], result.non2xx);
    t.true(result.errorSamples.length > 0 && result.errorSamples.length <= 2, 'at most 2 samples per kind');
    t.is(result.errorSamples[0].q, 'btea');
    t.is(result.errorSamples[0].kind, 'typo');
    t.deepEqual(result.non2xxByKind, { typo: result.non2xx });
    t.regex(result.errorSamples[0].body, /failed on btea/);
    t.false('typo' in result.latencyMsByKind);
    t.is(result.latencyMs.count, result.requests - result.non2xx);
    // Their own latency figures: how fast a server refuses (503 past its queue bound).
    t.is(result.non2xxLatencyMs?.count, result.non2xx);
  } finally {
    await standIn.close();
  }
});

test('several runs: one warm-up, then each run measured; figures are medians, counts totals', async (t) => {
  const standIn = await startStandIn();
  try {
    const started: number[] = [];
    const phases: string[] = [];
    const result = await runQueryLoad({
      baseUrl: standIn.baseUrl, indexUid: 'bench', queries, concurrency: 2, durationSeconds: 1, warmupSeconds: 1, runs: 3,
      onMeasureStart: (run) => started.push(run),
      onMeasureEnd: (run) => 100 + run,
      onSecond: (phase) => phases.push(phase),
    });
    t.deepEqual(started, [0, 1, 2]);
    t.is(result.runs, 3);
    t.is(result.perRun.length, 3);
    t.deepEqual(result.perRun.map((run) => run.serverCpuPercent), [100, 101, 102]);
    t.is(result.serverCpuPercent, 101);
    const sorted = result.perRun.map((run) => run.queriesPerSecond).sort((a, b) => a - b);
    t.is(result.queriesPerSecond, sorted[1]);
    t.true(phases.every((phase) => phase === 'warmup' || phase === 'measure'));
  } finally {
    await standIn.close();
  }
});
