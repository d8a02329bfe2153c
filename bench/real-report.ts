// Output of the "windows" workloads (real-run.ts): `<UTC timestamp>-<workload>.json` (every figure) and
// `.md` (tables) in bench/results, and a one-screen summary for the terminal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realQueryKinds } from './npm-queries.js';
import type { EngineWindowsResult, WindowsWorkloadResult } from './real-run.js';

export interface WindowsReport {
  startedAt: string;
  finishedAt: string;
  host: Record<string, unknown>;
  git: { commit: string | null; dirty: boolean | null };
  results: WindowsWorkloadResult[];
}

const mb = (bytes: number | null) => (bytes === null ? 'n/a' : `${Math.round(bytes / 1e5) / 10} MB`);
const pct = (share: number | undefined) => (share === undefined ? '-' : `${Math.round(share * 100)}%`);
const fixed = (value: number | undefined | null) => (value === undefined || value === null ? 'n/a' : String(Math.round(value)));

function qualityCells(engine: EngineWindowsResult): string[] {
  return realQueryKinds.map((kind) => pct(engine.quality?.byKind[kind]?.share));
}

function ready(engine: EngineWindowsResult): string {
  if (engine.indexing) return `${engine.indexing.totalSeconds} s load`;
  return engine.readySeconds === null ? 'n/a' : `${engine.readySeconds} s (index ${engine.indexingSeconds ?? '?'} s)`;
}

function ratio(skein: number | undefined, peer: number | undefined): string {
  if (!skein || !peer) return 'n/a';
  return `${Math.round((skein / peer) * 100) / 100}x`;
}

/** Skein's windows with a browser's Accept-Encoding against its steady state (null without them). */
function compressedSummary(skein: EngineWindowsResult | undefined): string | null {
  if (!skein || skein.compressed.length === 0) return null;
  const cells = skein.compressed.map((window) => `${fixed(window.queriesPerSecond)} req/s (p50 ${window.p50Ms} / p99 ${window.p99Ms} ms, server CPU ${window.serverCpuPercent ?? '?'}%)`);
  const last = skein.compressed[skein.compressed.length - 1]!;
  const share = skein.steady?.queriesPerSecond ? ` (${Math.round((last.queriesPerSecond / skein.steady.queriesPerSecond) * 100)}% of the steady state)` : '';
  return `skein with a browser's Accept-Encoding (gzip answers; the next unique queries, after the windows): ${cells.join(', ')}${share}`;
}

/** Skein's windows of instant-meilisearch's requests against its steady state (null without them). */
function instantSearchSummary(skein: EngineWindowsResult | undefined): string | null {
  if (!skein || (skein.instantSearch ?? []).length === 0) return null;
  const cells = skein.instantSearch.map((window) => `${fixed(window.queriesPerSecond)} req/s (p50 ${window.p50Ms} / p99 ${window.p99Ms} ms, server CPU ${window.serverCpuPercent ?? '?'}%${window.non2xx + window.errors > 0 ? `, ${window.non2xx} non-2xx, ${window.errors} errors` : ''})`);
  const last = skein.instantSearch[skein.instantSearch.length - 1]!;
  const share = skein.steady?.queriesPerSecond ? ` (${Math.round((last.queriesPerSecond / skein.steady.queriesPerSecond) * 100)}% of the steady state)` : '';
  return `skein as instant-meilisearch asks (POST /multi-search, every attribute highlighted, gzip; the next unique queries): ${cells.join(', ')}${share}`;
}

