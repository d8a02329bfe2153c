// Exact latency percentiles (nearest rank over all samples), overall and per query kind. A run records
// at most a few hundred thousand samples, so sorting them is cheap and avoids histogram rounding.

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Nearest-rank percentile of sorted values: the smallest value with at least p% of samples at or below it. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export function summarizeLatencies(values: readonly number[]): LatencySummary {
  if (values.length === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  let total = 0;
  for (const value of sorted) total += value;
  return {
    count: sorted.length,
    mean: round(total / sorted.length),
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1]),
  };
}

export class LatencyRecorder {
  private readonly all: number[] = [];
  private readonly byKind = new Map<string, number[]>();

  record(kind: string, milliseconds: number): void {
    this.all.push(milliseconds);
    let samples = this.byKind.get(kind);
    if (!samples) this.byKind.set(kind, (samples = []));
    samples.push(milliseconds);
  }

  overall(): LatencySummary {
    return summarizeLatencies(this.all);
  }

  perKind(): Record<string, LatencySummary> {
    const result: Record<string, LatencySummary> = {};
    for (const [kind, samples] of [...this.byKind].sort(([a], [b]) => a.localeCompare(b))) {
      result[kind] = summarizeLatencies(samples);
    }
    return result;
  }
}
