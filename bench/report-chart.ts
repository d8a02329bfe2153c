// The panels of the report's SVG: per workload with peers, queries/s and p99 per engine; and, when
// the run (or earlier result files) hold the same text workload at several dataset sizes, Skein's
// latency against dataset size.
import { compareWithPeers } from './peer-comparison.js';
import type { RunReport } from './report.js';
import type { WorkloadResult } from './run-workload.js';
import type { Panel } from './svg-chart.js';

const structuredKinds = new Set(['phrase', 'filtered', 'faceted', 'sorted', 'geo']);

/** Plain full-text workloads (no filters, facets, sorts, extra params): comparable across sizes. */
export function isTextWorkload(result: WorkloadResult): boolean {
  const { queries } = result.workload;
  return Object.keys(queries.params).length === 0 && Object.entries(queries.mix).every(([kind, weight]) => !weight || !structuredKinds.has(kind));
}

/** The concurrency of the newest usable result: the one the size curve is drawn at. */
function sizeCurveConcurrency(results: readonly WorkloadResult[]): number | undefined {
  return results.filter((result) => result.search && result.search.requests > 0 && isTextWorkload(result)).at(-1)?.workload.concurrency;
}

/**
 * Skein p50/p99 per dataset size: the newest figure for each size wins. Latency under saturation
 * scales with the number of connections, so only results at the newest one's concurrency count.
 */
export function latencyBySize(results: readonly WorkloadResult[]): Array<{ documents: number; p50: number; p99: number }> {
  const usable = results.filter((result) => result.search && result.search.requests > 0 && isTextWorkload(result));
  const concurrency = sizeCurveConcurrency(usable);
  const bySize = new Map<number, { documents: number; p50: number; p99: number }>();
  for (const result of usable) {
    if (!result.search || result.workload.concurrency !== concurrency) continue;
    const documents = result.workload.dataset.documents;
    bySize.set(documents, { documents, p50: result.search.latencyMs.p50, p99: result.search.latencyMs.p99 });
  }
  return [...bySize.values()].sort((a, b) => a.documents - b.documents);
}

export function buildChartPanels(report: RunReport, earlierResults: readonly WorkloadResult[] = []): Panel[] {
  const panels: Panel[] = [];
  for (const result of report.results) {
    if (!result.search && result.peers.length === 0) continue;
    const rows = compareWithPeers(result).filter((row) => row.queriesPerSecond !== null);
    panels.push({ kind: 'bars', title: `${result.workload.name}: queries/s`, unit: 'higher is better', bars: rows.map((row) => ({ label: row.engine, value: row.queriesPerSecond ?? 0, highlight: row.engine === 'skein' })) });
    const answered = rows.filter((row) => row.p99 !== null);
    panels.push({ kind: 'bars', title: `${result.workload.name}: p99 latency`, unit: 'ms, lower is better; engines with no answer left out', bars: answered.map((row) => ({ label: row.engine, value: row.p99 ?? 0, highlight: row.engine === 'skein' })) });
  }
  const history = [...earlierResults, ...report.results];
  const sizes = latencyBySize(history);
  if (sizes.length >= 2) {
    panels.push({
      kind: 'lines',
      title: `Skein latency against dataset size (text workloads, ${sizeCurveConcurrency(history)} connections)`,
      xLabel: 'documents',
      yLabel: 'ms',
      logX: true,
      series: [
        { name: 'p50', points: sizes.map((size) => ({ x: size.documents, y: size.p50 })) },
        { name: 'p99', points: sizes.map((size) => ({ x: size.documents, y: size.p99 })) },
      ],
    });
  }
  return panels;
}