export function renderWindowsMarkdown(report: WindowsReport): string {
  const lines: string[] = [`# Skein bench (real text) ${report.startedAt}`, '', `commit ${report.git.commit ?? '?'}${report.git.dirty ? ' (dirty)' : ''}; host ${JSON.stringify(report.host)}`, ''];
  for (const result of report.results) {
    const workload = result.workload;
    lines.push(`## ${workload.name}`, '', workload.description, '');
    lines.push(`${workload.dataset.documents} documents; ${result.queries.count} queries, ${Math.round(result.queries.distinctShare * 100)}% distinct (${Object.entries(result.queries.kindCounts).map(([kind, n]) => `${kind} ${n}`).join(', ')}); ` +
      `repeated variant: the first ${result.queries.repeated} cycled. GET search, limit ${workload.queries.limit}, wrk 1 thread, ${workload.concurrency} connections, ` +
      `${workload.windows.seconds} s windows from the moment the engine is ready (no warm-up).`, '');
    if (result.error) lines.push(`**error**: ${result.error}`, '');
    const skein = result.engines.find((engine) => engine.name === 'skein');
    lines.push('| engine | ready | data | window 1 req/s | w1 p50 / p99 ms | steady req/s | steady p50 / p99 ms | Skein ÷ engine (steady) | repeated req/s | repeated p99 | ' + realQueryKinds.join(' | ') + ' | load avg start/end |');
    lines.push('|' + ' --- |'.repeat(11 + realQueryKinds.length));
    for (const engine of result.engines) {
      const first = engine.windows[0];
      const repeated = engine.repeated[engine.repeated.length - 1];
      lines.push(`| ${engine.name} | ${ready(engine)} | ${mb(engine.dataBytes)} | ${fixed(first?.queriesPerSecond)} | ${first ? `${first.p50Ms} / ${first.p99Ms}` : 'n/a'} | ` +
        `${fixed(engine.steady?.queriesPerSecond)} | ${engine.steady?.queriesPerSecond ? `${engine.steady.p50Ms} / ${engine.steady.p99Ms}` : 'n/a (no answer)'} | ${engine === skein ? '' : ratio(skein?.steady?.queriesPerSecond, engine.steady?.queriesPerSecond)} | ` +
        `${fixed(repeated?.queriesPerSecond)} | ${repeated ? repeated.p99Ms : 'n/a'} | ${qualityCells(engine).join(' | ')} | ${engine.loadAverage[0]} / ${engine.loadAverage[1]} |`);
    }
    lines.push('', 'Quality: prefix, typo, rare = intended word in a top-20 hit; word, twoWords, threeWords = the top hit holds every word (the last one may be a prefix).', '');
    const compressedLine = compressedSummary(skein);
    if (compressedLine !== null) lines.push(compressedLine, '');
    const instantLine = instantSearchSummary(skein);
    if (instantLine !== null) lines.push(instantLine, '');
    if (result.engines.some((engine) => engine.latency)) {
      lines.push('### Cost by kind (ms per query, mean / p90: one client, one query at a time, the list\'s last queries, never sent before)', '');
      lines.push('| engine | ' + realQueryKinds.join(' | ') + ' | all (mean) | queries |');
      lines.push('|' + ' --- |'.repeat(realQueryKinds.length + 3));
      for (const engine of result.engines) {
        const latency = engine.latency;
        if (!latency) continue;
        const cells = realQueryKinds.map((kind) => {
          const figures = latency.byKind[kind];
          return figures ? `${figures.meanMs} / ${figures.p90Ms}` : '-';
        });
        const kinds = Object.values(latency.byKind);
        const all = kinds.reduce((sum, figures) => sum + figures!.meanMs * figures!.queries, 0) / Math.max(1, latency.queries);
        lines.push(`| ${engine.name} | ${cells.join(' | ')} | ${Math.round(all * 100) / 100} | ${latency.queries}${latency.failed > 0 ? ` (${latency.failed} failed)` : ''} |`);
      }
      lines.push('', 'The ceiling\'s row is the transport (client, HTTP, JSON of 20 hits); an engine\'s cost over it is its own. The throughput ratios above hold for this mix of kinds only: an engine cheap on single words and dear on multi-word queries compares better on a mix with fewer of them.', '');
    }
    lines.push('### Windows (req/s (p50 / p99 ms) server CPU %, load average)', '');
    const most = Math.max(0, ...result.engines.map((engine) => engine.windows.length));
    lines.push('| engine | ' + Array.from({ length: most }, (_, i) => `w${i + 1}`).join(' | ') + ' |');
    lines.push('|' + ' --- |'.repeat(most + 1));
    for (const engine of result.engines) {
      lines.push(`| ${engine.name} | ` + Array.from({ length: most }, (_, i) => {
        const window = engine.windows[i];
        return window ? `${fixed(window.queriesPerSecond)} (${window.p50Ms} / ${window.p99Ms}) ${window.serverCpuPercent ?? '?'}%, ${window.loadAverage}${window.non2xx + window.errors > 0 ? ` ${window.non2xx + window.errors} failed` : ''}` : '';
      }).join(' | ') + ' |');
    }
    if (skein?.mixed) {
      const mixed = skein.mixed;
      lines.push('', '### Searches while writing (Skein)', '');
      lines.push(`${mixed.writes.batchSize}-document batches of further npm rows POSTed every second: ${mixed.writes.batches} batches (${mixed.writes.documents} documents, ${mixed.writes.failed} failed); ` +
        `task enqueued→finished median ${mixed.writes.taskMsMedian} ms, max ${mixed.writes.taskMsMax} ms; last write to succeeded ${mixed.writes.drainSeconds} s.`, '');
      lines.push('| window | req/s | p50 ms | p99 ms | max ms |', '| --- | --- | --- | --- | --- |');
      lines.push(`| read-only | ${fixed(mixed.readOnly.queriesPerSecond)} | ${mixed.readOnly.p50Ms} | ${mixed.readOnly.p99Ms} | ${mixed.readOnly.maxMs} |`);
      for (const window of mixed.windows) lines.push(`| writing ${window.window} | ${fixed(window.queriesPerSecond)} | ${window.p50Ms} | ${window.p99Ms} | ${window.maxMs} |`);
    }
    for (const engine of result.engines) if (engine.error) lines.push('', `**${engine.name} error**: ${engine.error.split('\n').slice(0, 4).join(' ')}`);
    lines.push('');
  }
  return lines.join('\n');
}

