import test from 'ava';
import { combineRuns, type QueryLoadResult } from '../../bench/load-generator.js';
import { median, medianByKey, medianLatency, sumByKey } from '../../bench/median.js';

test('median of odd and even counts, unsorted input, empty', (t) => {
  t.is(median([3, 1, 2]), 2);
  t.is(median([4, 1, 3, 2]), 2.5);
  t.is(median([10]), 10);
  t.is(median([]), 0);
  t.is(median([100, 1, 1000]), 100, 'one outlier run does not move it');
});

test('latency summaries combine field by field; counts add up', (t) => {
  const summary = (p99: number, count: number) => ({ count, mean: p99 / 2, p50: p99 / 4, p90: p99 / 2, p99, max: p99 * 2 });
  t.deepEqual(medianLatency([summary(10, 5), summary(30, 5), summary(20, 6)]), { count: 16, mean: 10, p50: 5, p90: 10, p99: 20, max: 40 });
});

test('per-key median and sum cover keys missing from some records', (t) => {
  t.deepEqual(medianByKey([{ a: 1, b: 5 }, { a: 3 }, { a: 2 }], median), { a: 2, b: 5 });
  t.deepEqual(sumByKey([{ '200': 5 }, { '200': 2, '400': 1 }]), { '200': 7, '400': 1 });
});

function run(queriesPerSecond: number, p99: number, non2xx = 0): QueryLoadResult {
  const latency = { count: 10, mean: p99 / 2, p50: p99 / 2, p90: p99, p99, max: p99 };
  return {
    runs: 1,
    perRun: [{ queriesPerSecond, p50: p99 / 2, p99, non2xx, clientCpuPercent: 10, serverCpuPercent: 150 }],
    requests: 10 + non2xx,
    durationSeconds: 5,
    queriesPerSecond,
    latencyMs: latency,
    latencyMsByKind: { word: latency },
    non2xx,
    non2xxByKind: non2xx ? { filtered: non2xx } : {},
    statusCodes: { '200': 10 },
    errors: 0,
    timeouts: 0,
    emptyHitsShareByKind: { word: 0.1 },
    malformedResponses: 0,
    errorSamples: [],
    clientCpuPercent: 10,
    serverCpuPercent: 150,
  };
}

test('runs combine into medians, with totals and every run kept', (t) => {
  const combined = combineRuns([run(100, 50), run(300, 10, 2), run(200, 30, 1)]);
  t.is(combined.runs, 3);
  t.is(combined.queriesPerSecond, 200);
  t.is(combined.latencyMs.p99, 30);
  t.is(combined.latencyMsByKind.word.p99, 30);
  t.is(combined.requests, 33);
  t.is(combined.non2xx, 3);
  t.deepEqual(combined.non2xxByKind, { filtered: 3 });
  t.deepEqual(combined.statusCodes, { '200': 30 });
  t.deepEqual(combined.perRun.map((figures) => figures.queriesPerSecond), [100, 300, 200]);
  t.is(combined.serverCpuPercent, 150);
  t.is(combineRuns([run(5, 5)]).queriesPerSecond, 5);
});
