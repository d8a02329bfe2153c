import test from 'ava';
import { compareWithPeers, ratio } from '../../bench/peer-comparison.js';
import { buildChartPanels, isTextWorkload, latencyBySize } from '../../bench/report-chart.js';
import type { RunReport } from '../../bench/report.js';
import type { WorkloadResult } from '../../bench/run-workload.js';
import { resolveWorkload } from '../../bench/workload.js';

function search(queriesPerSecond: number, p99: number) {
  const latency = { count: 100, mean: p99 / 2, p50: p99 / 2, p90: p99, p99, max: p99 };
  return {
    runs: 1, perRun: [], requests: 100, durationSeconds: 5, queriesPerSecond, latencyMs: latency, latencyMsByKind: {}, non2xx: 0, non2xxByKind: {},
    statusCodes: {}, errors: 0, timeouts: 0, emptyHitsShareByKind: {}, malformedResponses: 0, errorSamples: [], clientCpuPercent: 5, serverCpuPercent: 180,
  };
}

function result(documents: number, skein: [number, number] | null, raw: Record<string, unknown> = {}): WorkloadResult {
  return {
    workload: resolveWorkload({ dataset: { documents }, ...raw }, `w${documents}`),
    startedAt: '',
    queryKindCounts: {},
    indexing: null,
    search: skein && search(...skein),
    server: { rssAfterLoadBytes: 1, rssAfterSearchBytes: 1, maxRssDuringSearchBytes: 1, peakRssBytes: 1, indexingCpuSeconds: 1, searchCpuPercent: 180 },
    peers: [],
    error: null,
  };
}

const peer = (name: 'minisearch' | 'ceiling', figures: [number, number] | null, error: string | null = null) => ({
  name,
  loading: { documents: 10, generationSeconds: 0.1, indexingSeconds: 2 },
  readySeconds: 3,
  search: figures && search(...figures),
  server: { rssAfterLoadBytes: 5, maxRssDuringSearchBytes: 6, peakRssBytes: 7, searchCpuPercent: 99 },
  error,
});

test('ratios are peer over Skein, null without a reference', (t) => {
  t.is(ratio(300, 100), 3);
  t.is(ratio(1, 3), 0.333);
  t.is(ratio(19.38, 3887), 0.00499, 'three significant digits, so tiny ratios are not 0');
  t.is(ratio(5, 0), null);
  t.is(ratio(null, 5), null);
  t.is(ratio(5, undefined), null);
});

test('the comparison lists Skein first, then each peer with its ratios; a failed peer stays listed', (t) => {
  const withPeers = { ...result(100_000, [200, 50]), peers: [peer('minisearch', [100, 150]), peer('ceiling', null, 'cannot listen')] };
  const rows = compareWithPeers(withPeers);
  t.deepEqual(rows.map((row) => row.engine), ['skein', 'minisearch', 'ceiling']);
  t.is(rows[0].queriesPerSecondRatio, 1);
  t.is(rows[1].queriesPerSecondRatio, 0.5);
  t.is(rows[1].p99Ratio, 3);
  t.is(rows[1].indexingSeconds, 2);
  t.is(rows[2].queriesPerSecond, null);
  t.is(rows[2].error, 'cannot listen');
});

test('an engine that answered nothing has no latency and no latency ratio', (t) => {
  const silent = peer('minisearch', [0, 0]);
  silent.search!.latencyMs.count = 0;
  const rows = compareWithPeers({ ...result(100_000, [200, 50]), peers: [silent] });
  t.is(rows[1].queriesPerSecond, 0);
  t.is(rows[1].queriesPerSecondRatio, 0);
  t.is(rows[1].p99, null);
  t.is(rows[1].p99Ratio, null);
});

test('latency by size keeps plain text workloads, newest figure per size', (t) => {
  const filtered = result(50_000, [10, 10], { queries: { mix: { filtered: 1 } } });
  t.false(isTextWorkload(filtered));
  t.false(isTextWorkload(result(50_000, [10, 10], { queries: { params: { filter: 'a = 1' } } })));
  t.true(isTextWorkload(result(50_000, [10, 10])));
  const sizes = latencyBySize([result(1_000_000, [10, 90]), result(10_000, [500, 5]), filtered, result(10_000, [400, 6]), result(20, null)]);
  t.deepEqual(sizes.map((size) => [size.documents, size.p99]), [[10_000, 6], [1_000_000, 90]]);
  const otherLoad = result(100_000, [50, 700], { concurrency: 8 });
  t.deepEqual(latencyBySize([otherLoad, result(10_000, [500, 5])]).map((size) => size.documents), [10_000], 'other concurrencies are left out');
});

test('chart panels: queries/s and p99 per workload, a size panel once two sizes exist', (t) => {
  const report: RunReport = {
    startedAt: '', finishedAt: '', host: { node: '', platform: '', cpus: 2, cpuModel: '', totalMemoryBytes: 1 }, git: { commit: null, dirty: null }, overrides: {},
    results: [{ ...result(100_000, [200, 50]), peers: [peer('ceiling', [1000, 5])] }],
  };
  const panels = buildChartPanels(report);
  t.deepEqual(panels.map((panel) => panel.kind), ['bars', 'bars']);
  t.deepEqual(panels[0].kind === 'bars' && panels[0].bars.map((bar) => [bar.label, bar.value]), [['skein', 200], ['ceiling', 1000]]);
  t.deepEqual(panels[1].kind === 'bars' && panels[1].bars.map((bar) => bar.value), [50, 5]);
  const withHistory = buildChartPanels(report, [result(10_000, [900, 8])]);
  t.is(withHistory.length, 3);
  t.is(withHistory[2].kind, 'lines');
});
