// The results of a bench invocation: one JSON file (everything) and one Markdown summary in
// bench/results/<timestamp>.*, plus a one-screen summary for the terminal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LatencySummary } from './latency-stats.js';
import type { WarmupFigures } from './load-generator.js';
import { compareWithPeers, type ComparisonRow } from './peer-comparison.js';
import { buildChartPanels } from './report-chart.js';
import type { RestartFigures } from './restart-phase.js';
import { renderChart } from './svg-chart.js';
import type { WorkloadResult } from './run-workload.js';
import { warmupText, type WorkloadOverrides } from './workload.js';

export interface RunReport {
  startedAt: string;
  finishedAt: string;
  host: { node: string; platform: string; cpus: number; cpuModel: string; totalMemoryBytes: number };
  git: { commit: string | null; dirty: boolean | null };
  /** The command line's overrides of the workloads, and Skein's --workers, --shards-per-index and --server-cli when given. */
  overrides: WorkloadOverrides & { workers?: number; shardsPerIndex?: number; serverCli?: string };
  results: WorkloadResult[];
}

export function formatMiB(bytes: number | null): string {
  return bytes === null ? 'n/a' : `${Math.round(bytes / 1048576)} MiB`;
}

function percent(share: number | undefined): string {
  return share === undefined ? 'n/a' : `${Math.round(share * 100)}%`;
}

function latencyLine(label: string, latency: LatencySummary, emptyShare?: number): string {
  const empty = emptyShare === undefined ? '' : `, ${percent(emptyShare)} empty`;
  return `${label.padEnd(11)} p50 ${latency.p50} | p90 ${latency.p90} | p99 ${latency.p99} | max ${latency.max} ms (n=${latency.count}${empty})`;
}

/** The unreported passes after the first, when there were any. */
function settled(warmup: WarmupFigures): string {
  return warmup.settleSeconds > 0 ? `; the rest in ${warmup.settleSeconds} s, unreported` : '';
}

function warmupLine(warmup: WarmupFigures): string {
  const span = warmup.passes === null ? `${warmup.seconds} s` : `${warmup.seconds} s, the first of ${warmup.passes} whole pass(es)${settled(warmup)}: first visits`;
  return `warm-up    ${warmup.queriesPerSecond} queries/s over ${span} p50 ${warmup.latencyMs.p50} | p99 ${warmup.latencyMs.p99} | max ${warmup.latencyMs.max} ms`;
}

function restartQueryText(restart: RestartFigures): string {
  const reference = restart.reference;
  return reference ? `${reference.kind} ${JSON.stringify(reference.q)}, ${reference.estimatedTotalHits} hits as before the stop` : 'no reference query';
}

function restartSummaryLine(restart: RestartFigures): string {
  if (restart.error) return `restart    FAILED (healthy after ${restart.healthySeconds ?? 'n/a'} s) ${restart.error.split('\n')[0]}`;
  return (
    `restart    spawn to /health 200 ${restart.healthySeconds} s, to first search ${restart.firstSearchSeconds} s (${restartQueryText(restart)}), ` +
    `RSS then ${formatMiB(restart.rssBytes)}; empty-database start ${restart.emptyStartHealthySeconds ?? 'n/a'} s`
  );
}

function restartRows(restart: RestartFigures): string[] {
  const rows = [
    `| restart: spawn to GET /health 200 | ${restart.healthySeconds ?? 'n/a'} s |`,
    `| restart: spawn to first search with the same hits | ${restart.firstSearchSeconds ?? 'n/a'} s (${restartQueryText(restart)}) |`,
    `| restart: server RSS at first search | ${formatMiB(restart.rssBytes)} |`,
    `| first start, empty database: spawn to GET /health 200 | ${restart.emptyStartHealthySeconds ?? 'n/a'} s |`,
  ];
  if (restart.error) rows.push(`| restart failed | ${restart.error.split('\n')[0].replace(/\|/g, '\\|')} |`);
  return rows;
}

