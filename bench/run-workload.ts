// One workload end to end against a running server: generate, load, query, measure the server process.
import { createDataset } from './dataset.js';
import { loadDataset, type LoadResult } from './loader.js';
import type { QueryLoadResult } from './load-generator.js';
import type { PeerResult } from './run-peers.js';
import { readCpuSeconds, readMemory } from './process-stats.js';
import { buildQueries } from './query-mix.js';
import { startRssSampler } from './rss-sampler.js';
import type { RestartFigures } from './restart-phase.js';
import { runSearchPhase } from './search-phase.js';
import { SkeinHttpClient } from './skein-http.js';
import { warmupText, type Workload } from './workload.js';

export interface ServerUnderTest {
  baseUrl: string;
  pid: number;
}

export interface ServerFigures {
  rssAfterLoadBytes: number | null;
  /** Highest VmRSS sampled every 200 ms while loading (absent in older result files). */
  maxRssDuringLoadBytes?: number | null;
  /** VmHWM right after loading: the exact peak of start-up + indexing (absent in older result files). */
  peakRssAfterLoadBytes?: number | null;
  rssAfterSearchBytes: number | null;
  maxRssDuringSearchBytes: number | null;
  /** VmHWM at the end: the peak over the whole run, indexing included. */
  peakRssBytes: number | null;
  indexingCpuSeconds: number | null;
  /** Server CPU during the measured search run, in % of one core (200 = both cores of a 2-core box). */
  searchCpuPercent: number | null;
}

export interface WorkloadResult {
  workload: Workload;
  startedAt: string;
  queryKindCounts: Record<string, number>;
  indexing: LoadResult | null;
  search: QueryLoadResult | null;
  server: ServerFigures;
  /** The same queries against each peer engine, after Skein (filled in by run.ts). */
  peers: PeerResult[];
  /** Restart on the same database (filled in by run.ts); null when off or skipped, absent in older result files. */
  restart?: RestartFigures | null;
  error: string | null;
}

function difference(after: number | null, before: number | null): number | null {
  return after === null || before === null ? null : Math.round((after - before) * 100) / 100;
}

export async function runWorkload(workload: Workload, server: ServerUnderTest, log: (line: string) => void): Promise<WorkloadResult> {
  const startedAt = new Date().toISOString();
  const client = new SkeinHttpClient(server.baseUrl);
  const dataset = createDataset(workload.dataset);
  const queries = buildQueries(dataset, workload.queries);
  const queryKindCounts: Record<string, number> = {};
  for (const query of queries) queryKindCounts[query.kind] = (queryKindCounts[query.kind] ?? 0) + 1;

  const figures: ServerFigures = {
    rssAfterLoadBytes: null,
    maxRssDuringLoadBytes: null,
    peakRssAfterLoadBytes: null,
    rssAfterSearchBytes: null,
    maxRssDuringSearchBytes: null,
    peakRssBytes: null,
    indexingCpuSeconds: null,
    searchCpuPercent: null,
  };
  const result: WorkloadResult = { workload, startedAt, queryKindCounts, indexing: null, search: null, server: figures, peers: [], restart: null, error: null };

  try {
    const cpuBeforeLoad = readCpuSeconds(server.pid);
    const rssSampler = startRssSampler(server.pid);
    try {
      result.indexing = await loadDataset(client, dataset, { indexUid: workload.index.uid, settings: workload.index.settings, ...workload.load, log });
    } finally {
      const loadPeak = rssSampler.stop();
      figures.maxRssDuringLoadBytes = loadPeak.maxSampledRssBytes;
      figures.peakRssAfterLoadBytes = loadPeak.peakRssBytes;
    }
    figures.indexingCpuSeconds = difference(readCpuSeconds(server.pid), cpuBeforeLoad);
    figures.rssAfterLoadBytes = readMemory(server.pid)?.rssBytes ?? null;
    log(`indexed ${result.indexing.documents} documents in ${result.indexing.totalSeconds} s (${result.indexing.documentsPerSecond} docs/s)`);

    log(`querying: ${workload.concurrency} connections, ${warmupText(workload)}, then ${workload.runs} x ${workload.durationSeconds} s measured`);
    const phase = await runSearchPhase(workload, server, queries, 'skein');
    result.search = phase.search;
    figures.searchCpuPercent = phase.search.serverCpuPercent;
    figures.maxRssDuringSearchBytes = phase.maxRssDuringSearchBytes;
    log(`skein: ${phase.search.queriesPerSecond} queries/s, p99 ${phase.search.latencyMs.p99} ms (median of ${phase.search.runs})`);
  } catch (error) {
    result.error = (error as Error).message;
  } finally {
    const memory = readMemory(server.pid);
    figures.rssAfterSearchBytes = result.search ? (memory?.rssBytes ?? null) : null;
    figures.peakRssBytes = memory?.peakRssBytes ?? null;
  }
  return result;
}
