// The search phase of a workload against any server process (Skein or a peer): one warm-up, then
// `runs` measured runs of the same query list, with the server's CPU per run and its memory sampled
// every second from /proc. Each figure is the median over the runs.
import { runQueryLoad, type QueryLoadResult } from './load-generator.js';
import { readCpuSeconds, readMemory } from './process-stats.js';
import { startProgress } from './progress.js';
import type { BenchQuery } from './query-mix.js';
import type { Workload } from './workload.js';

export interface SearchPhaseResult {
  search: QueryLoadResult;
  maxRssDuringSearchBytes: number | null;
  rssAfterSearchBytes: number | null;
}

export async function runSearchPhase(
  workload: Workload,
  server: { baseUrl: string; pid: number },
  queries: readonly BenchQuery[],
  label: string,
): Promise<SearchPhaseResult> {
  let maxRss: number | null = null;
  const sampleMemory = () => {
    const rss = readMemory(server.pid)?.rssBytes;
    if (rss !== undefined) maxRss = Math.max(maxRss ?? 0, rss);
  };
  const totalSeconds = workload.warmupSeconds + workload.runs * workload.durationSeconds;
  const progress = startProgress(`${label} warm-up`, totalSeconds, 's');
  let elapsed = 0;
  let cpuBefore: number | null = null;
  let runStart = 0;
  try {
    const search = await runQueryLoad({
      baseUrl: server.baseUrl,
      indexUid: workload.index.uid,
      queries,
      concurrency: workload.concurrency,
      durationSeconds: workload.durationSeconds,
      warmupSeconds: workload.warmupSeconds,
      warmupPasses: workload.warmupPasses,
      warmupMaxSeconds: workload.warmupMaxSeconds,
      client: workload.client,
      runs: workload.runs,
      onMeasureStart: () => {
        cpuBefore = readCpuSeconds(server.pid);
        runStart = performance.now();
      },
      onMeasureEnd: () => {
        const cpuAfter = readCpuSeconds(server.pid);
        if (cpuAfter === null || cpuBefore === null) return null;
        return Math.round(((cpuAfter - cpuBefore) / ((performance.now() - runStart) / 1000)) * 100);
      },
      onSecond: (phase, run) => {
        if (phase === 'measure') sampleMemory();
        progress.update(++elapsed, phase === 'warmup' ? `${label} warm-up` : `${label} run ${run + 1}/${workload.runs}`);
      },
    });
    sampleMemory();
    return { search, maxRssDuringSearchBytes: maxRss, rssAfterSearchBytes: readMemory(server.pid)?.rssBytes ?? null };
  } finally {
    progress.stop();
  }
}