export function renderSummary(report: RunReport): string {
  const lines: string[] = [];
  for (const result of report.results) {
    const { workload, indexing, search, server } = result;
    lines.push(`== ${workload.name}: ${workload.dataset.documents} ${workload.dataset.kind} docs, ${workload.concurrency} connections, ${workload.durationSeconds} s ==`);
    if (indexing) {
      lines.push(
        `indexing   ${indexing.documentsPerSecond} docs/s end to end (${indexing.documents} docs in ${indexing.totalSeconds} s; ` +
          `upload ${indexing.uploadSeconds} s, server ${indexing.serverProcessingSeconds ?? 'n/a'} s, server CPU ${server.indexingCpuSeconds ?? 'n/a'} s)`,
      );
      if (indexing.indexedDocuments !== null && indexing.indexedDocuments !== indexing.documents) {
        lines.push(`WARNING    stats report ${indexing.indexedDocuments} documents, ${indexing.documents} were sent`);
      }
    }
    if (search) {
      lines.push(`search     ${search.queriesPerSecond} queries/s, median of ${search.runs} run(s) (${search.requests} requests, non-2xx ${search.non2xx}, errors ${search.errors}, timeouts ${search.timeouts})`);
      const failingKinds = Object.entries(search.non2xxByKind ?? {});
      if (failingKinds.length > 0) lines.push(`non-2xx    by kind: ${failingKinds.map(([kind, count]) => `${kind} ${count}`).join(', ')}`);
      const refused = search.non2xxLatencyMs;
      if (refused) lines.push(`non-2xx    answered in p50 ${refused.p50} | p90 ${refused.p90} | p99 ${refused.p99} | max ${refused.max} ms (n=${refused.count})`);
      if (search.warmup) lines.push(warmupLine(search.warmup));
      lines.push(latencyLine('  all', search.latencyMs));
      for (const [kind, latency] of Object.entries(search.latencyMsByKind)) {
        lines.push(latencyLine(`  ${kind}`, latency, search.emptyHitsShareByKind[kind]));
      }
      if (search.malformedResponses > 0) lines.push(`WARNING    ${search.malformedResponses} 2xx answers had no "hits"`);
      for (const sample of search.errorSamples) lines.push(`  non-2xx   ${sample.status} q=${JSON.stringify(sample.q)}: ${sample.body.slice(0, 120)}`);
      lines.push(`cpu        server ${server.searchCpuPercent ?? 'n/a'}% of a core, ${workload.client} ${search.clientCpuPercent}% (near 100% = client-bound)`);
    }
    lines.push(`memory     server peak RSS while indexing ${formatMiB(server.peakRssAfterLoadBytes ?? null)} (max sampled ${formatMiB(server.maxRssDuringLoadBytes ?? null)}), ` +
      `RSS after load ${formatMiB(server.rssAfterLoadBytes)}, max during search ${formatMiB(server.maxRssDuringSearchBytes)}, peak ${formatMiB(server.peakRssBytes)}`);
    if (result.restart) lines.push(restartSummaryLine(result.restart));
    if (result.error) lines.push(`FAILED     ${result.error}`);
    if (result.peers.length > 0) {
      lines.push('peers      engine       queries/s  x skein   p99 ms  x skein');
      for (const row of compareWithPeers(result)) {
        lines.push(
          `           ${row.engine.padEnd(12)} ${String(row.queriesPerSecond ?? 'n/a').padStart(9)}  ${ratioText(row.queriesPerSecondRatio).padStart(7)}  ` +
            `${String(row.p99 ?? 'n/a').padStart(7)}  ${ratioText(row.p99Ratio).padStart(7)}${row.error ? `  FAILED ${row.error.split('\n')[0]}` : ''}`,
        );
      }
    }
  }
  return lines.join('\n');
}

function ratioText(value: number | null): string {
  return value === null ? 'n/a' : `${value}x`;
}

