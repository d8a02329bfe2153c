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

test('a pass warm-up sends every query before measuring, and reports its own figures', async (t) => {
  const standIn = await startStandIn();
  try {
    const many = Array.from({ length: 400 }, (_, index) => query('word', `w${index}`));
    let measuredFrom = -1;
    const result = await runQueryLoad({
      baseUrl: standIn.baseUrl, indexUid: 'bench', queries: many, concurrency: 4, durationSeconds: 1, warmupSeconds: 0, warmupPasses: 1,
      onMeasureStart: () => (measuredFrom = standIn.searchedQueries.length),
    });
    // Every query of the list was answered before the first measured request.
    const warmedUp = new Set(standIn.searchedQueries.slice(0, measuredFrom));
    t.true(many.every(({ q }) => warmedUp.has(q)), `${warmedUp.size} of ${many.length} sent in the warm-up`);
    // autocannon stops at its next one-second tick: a fast engine gets a few more passes meanwhile.
    t.true((result.warmup!.passes ?? 0) >= 1);
    t.true(result.warmup!.requests >= many.length);
    t.true(result.warmup!.queriesPerSecond > 0);
    t.is(result.warmup!.latencyMs.count, result.warmup!.requests);
    // It stopped at the pass, long before its bound (60 s).
    t.true(result.warmup!.seconds < 5, String(result.warmup!.seconds));
  } finally {
    await standIn.close();
  }
});

test('passes after the first settle the engine unreported: the figures stay the first visits', async (t) => {
  // ~800 answers/s: one pass of 1,000 queries outlasts autocannon's first one-second tick.
  const standIn = await startStandIn({ searchDelayMs: 5 });
  try {
    const many = Array.from({ length: 1000 }, (_, index) => query('word', `w${index}`));
    let measuredFrom = -1;
    const result = await runQueryLoad({
      baseUrl: standIn.baseUrl, indexUid: 'bench', queries: many, concurrency: 4, durationSeconds: 1, warmupSeconds: 0, warmupPasses: 3,
      onMeasureStart: () => (measuredFrom = standIn.searchedQueries.length),
    });
    const warmup = result.warmup!;
    t.true((warmup.passes ?? 0) >= 3, `passes ${warmup.passes}`);
    t.true(measuredFrom >= 3 * many.length, `${measuredFrom} sent before measuring`);
    t.true(warmup.settleSeconds > 0, `settled ${warmup.settleSeconds} s`);
    // The figures are the first part's alone, not the settling passes'.
    t.true(warmup.requests < measuredFrom - many.length / 2, `${warmup.requests} reported of ${measuredFrom} sent`);
    t.is(warmup.latencyMs.count, warmup.requests);
  } finally {
    await standIn.close();
  }
});

test('a pass warm-up stops at its bound when the engine is too slow for a whole pass', async (t) => {
  const standIn = await startStandIn({ searchDelayMs: 50 });
  try {
    const many = Array.from({ length: 2000 }, (_, index) => query('word', `w${index}`));
    const result = await runQueryLoad({
      baseUrl: standIn.baseUrl, indexUid: 'bench', queries: many, concurrency: 2, durationSeconds: 1, warmupSeconds: 0, warmupPasses: 1, warmupMaxSeconds: 1,
    });
    t.is(result.warmup?.passes, 0);
    t.true(result.warmup!.seconds < 5, String(result.warmup!.seconds));
  } finally {
    await standIn.close();
  }
});

test('without passes the warm-up is time alone, and none at all with 0 seconds', async (t) => {
  const standIn = await startStandIn();
  try {
    const timed = await runQueryLoad({ baseUrl: standIn.baseUrl, indexUid: 'bench', queries, concurrency: 2, durationSeconds: 1, warmupSeconds: 1 });
    t.true(timed.warmup!.seconds >= 1 && timed.warmup!.seconds < 3, String(timed.warmup!.seconds));
    t.is(timed.warmup!.passes, null, 'a warm-up of seconds counts no passes');
    const none = await runQueryLoad({ baseUrl: standIn.baseUrl, indexUid: 'bench', queries, concurrency: 2, durationSeconds: 1, warmupSeconds: 0 });
    t.is(none.warmup, null);
  } finally {
    await standIn.close();
  }
});
