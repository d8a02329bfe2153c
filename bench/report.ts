// The results of a bench invocation: one JSON file (everything) and one Markdown summary in
// bench/results/<timestamp>.*, plus a one-screen summary for the terminal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LatencySummary } from './latency-stats.js';
import type { WorkloadResult } from './run-workload.js';
import type { WorkloadOverrides } from './workload.js';

export interface RunReport {
  startedAt: string;
  finishedAt: string;
  host: { node: string; platform: string; cpus: number; cpuModel: string; totalMemoryBytes: number };
  git: { commit: string | null; dirty: boolean | null };
  overrides: WorkloadOverrides;
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
      lines.push(`search     ${search.queriesPerSecond} queries/s (${search.requests} requests, non-2xx ${search.non2xx}, errors ${search.errors}, timeouts ${search.timeouts})`);
      lines.push(latencyLine('  all', search.latencyMs));
      for (const [kind, latency] of Object.entries(search.latencyMsByKind)) {
        lines.push(latencyLine(`  ${kind}`, latency, search.emptyHitsShareByKind[kind]));
      }
      if (search.malformedResponses > 0) lines.push(`WARNING    ${search.malformedResponses} 2xx answers had no "hits"`);
      for (const sample of search.errorSamples) lines.push(`  non-2xx   ${sample.status} q=${JSON.stringify(sample.q)}: ${sample.body.slice(0, 120)}`);
      lines.push(`cpu        server ${server.searchCpuPercent ?? 'n/a'}% of a core, bench client ${search.clientCpuPercent}% (near 100% = client-bound)`);
    }
    lines.push(`memory     server RSS after load ${formatMiB(server.rssAfterLoadBytes)}, max during search ${formatMiB(server.maxRssDuringSearchBytes)}, peak ${formatMiB(server.peakRssBytes)}`);
    if (result.error) lines.push(`FAILED     ${result.error}`);
  }
  return lines.join('\n');
}

function latencyRow(kind: string, latency: LatencySummary, emptyShare?: number): string {
  return `| ${kind} | ${latency.count} | ${latency.p50} | ${latency.p90} | ${latency.p99} | ${latency.max} | ${emptyShare === undefined ? '' : percent(emptyShare)} |`;
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
        `${workload.concurrency} connections, ${workload.warmupSeconds} s warm-up + ${workload.durationSeconds} s measured.`,
      '',
    );
    if (result.error) lines.push(`**Failed:** ${result.error}`, '');
    lines.push('| figure | value |', '|---|---|');
    if (indexing) {
      lines.push(`| indexing (end to end) | ${indexing.documentsPerSecond} docs/s (${indexing.totalSeconds} s) |`);
      lines.push(`| server processing time | ${indexing.serverProcessingSeconds ?? 'n/a'} s |`);
      lines.push(`| server CPU while indexing | ${server.indexingCpuSeconds ?? 'n/a'} s |`);
    }
    if (search) {
      lines.push(`| queries/s | ${search.queriesPerSecond} |`);
      lines.push(`| non-2xx / errors / timeouts | ${search.non2xx} / ${search.errors} / ${search.timeouts} |`);
      if (search.malformedResponses > 0) lines.push(`| 2xx answers without "hits" | ${search.malformedResponses} |`);
      lines.push(`| server CPU while searching | ${server.searchCpuPercent ?? 'n/a'}% of a core |`);
      lines.push(`| bench client CPU | ${search.clientCpuPercent}% of a core |`);
    }
    lines.push(`| server RSS after load | ${formatMiB(server.rssAfterLoadBytes)} |`);
    lines.push(`| server RSS max during search | ${formatMiB(server.maxRssDuringSearchBytes)} |`);
    lines.push(`| server peak RSS (VmHWM) | ${formatMiB(server.peakRssBytes)} |`, '');
    if (search) {
      lines.push('| queries | count | p50 ms | p90 ms | p99 ms | max ms | no hits |', '|---|---|---|---|---|---|---|');
      lines.push(latencyRow('all', search.latencyMs));
      for (const [kind, latency] of Object.entries(search.latencyMsByKind)) {
        lines.push(latencyRow(kind, latency, search.emptyHitsShareByKind[kind]));
      }
      lines.push('');
    }
  }
  return lines.join('\n') + '\n';
}

/** File-name-safe UTC timestamp, sortable: 2025-01-31T12-00-00Z. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

export function writeReport(report: RunReport, directory: string): { jsonPath: string; markdownPath: string } {
  mkdirSync(directory, { recursive: true });
  const stem = join(directory, fileTimestamp(new Date(report.startedAt)));
  const jsonPath = `${stem}.json`;
  const markdownPath = `${stem}.md`;
  writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(markdownPath, renderMarkdown(report));
  return { jsonPath, markdownPath };
}
