// A "windows" workload end to end (the default `npm run bench`): real npm package metadata (npm-dataset.ts),
// a mostly-unique real-text query list (npm-queries.ts) sent as GET searches by wrk in consecutive 10 s
// windows from the moment the engine is ready (window-phase.ts), then the "repeated" variant (a small set
// cycled), then result quality from the engine's answers (quality.ts); for Skein also searches while
// documents arrive every second. Then each peer, one at a time, through the same phases.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataset } from './dataset.js';
import { loadDataset, type LoadResult } from './loader.js';
import type { NpmDataset } from './npm-dataset.js';
import { buildRealQueries, distinctShare, searchPath, type RealQuery } from './npm-queries.js';
import { readMemory } from './process-stats.js';
import { measureKindLatency, measureQuality, type KindLatencyFigures, type QualityFigures } from './quality.js';
import { peerScriptPath } from './run-peers.js';
import { startSkeinServer, type ServerHandle } from './server-process.js';
import { SkeinHttpClient } from './skein-http.js';
import { runMixed, runWindows, type MixedFigures, type WindowFigures } from './window-phase.js';
import type { Workload } from './workload.js';

export interface EngineWindowsResult {
  name: string;
  /** Skein: the bulk load's figures (first POST to last task succeeded); null for peers. */
  indexing: LoadResult | null;
  /** Peers: spawn to ready (reading the file, building documents, indexing in process). */
  readySeconds: number | null;
  /** Peers: in-process indexing seconds as they report them. */
  indexingSeconds: number | null;
  /** Skein: allocated bytes of its database directory after the load; sqlite: its database file(s). */
  dataBytes: number | null;
  windows: WindowFigures[];
  /** Median req/s and p99 of the last half of the windows. */
  steady: { queriesPerSecond: number; p50Ms: number; p99Ms: number } | null;
  repeated: WindowFigures[];
  /** Skein: windows of the next unique queries with a browser's Accept-Encoding (BROWSER_HEADERS: gzip answers). */
  compressed: WindowFigures[];
  /** Skein: windows of instant-meilisearch's requests (instantSearchWindows). */
  instantSearch: WindowFigures[];
  quality: QualityFigures | null;
  /** Cost by kind of query, one at a time, on queries the windows never sent. */
  latency: KindLatencyFigures | null;
  mixed: MixedFigures | null;
  rssAfterLoadBytes: number | null;
  peakRssBytes: number | null;
  /** Before the repeated window, the quality pass and (Skein) the mixed phase: seconds until one search answered. */
  drainSeconds: number[];
  /** 1-minute load average when the engine started and when it stopped. */
  loadAverage: [number, number];
  error: string | null;
}

export interface WindowsWorkloadResult {
  workload: Workload;
  startedAt: string;
  finishedAt: string;
  queries: { count: number; distinctShare: number; kindCounts: Record<string, number>; repeated: number };
  engines: EngineWindowsResult[];
  error: string | null;
}

function allocatedBytes(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.blocks * 512;
  return readdirSync(path).reduce((sum, name) => sum + allocatedBytes(join(path, name)), 0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)];
}

export function steadyState(windows: readonly WindowFigures[]): EngineWindowsResult['steady'] {
  if (windows.length === 0) return null;
  const last = windows.slice(Math.floor(windows.length / 2));
  return { queriesPerSecond: median(last.map((w) => w.queriesPerSecond)), p50Ms: median(last.map((w) => w.p50Ms)), p99Ms: median(last.map((w) => w.p99Ms)) };
}

const load1 = () => Math.round(loadavg()[0] * 100) / 100;

interface Files {
  uniquePaths: string;
  repeatedPaths: string;
  /** The unique queries as instant-meilisearch's multi-search bodies, one per line (instantSearchBody). */
  instantBodies: string;
  count: number;
  repeatedCount: number;
}

function emptyResult(name: string): EngineWindowsResult {
  return { name, indexing: null, readySeconds: null, indexingSeconds: null, dataBytes: null, windows: [], steady: null, repeated: [], compressed: [], instantSearch: [], quality: null, latency: null, mixed: null, drainSeconds: [], rssAfterLoadBytes: null, peakRssBytes: null, loadAverage: [load1(), 0], error: null };
}

