// Consecutive measured windows of the real-text workloads: wrk (1 thread, the workload's connections)
// for `windowSeconds` each, walking the query file's GET paths; each window starts where the previous
// stopped, so no query repeats until the file is used up. The first window starts as soon as the engine
// is ready (Skein: its last document task seen succeeded), with no warm-up: windows 1..N show how fast
// an engine is from its first second, the last ones its steady state. Also the mixed phase: the same
// windows while a batch of further documents is written every second.
import { loadavg } from 'node:os';
import { readCpuSeconds, readMemory } from './process-stats.js';
import type { SkeinHttpClient } from './skein-http.js';
import { runWrkGetWindow } from './wrk-load.js';

export interface WindowFigures {
  /** 1-based. */
  window: number;
  /** Seconds from the engine being ready to the window's start. */
  startSeconds: number;
  requests: number;
  queriesPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  serverCpuPercent: number | null;
  clientCpuPercent: number;
  rssBytes: number | null;
  /** The machine's 1-minute load average at the window's end (other processes share the cores). */
  loadAverage: number;
}

export interface WindowRun {
  windows: WindowFigures[];
  /** The line of the paths file the next window would start at. */
  nextLine: number;
}

export interface WindowOptions {
  baseUrl: string;
  pid: number;
  pathsFile: string;
  pathCount: number;
  startLine: number;
  concurrency: number;
  windowSeconds: number;
  windows: number;
  /** performance.now() when the engine became ready. */
  readyAtMs: number;
  log?: (line: string) => void;
  label?: string;
  /** Request headers of every request ("Name: value"). */
  headers?: readonly string[];
  /** The file's lines are JSON bodies POSTed to this path (the instant-search window) instead of GET paths. */
  postTo?: string;
}

export async function runWindows(options: WindowOptions): Promise<WindowRun> {
  const windows: WindowFigures[] = [];
  let line = options.startLine;
  for (let k = 0; k < options.windows; k++) {
    const startedAt = performance.now();
    const cpuBefore = readCpuSeconds(options.pid);
    const figures = await runWrkGetWindow({ baseUrl: options.baseUrl, pathsFile: options.pathsFile, startLine: line, concurrency: options.concurrency, durationSeconds: options.windowSeconds, headers: options.headers, postTo: options.postTo });
    const cpuAfter = readCpuSeconds(options.pid);
    const elapsed = (performance.now() - startedAt) / 1000;
    line = (line + figures.requests) % options.pathCount;
    const window: WindowFigures = {
      window: k + 1,
      startSeconds: Math.round(startedAt - options.readyAtMs) / 1000,
      requests: figures.requests,
      queriesPerSecond: figures.queriesPerSecond,
      p50Ms: figures.latencyMs.p50,
      p90Ms: figures.latencyMs.p90,
      p99Ms: figures.latencyMs.p99,
      maxMs: figures.latencyMs.max,
      non2xx: figures.non2xx,
      errors: figures.errors,
      serverCpuPercent: cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) / elapsed) * 100),
      clientCpuPercent: figures.clientCpuPercent,
      rssBytes: readMemory(options.pid)?.rssBytes ?? null,
      loadAverage: Math.round(loadavg()[0] * 100) / 100,
    };
    windows.push(window);
    options.log?.(`${options.label ?? ''} window ${window.window}: ${window.queriesPerSecond} req/s, p50 ${window.p50Ms} ms, p99 ${window.p99Ms} ms${window.non2xx + window.errors > 0 ? `, ${window.non2xx} non-2xx, ${window.errors} errors` : ''}`);
  }
  return { windows, nextLine: line };
}

export interface MixedFigures {
  /** Windows of searches while writing. */
  windows: WindowFigures[];
  /** A read-only window just before, same connections, the next queries of the list. */
  readOnly: WindowFigures;
  writes: {
    batchSize: number;
    batches: number;
    documents: number;
    failed: number;
    /** Per write task, enqueuedAt to finishedAt (server clock), ms. */
    taskMsMedian: number | null;
    taskMsMax: number | null;
    /** Last write sent to its task seen succeeded, s. */
    drainSeconds: number | null;
  };
}

/**
 * One read-only window, then `windows` windows during which `batchSize` new documents are POSTed every
 * second (makeBatch(k) gives batch k's JSON body).
 */
export async function runMixed(options: WindowOptions & { client: SkeinHttpClient; indexUid: string; batchSize: number; makeBatch: (k: number) => string; taskTimeoutSeconds: number }): Promise<MixedFigures> {
  const readOnly = await runWindows({ ...options, windows: 1, label: `${options.label ?? ''} read-only` });
  const taskUids: number[] = [];
  let failed = 0;
  let writing = true;
  let batch = 0;
  const writer = (async () => {
    while (writing) {
      const tick = performance.now();
      try {
        taskUids.push(await options.client.enqueue('POST', `/indexes/${options.indexUid}/documents`, options.makeBatch(batch++)));
      } catch {
        failed++;
      }
      const wait = 1000 - (performance.now() - tick);
      if (wait > 0 && writing) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  let run: WindowRun;
  try {
    run = await runWindows({ ...options, startLine: readOnly.nextLine, label: `${options.label ?? ''} writing` });
  } finally {
    writing = false;
    await writer;
  }
  const sent = performance.now();
  const durations: number[] = [];
  for (const uid of taskUids) {
    try {
      const task = await options.client.waitForTask(uid, options.taskTimeoutSeconds * 1000, 25);
      if (task.enqueuedAt && task.finishedAt) durations.push(Date.parse(task.finishedAt) - Date.parse(task.enqueuedAt));
    } catch {
      failed++;
    }
  }
  durations.sort((a, b) => a - b);
  return {
    windows: run.windows,
    readOnly: readOnly.windows[0],
    writes: {
      batchSize: options.batchSize,
      batches: taskUids.length,
      documents: taskUids.length * options.batchSize,
      failed,
      taskMsMedian: durations.length ? durations[Math.floor(durations.length / 2)] : null,
      taskMsMax: durations.length ? durations[durations.length - 1] : null,
      drainSeconds: taskUids.length ? Math.round(performance.now() - sent) / 1000 : null,
    },
  };
}
