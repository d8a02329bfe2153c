import test from 'ava';
import { LatencyRecorder, percentile, summarizeLatencies } from '../../bench/latency-stats.js';

test('nearest-rank percentiles', (t) => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
  t.is(percentile(sorted, 50), 50);
  t.is(percentile(sorted, 90), 90);
  t.is(percentile(sorted, 99), 99);
  t.is(percentile(sorted, 100), 100);
  t.is(percentile([7], 99), 7);
  t.is(percentile([], 50), 0);
});

test('summaries sort their input and report mean and max', (t) => {
  t.deepEqual(summarizeLatencies([3, 1, 2, 10]), { count: 4, mean: 4, p50: 2, p90: 10, p99: 10, max: 10 });
  t.is(summarizeLatencies([]).count, 0);
});

test('the recorder keeps an overall and a per-kind view', (t) => {
  const recorder = new LatencyRecorder();
  recorder.record('word', 1);
  recorder.record('typo', 9);
  recorder.record('word', 3);
  t.is(recorder.overall().count, 3);
  t.deepEqual(Object.keys(recorder.perKind()), ['typo', 'word']);
  t.is(recorder.perKind().word.max, 3);
});