/**
 * Waits (at most `maxSeconds`) until one search answers: the requests a window's connections left behind
 * (up to 64) are served first, so a slow engine does not start the next phase behind its own backlog.
 */
async function drain(baseUrl: string, path: string, maxSeconds: number): Promise<number> {
  const started = performance.now();
  try {
    await fetch(baseUrl + path, { signal: AbortSignal.timeout(maxSeconds * 1000) }).then((response) => response.arrayBuffer());
  } catch {
    // Still busy after maxSeconds: go on; the figures will show it.
  }
  return Math.round(performance.now() - started) / 1000;
}

/** The phases every engine goes through once it is ready: unique windows, repeated windows, quality, cost by kind. */
/** What a browser (Chrome's) sends with every search: Skein answers it gzip-compressed. */
export const BROWSER_HEADERS: readonly string[] = ['Accept-Encoding: gzip, deflate, br, zstd'];

/**
 * The request instant-meilisearch (InstantSearch's Meilisearch client) makes for a query typed in its search
 * box: a multi-search of one query asking every displayed attribute highlighted with its own tags, one hit
 * more than a page (hitsPerPage 20). Sent with a browser's headers by the instant-search window.
 */
export function instantSearchBody(indexUid: string, q: string, limit: number): string {
  return JSON.stringify({ queries: [{
    indexUid, q, facets: [], attributesToHighlight: ['*'], highlightPreTag: '__ais-highlight__', highlightPostTag: '__/ais-highlight__',
    limit: limit + 1, offset: 0,
  }] });
}
const INSTANT_SEARCH_HEADERS: readonly string[] = [...BROWSER_HEADERS, 'Content-Type: application/json'];

/**
 * The phases every engine goes through once it is ready: unique windows, (Skein: `compressedWindows`) the next
 * unique queries with a browser's Accept-Encoding, repeated windows, quality, cost by kind. The line of the
 * unique list the next phase may start at.
 */
async function searchPhases(workload: Workload, server: ServerHandle, files: Files, queries: readonly RealQuery[], windowCount: number, readyAtMs: number, result: EngineWindowsResult, log: (line: string) => void,
  compressedWindows = 0, instantSearchWindows = 0): Promise<number> {
  const common = { baseUrl: server.baseUrl, pid: server.pid, concurrency: workload.concurrency, windowSeconds: workload.windows.seconds, readyAtMs, log, label: result.name };
  const unique = await runWindows({ ...common, pathsFile: files.uniquePaths, pathCount: files.count, startLine: 0, windows: windowCount });
  result.windows = unique.windows;
  result.steady = steadyState(unique.windows);
  let nextLine = unique.nextLine;
  if (compressedWindows > 0) {
    const compressed = await runWindows({ ...common, pathsFile: files.uniquePaths, pathCount: files.count, startLine: nextLine, windows: compressedWindows, headers: BROWSER_HEADERS, label: `${result.name} compressed` });
    result.compressed = compressed.windows;
    nextLine = compressed.nextLine;
  }
  if (instantSearchWindows > 0) {
    const instant = await runWindows({ ...common, pathsFile: files.instantBodies, pathCount: files.count, startLine: nextLine, windows: instantSearchWindows, headers: INSTANT_SEARCH_HEADERS, postTo: '/multi-search', label: `${result.name} instant-search` });
    result.instantSearch = instant.windows;
    nextLine = instant.nextLine;
  }
  const drainPath = searchPath(workload.index.uid, queries[0]?.q ?? '', workload.queries.limit);
  if (workload.windows.repeatedWindows > 0) {
    result.drainSeconds.push(await drain(server.baseUrl, drainPath, 60));
    const repeated = await runWindows({ ...common, pathsFile: files.repeatedPaths, pathCount: files.repeatedCount, startLine: 0, windows: workload.windows.repeatedWindows, label: `${result.name} repeated` });
    result.repeated = repeated.windows;
  }
  const { count, concurrency, maxSeconds } = workload.windows.quality;
  if (count > 0) {
    result.drainSeconds.push(await drain(server.baseUrl, drainPath, 60));
    result.quality = await measureQuality(server.baseUrl, workload.index.uid, queries, { count, limit: workload.queries.limit, concurrency, maxSeconds });
    log(`${result.name} quality: ${Object.entries(result.quality.byKind).map(([kind, figures]) => `${kind} ${Math.round(figures!.share * 100)}%`).join(', ')} (${result.quality.queries} queries in ${result.quality.seconds} s)`);
  }
  const latency = workload.windows.latency;
  if (latency.count > 0) {
    result.drainSeconds.push(await drain(server.baseUrl, drainPath, 60));
    result.latency = await measureKindLatency(server.baseUrl, workload.index.uid, queries, { count: latency.count, limit: workload.queries.limit, maxSeconds: latency.maxSeconds });
    log(`${result.name} ms by kind, one at a time: ${Object.entries(result.latency.byKind).map(([kind, figures]) => `${kind} ${figures!.meanMs}`).join(', ')} (${result.latency.queries} queries in ${result.latency.seconds} s)`);
  }
  return nextLine;
}

