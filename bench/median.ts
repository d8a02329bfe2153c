// Several measured runs of one search phase collapse into one figure each: the median, which a single
// noisy run on a shared 2-core machine cannot drag far. Counts (requests, errors) are totals instead.
import type { LatencySummary } from './latency-stats.js';

/** Median of the values (mean of the middle two for an even count); NaN-free input expected, 0 if empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const value = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return Math.round(value * 100) / 100;
}

/** Field-wise median of latency summaries (count is the total). */
export function medianLatency(summaries: readonly LatencySummary[]): LatencySummary {
  const field = (name: keyof LatencySummary) => median(summaries.map((summary) => summary[name]));
  return {
    count: summaries.reduce((sum, summary) => sum + summary.count, 0),
    mean: field('mean'),
    p50: field('p50'),
    p90: field('p90'),
    p99: field('p99'),
    max: field('max'),
  };
}

/** Per key, the median over the records that have it. */
export function medianByKey<T>(records: readonly Record<string, T>[], combine: (values: T[]) => T): Record<string, T> {
  const keys = [...new Set(records.flatMap((record) => Object.keys(record)))].sort();
  return Object.fromEntries(keys.map((key) => [key, combine(records.filter((record) => key in record).map((record) => record[key]))]));
}

/** Per key, the sum over records. */
export function sumByKey(records: readonly Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const record of records) for (const [key, value] of Object.entries(record)) total[key] = (total[key] ?? 0) + value;
  return total;
}