function comparisonTable(rows: ComparisonRow[]): string[] {
  const lines = [
    '| engine | queries/s | × Skein | p50 ms | p99 ms | p99 × Skein | non-2xx | server CPU | RSS after load | indexing s |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const cells = [
      row.engine,
      row.queriesPerSecond ?? 'n/a',
      ratioText(row.queriesPerSecondRatio),
      row.p50 ?? 'n/a',
      row.p99 ?? 'n/a',
      ratioText(row.p99Ratio),
      row.non2xx ?? 'n/a',
      row.serverCpuPercent === null ? 'n/a' : `${row.serverCpuPercent}%`,
      formatMiB(row.rssAfterLoadBytes),
      row.indexingSeconds ?? 'n/a',
    ];
    lines.push(`| ${cells.join(' | ')} |${row.error ? ` failed: ${row.error.split('\n')[0]}` : ''}`);
  }
  return lines;
}

function latencyRow(kind: string, latency: LatencySummary, emptyShare: number | undefined, non2xx: number): string {
  return `| ${kind} | ${latency.count} | ${latency.p50} | ${latency.p90} | ${latency.p99} | ${latency.max} | ${emptyShare === undefined ? '' : percent(emptyShare)} | ${non2xx} |`;
}

export function renderMarkdown(report: RunReport): string {
  const lines = [
    `# Skein bench ${report.startedAt}`,
    '',
    `commit ${report.git.commit ?? 'unknown'}${report.git.dirty ? ' (dirty)' : ''}; node ${report.host.node}; ${report.host.cpus} x ${report.host.cpuModel}; ${formatMiB(report.host.totalMemoryBytes)} RAM`,
    '',
  ];
  const overrides = Object.entries(report.overrides).filter(([, value]) => value !== undefined);
  if (overrides.length > 0) lines.push(`Command-line overrides: ${overrides.map(([name, value]) => `${name} ${value}`).join(', ')}.`, '');
  for (const result of report.results) {
    const { workload, indexing, search, server } = result;
    lines.push(`## ${workload.name}`, '');
    if (workload.description) lines.push(workload.description, '');
    lines.push(
      `${workload.dataset.documents} ${workload.dataset.kind} documents (seed ${workload.dataset.seed}), ` +
        `${workload.concurrency} connections, ${warmupText(workload)}, then ${workload.runs} × ${workload.durationSeconds} s measured with ${workload.client} (figures: medians of the runs).`,
      '',
    );
    if (result.error) lines.push(`**Failed:** ${result.error}`, '');
    lines.push('| figure | value |', '|---|---|');
    if (indexing) {
      lines.push(`| indexing (end to end) | ${indexing.documentsPerSecond} docs/s (${indexing.totalSeconds} s) |`);
      lines.push(`| server processing time | ${indexing.serverProcessingSeconds ?? 'n/a'} s |`);
      lines.push(`| server CPU while indexing | ${server.indexingCpuSeconds ?? 'n/a'} s |`);
      lines.push(`| client upload time (payloads ${indexing.streamed ? 'read from the cache file' : 'in memory'}) | ${indexing.uploadSeconds} s |`);
    }
    if (search) {
      lines.push(`| queries/s | ${search.queriesPerSecond} (runs: ${search.perRun.map((run) => run.queriesPerSecond).join(', ')}) |`);
      lines.push(`| non-2xx / errors / timeouts | ${search.non2xx} / ${search.errors} / ${search.timeouts} |`);
      if (search.warmup) {
        const { warmup } = search;
        const span = warmup.passes === null ? `${warmup.seconds} s` : `the first of ${warmup.passes} whole pass(es), ${warmup.seconds} s${settled(warmup)}: first visits`;
        // The max is the first searches right after the load (they wait for what the load left to build).
        lines.push(`| warm-up (${span}): queries/s, p50 / p99 / max ms | ${warmup.queriesPerSecond}, ${warmup.latencyMs.p50} / ${warmup.latencyMs.p99} / ${warmup.latencyMs.max} |`);
      }
      if (search.non2xxLatencyMs) {
        const refused = search.non2xxLatencyMs;
        lines.push(`| non-2xx answered in (p50 / p99 / max ms) | ${refused.p50} / ${refused.p99} / ${refused.max} |`);
      }
      if (search.malformedResponses > 0) lines.push(`| 2xx answers without "hits" | ${search.malformedResponses} |`);
      lines.push(`| server CPU while searching | ${server.searchCpuPercent ?? 'n/a'}% of a core |`);
      lines.push(`| bench client CPU | ${search.clientCpuPercent}% of a core |`);
    }
    lines.push(`| server peak RSS while indexing (VmHWM after load) | ${formatMiB(server.peakRssAfterLoadBytes ?? null)} |`);
    lines.push(`| server RSS max sampled while indexing (every 200 ms) | ${formatMiB(server.maxRssDuringLoadBytes ?? null)} |`);
    lines.push(`| server RSS after load | ${formatMiB(server.rssAfterLoadBytes)} |`);
    lines.push(`| server RSS max during search | ${formatMiB(server.maxRssDuringSearchBytes)} |`);
    lines.push(`| server peak RSS (VmHWM) | ${formatMiB(server.peakRssBytes)} |`);
    if (result.restart) lines.push(...restartRows(result.restart));
    lines.push('');
    if (search) {
      lines.push('| queries | count | p50 ms | p90 ms | p99 ms | max ms | no hits | non-2xx |', '|---|---|---|---|---|---|---|---|');
      lines.push(latencyRow('all', search.latencyMs, undefined, search.non2xx));
      const kinds = [...new Set([...Object.keys(search.latencyMsByKind), ...Object.keys(search.non2xxByKind ?? {})])].sort();
      for (const kind of kinds) {
        const latency = search.latencyMsByKind[kind] ?? { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
        lines.push(latencyRow(kind, latency, search.emptyHitsShareByKind[kind], search.non2xxByKind?.[kind] ?? 0));
      }
      lines.push('');
      if (search.errorSamples.length > 0) {
        lines.push('Non-2xx samples:', '');
        for (const sample of search.errorSamples) lines.push(`- ${sample.kind ?? '?'} ${sample.status} q=${JSON.stringify(sample.q)}: \`${sample.body.slice(0, 160).replace(/`/g, "'")}\``);
        lines.push('');
      }
    }
    if (result.peers.length > 0) {
      lines.push(
        '### Peers',
        '',
        'Same documents, same queries, same load; each peer behind the same minimal uWebSockets.js server (bench/peers). ' +
          'Peers read only `q` and `limit`: other search parameters of the workload are ignored by them.',
        '',
        ...comparisonTable(compareWithPeers(result)),
        '',
      );
    }
  }
  return lines.join('\n') + '\n';
}

/** File-name-safe UTC timestamp, sortable: 2025-01-31T12-00-00Z. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** Writes <stamp>.json, <stamp>.md and <stamp>.svg; earlier results feed the latency-by-size panel. */
export function writeReport(report: RunReport, directory: string, earlierResults: readonly WorkloadResult[] = []): { jsonPath: string; markdownPath: string; chartPath: string } {
  mkdirSync(directory, { recursive: true });
  const stem = join(directory, fileTimestamp(new Date(report.startedAt)));
  const jsonPath = `${stem}.json`;
  const markdownPath = `${stem}.md`;
  const chartPath = `${stem}.svg`;
  writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
  const chartName = chartPath.slice(chartPath.lastIndexOf('/') + 1);
  writeFileSync(markdownPath, renderMarkdown(report) + `\n![queries/s and p99 per engine](${chartName})\n`);
  writeFileSync(chartPath, renderChart(`Skein bench ${report.startedAt}`, buildChartPanels(report, earlierResults)));
  return { jsonPath, markdownPath, chartPath };
}