async function runSkein(workload: Workload, dataset: NpmDataset, queries: readonly RealQuery[], files: Files, options: { cliPath: string; keepFiles: boolean; extraArgs: string[] }, log: (line: string) => void): Promise<EngineWindowsResult> {
  const result = emptyResult('skein');
  const server = await startSkeinServer({ cliPath: options.cliPath, keepFiles: options.keepFiles, extraArgs: options.extraArgs });
  log(`skein: pid ${server.pid} at ${server.baseUrl}`);
  const client = new SkeinHttpClient(server.baseUrl);
  try {
    result.indexing = await loadDataset(client, dataset, { indexUid: workload.index.uid, settings: workload.index.settings, ...workload.load, log });
    const readyAtMs = performance.now();
    log(`skein: indexed ${result.indexing.documents} documents in ${result.indexing.totalSeconds} s; windows start now, no warm-up`);
    result.rssAfterLoadBytes = readMemory(server.pid)?.rssBytes ?? null;
    result.dataBytes = allocatedBytes(join(server.directory, 'db'));
    const nextLine = await searchPhases(workload, server, files, queries, workload.windows.count, readyAtMs, result, log, workload.windows.compressedWindows, workload.windows.instantSearchWindows);
    const { windows, batchSize } = workload.windows.mixed;
    if (windows > 0) {
      result.drainSeconds.push(await drain(server.baseUrl, searchPath(workload.index.uid, queries[0]?.q ?? '', workload.queries.limit), 60));
      const firstId = dataset.spec.documents;
      result.mixed = await runMixed({
        baseUrl: server.baseUrl, pid: server.pid, concurrency: workload.concurrency, windowSeconds: workload.windows.seconds, readyAtMs, log, label: 'skein mixed',
        pathsFile: files.uniquePaths, pathCount: files.count, startLine: nextLine, windows,
        client, indexUid: workload.index.uid, batchSize, taskTimeoutSeconds: workload.load.taskTimeoutSeconds,
        makeBatch: (k) => JSON.stringify(Array.from({ length: batchSize }, (_, j) => dataset.furtherDocument(k * batchSize + j, firstId + k * batchSize + j))),
      });
      log(`skein mixed: read-only p99 ${result.mixed.readOnly.p99Ms} ms, under writes p99 ${result.mixed.windows.map((w) => w.p99Ms).join(' / ')} ms; ${result.mixed.writes.batches} batches, task median ${result.mixed.writes.taskMsMedian} ms`);
    }
  } catch (error) {
    result.error = `${(error as Error).message}\nlast server log lines:\n${server.logTail()}`;
  } finally {
    result.peakRssBytes = readMemory(server.pid)?.peakRssBytes ?? null;
    result.loadAverage[1] = load1();
    await server.stop();
  }
  return result;
}