export function renderWindowsSummary(report: WindowsReport): string {
  const lines: string[] = [];
  for (const result of report.results) {
    lines.push(`${result.workload.name}: ${result.workload.dataset.documents} docs, ${result.queries.count} queries (${Math.round(result.queries.distinctShare * 100)}% distinct), ${result.workload.concurrency} connections`);
    lines.push('engine        w1 req/s  w1 p99   steady req/s  p99     repeated  ' + realQueryKinds.map((kind) => kind.padEnd(10)).join(''));
    for (const engine of result.engines) {
      const first = engine.windows[0];
      const repeated = engine.repeated[engine.repeated.length - 1];
      lines.push(`${engine.name.padEnd(14)}${fixed(first?.queriesPerSecond).padStart(8)}  ${String(first?.p99Ms ?? 'n/a').padStart(6)}  ${fixed(engine.steady?.queriesPerSecond).padStart(12)}  ${String(engine.steady?.queriesPerSecond ? engine.steady.p99Ms : 'n/a').padStart(6)}  ${fixed(repeated?.queriesPerSecond).padStart(8)}  ` +
        qualityCells(engine).map((cell) => cell.padEnd(10)).join('') + (engine.error ? `  ERROR ${engine.error.split('\n')[0]}` : ''));
    }
    for (const engine of result.engines) {
      if (engine.latency) lines.push(`${engine.name} ms by kind, one at a time: ${realQueryKinds.map((kind) => `${kind} ${engine.latency!.byKind[kind]?.meanMs ?? '-'}`).join(', ')}`);
    }
    const compressedLine = compressedSummary(result.engines.find((engine) => engine.name === 'skein'));
    if (compressedLine !== null) lines.push(compressedLine);
    const instantLine = instantSearchSummary(result.engines.find((engine) => engine.name === 'skein'));
    if (instantLine !== null) lines.push(instantLine);
    const mixed = result.engines[0]?.mixed;
    if (mixed) lines.push(`skein under writes (${mixed.writes.batchSize} docs/s): p99 ${mixed.windows.map((w) => w.p99Ms).join(' / ')} ms vs read-only ${mixed.readOnly.p99Ms} ms`);
  }
  return lines.join('\n');
}

export function writeWindowsReport(report: WindowsReport, directory: string): { jsonPath: string; markdownPath: string } {
  mkdirSync(directory, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z');
  const base = join(directory, `${stamp}-${report.results.map((result) => result.workload.name).join('+')}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, renderWindowsMarkdown(report));
  return { jsonPath: `${base}.json`, markdownPath: `${base}.md` };
}
