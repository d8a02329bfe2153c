// Skein against its peers on one workload: each engine's figures and their ratio to Skein's
// (queries/s ratio > 1 means the peer answers more; p99 ratio > 1 means the peer is slower at the tail).
import type { QueryLoadResult } from './load-generator.js';
import type { WorkloadResult } from './run-workload.js';

export interface ComparisonRow {
  engine: string;
  queriesPerSecond: number | null;
  /** engine queries/s ÷ Skein queries/s. */
  queriesPerSecondRatio: number | null;
  p50: number | null;
  p99: number | null;
  /** engine p99 ÷ Skein p99. */
  p99Ratio: number | null;
  non2xx: number | null;
  serverCpuPercent: number | null;
  rssAfterLoadBytes: number | null;
  /** Skein: end-to-end indexing; peers: in-process indexing. */
  indexingSeconds: number | null;
  error: string | null;
}

/** value ÷ reference to 3 significant digits (a ceiling's p99 may be 0.005× Skein's). */
export function ratio(value: number | null | undefined, reference: number | null | undefined): number | null {
  if (value === null || value === undefined || reference === null || reference === undefined || reference === 0) return null;
  return Number((value / reference).toPrecision(3));
}

/** Latency figures only mean something when some searches were answered. */
function answeredLatency(search: QueryLoadResult | null | undefined, field: 'p50' | 'p99'): number | null {
  return search && search.latencyMs.count > 0 ? search.latencyMs[field] : null;
}

export function compareWithPeers(result: WorkloadResult): ComparisonRow[] {
  const skein = result.search;
  const rows: ComparisonRow[] = [
    {
      engine: 'skein',
      queriesPerSecond: skein?.queriesPerSecond ?? null,
      queriesPerSecondRatio: skein ? 1 : null,
      p50: answeredLatency(skein, 'p50'),
      p99: answeredLatency(skein, 'p99'),
      p99Ratio: answeredLatency(skein, 'p99') === null ? null : 1,
      non2xx: skein?.non2xx ?? null,
      serverCpuPercent: result.server.searchCpuPercent,
      rssAfterLoadBytes: result.server.rssAfterLoadBytes,
      indexingSeconds: result.indexing?.totalSeconds ?? null,
      error: result.error,
    },
  ];
  for (const peer of result.peers) {
    rows.push({
      engine: peer.name,
      queriesPerSecond: peer.search?.queriesPerSecond ?? null,
      queriesPerSecondRatio: ratio(peer.search?.queriesPerSecond, skein?.queriesPerSecond),
      p50: answeredLatency(peer.search, 'p50'),
      p99: answeredLatency(peer.search, 'p99'),
      p99Ratio: ratio(answeredLatency(peer.search, 'p99'), answeredLatency(skein, 'p99')),
      non2xx: peer.search?.non2xx ?? null,
      serverCpuPercent: peer.server.searchCpuPercent,
      rssAfterLoadBytes: peer.server.rssAfterLoadBytes,
      indexingSeconds: peer.loading?.indexingSeconds ?? null,
      error: peer.error,
    });
  }
  return rows;
}