async function runPeerEngine(workload: Workload, name: string, queries: readonly RealQuery[], files: Files, log: (line: string) => void): Promise<EngineWindowsResult> {
  const result = emptyResult(name);
  log(`peer ${name}: starting (it reads and indexes ${workload.dataset.documents} documents)`);
  let server: ServerHandle;
  try {
    server = await startSkeinServer({
      cliPath: peerScriptPath(name as never),
      startTimeoutSeconds: workload.load.taskTimeoutSeconds,
      healthPollMs: 25,
      extraArgs: ['--dataset', JSON.stringify(workload.dataset), '--settings', JSON.stringify(workload.index.settings)],
    });
  } catch (error) {
    result.error = (error as Error).message;
    return result;
  }
  try {
    const readyAtMs = server.healthyAtMs;
    result.readySeconds = Math.round(server.healthyAtMs - server.spawnedAtMs) / 1000;
    result.rssAfterLoadBytes = readMemory(server.pid)?.rssBytes ?? null;
    const { json } = await new SkeinHttpClient(server.baseUrl).request('GET', '/bench/peer');
    const figures = json as { indexingSeconds?: number; diskBytes?: number };
    result.indexingSeconds = figures.indexingSeconds ?? null;
    result.dataBytes = figures.diskBytes ?? null;
    log(`peer ${name}: ready in ${result.readySeconds} s (indexing ${result.indexingSeconds} s)`);
    await searchPhases(workload, server, files, queries, workload.windows.peerCount, readyAtMs, result, log);
  } catch (error) {
    result.error = `${(error as Error).message}\n${server.logTail()}`;
  } finally {
    result.peakRssBytes = readMemory(server.pid)?.peakRssBytes ?? null;
    result.loadAverage[1] = load1();
    await server.stop();
  }
  return result;
}

export async function runWindowsWorkload(workload: Workload, options: { cliPath: string; keepFiles: boolean; extraArgs: string[] }, log: (line: string) => void): Promise<WindowsWorkloadResult> {
  const startedAt = new Date().toISOString();
  const dataset = createDataset(workload.dataset) as NpmDataset;
  const queries = buildRealQueries(dataset, workload.queries);
  const kindCounts: Record<string, number> = {};
  for (const query of queries) kindCounts[query.kind] = (kindCounts[query.kind] ?? 0) + 1;
  const directory = mkdtempSync(join(tmpdir(), 'skein-bench-queries-'));
  const repeatedCount = Math.min(workload.windows.repeatedQueries, queries.length);
  const files: Files = { uniquePaths: join(directory, 'unique.txt'), repeatedPaths: join(directory, 'repeated.txt'), instantBodies: join(directory, 'instant.txt'), count: queries.length, repeatedCount };
  const toLines = (list: readonly RealQuery[]) => list.map((query) => searchPath(workload.index.uid, query.q, workload.queries.limit)).join('\n') + '\n';
  writeFileSync(files.uniquePaths, toLines(queries));
  writeFileSync(files.repeatedPaths, toLines(queries.slice(0, repeatedCount)));
  if (workload.windows.instantSearchWindows > 0) writeFileSync(files.instantBodies, queries.map((query) => instantSearchBody(workload.index.uid, query.q, workload.queries.limit)).join('\n') + '\n');
  const result: WindowsWorkloadResult = {
    workload,
    startedAt,
    finishedAt: '',
    queries: { count: queries.length, distinctShare: distinctShare(queries), kindCounts, repeated: repeatedCount },
    engines: [],
    error: null,
  };
  log(`workload ${workload.name}: ${dataset.spec.documents} npm packages, ${queries.length} queries (${Math.round(result.queries.distinctShare * 100)}% distinct), ${workload.concurrency} connections, ${workload.windows.count} x ${workload.windows.seconds} s windows (peers ${workload.windows.peerCount})`);
  try {
    result.engines.push(await runSkein(workload, dataset, queries, files, options, log));
    for (const peer of workload.peers) result.engines.push(await runPeerEngine(workload, peer, queries, files, log));
  } catch (error) {
    result.error = (error as Error).message;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  result.finishedAt = new Date().toISOString();
  return result;
}
