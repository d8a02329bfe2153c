// `npm run bench`: runs workloads, each against its own fresh Skein child process, and reports.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, usage, type BenchArgs } from './cli-args.js';
import { renderSummary, writeReport, type RunReport } from './report.js';
import { createDataset } from './dataset.js';
import { buildQueries } from './query-mix.js';
import { measureRestart, secondsBetween, takeRestartReference, type RestartReference } from './restart-phase.js';
import { runPeers } from './run-peers.js';
import { runWorkload, type WorkloadResult } from './run-workload.js';
import { startSkeinServer } from './server-process.js';
import { applyOverrides, listWorkloadFiles, loadWorkloadFile, workloadPath, type Workload } from './workload.js';
import { wrkInstalled } from './wrk-load.js';
import { runWindowsWorkload } from './real-run.js';
import { renderWindowsSummary, writeWindowsReport, type WindowsReport } from './real-report.js';

// This file runs as dist/bench/run.js; sources and workloads live at the repository root.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const workloadsDirectory = join(repoRoot, 'bench', 'workloads');
const defaultCliPath = join(repoRoot, 'dist', 'src', 'cli.js');

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

function gitInfo(): RunReport['git'] {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: repoRoot, encoding: 'utf8' }).trim().length > 0;
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Workload results of earlier runs in the results directory (oldest first), for the latency-by-size chart. */
function readEarlierResults(directory: string): WorkloadResult[] {
  if (!existsSync(directory)) return [];
  const results: WorkloadResult[] = [];
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.json')).sort()) {
    try {
      const report = JSON.parse(readFileSync(join(directory, file), 'utf8')) as RunReport;
      if (report.overrides?.documents !== undefined) continue; // --docs changes the size: not the workload's figure
      if (report.overrides?.serverCli !== undefined) continue; // another build than the recorded commit
      results.push(...report.results.filter((result) => result.search && result.workload?.dataset && !result.error));
    } catch {
      // An unreadable or older-format file only loses its point on the chart.
    }
  }
  return results;
}

function selectWorkloads(args: BenchArgs): Workload[] {
  const paths = args.all
    ? listWorkloadFiles(workloadsDirectory)
    : (args.workloads.length > 0 ? args.workloads : ['npm']).map((name) => workloadPath(name, workloadsDirectory));
  return paths.map((path) => applyOverrides(loadWorkloadFile(path), args.overrides));
}

/** Skein's flags the command line asked for (--workers, --shards-per-index). */
function serverFlags(args: BenchArgs): string[] {
  return [
    ...(args.workers === null ? [] : ['--workers', String(args.workers)]),
    ...(args.shardsPerIndex === null ? [] : ['--shards-per-index', String(args.shardsPerIndex)]),
  ];
}

async function runOne(workload: Workload, cliPath: string, keepFiles: boolean, extraArgs: string[]): Promise<WorkloadResult> {
  log(`workload ${workload.name}: starting server`);
  const server = await startSkeinServer({ cliPath, keepFiles, extraArgs });
  log(`server pid ${server.pid} at ${server.baseUrl}`);
  const queries = buildQueries(createDataset(workload.dataset), workload.queries);
  let result: WorkloadResult;
  let reference: RestartReference | null = null;
  try {
    result = await runWorkload(workload, server, log);
    if (result.error) result.error += `\nlast server log lines:\n${server.logTail()}`;
    else if (workload.restart) {
      try {
        reference = await takeRestartReference(server.baseUrl, workload.index.uid, queries);
      } catch (error) {
        result.restart = { healthySeconds: null, firstSearchSeconds: null, rssBytes: null, emptyStartHealthySeconds: null, reference: null, error: (error as Error).message };
      }
    }
  } finally {
    // The restart phase reopens this server's database: keep it until then.
    await server.stop({ keepFiles: reference !== null });
    if (keepFiles) log(`server files kept: ${server.directory}`);
  }
  if (reference) {
    log(`restart: new server on ${server.directory}, waiting for ${JSON.stringify(reference.q)} to answer ${reference.estimatedTotalHits} hits again`);
    result.restart = await measureRestart({ cliPath, directory: server.directory, indexUid: workload.index.uid, keepFiles, extraArgs }, reference);
    const restart = result.restart;
    restart.emptyStartHealthySeconds = secondsBetween(server.spawnedAtMs, server.healthyAtMs);
    log(restart.error ? `restart failed: ${restart.error.split('\n')[0]}` : `restart: healthy after ${restart.healthySeconds} s, first search after ${restart.firstSearchSeconds} s`);
  }
  // Peers run after Skein has stopped, one at a time, so no two engines share the two cores.
  if (workload.peers.length > 0) result.peers = await runPeers(workload, queries, log);
  return result;
}

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    console.log(usage);
    return 0;
  }
  const cliPath = args.serverCli ? resolve(args.serverCli) : defaultCliPath;
  if (!existsSync(cliPath)) throw new Error(`${cliPath} not found: build the server first (npm run build)`);
  const workloads = selectWorkloads(args);
  if (workloads.some((workload) => workload.phase === 'windows') && !wrkInstalled()) throw new Error('the real-text workloads send their searches with wrk, which is not installed (Debian: apt-get install wrk)');
  if (workloads.some((workload) => workload.client === 'wrk') && !wrkInstalled()) throw new Error('--client wrk: wrk is not installed (Debian: apt-get install wrk)');
  const report: RunReport = {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    host: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', totalMemoryBytes: totalmem() },
    git: gitInfo(),
    overrides: {
      ...args.overrides,
      ...(args.workers === null ? {} : { workers: args.workers }),
      ...(args.shardsPerIndex === null ? {} : { shardsPerIndex: args.shardsPerIndex }),
      // Another build than this checkout's: the recorded commit is not the code that ran.
      ...(args.serverCli === null ? {} : { serverCli: cliPath }),
    },
    results: [],
  };
  const outputDirectory = args.outputDirectory ?? join(repoRoot, 'bench', 'results');
  // The real-text workloads (phase "windows") have their own phases and report (real-run.ts, real-report.ts).
  const windowsReport: WindowsReport = { startedAt: report.startedAt, finishedAt: '', host: { ...report.host, loadAverageAtStart: loadavg() }, git: report.git, results: [] };
  for (const workload of workloads) {
    if (workload.phase === 'windows') {
      windowsReport.results.push(await runWindowsWorkload(workload, { cliPath, keepFiles: args.keepFiles, extraArgs: serverFlags(args) }, log));
    } else report.results.push(await runOne(workload, cliPath, args.keepFiles, serverFlags(args)));
  }
  report.finishedAt = windowsReport.finishedAt = new Date().toISOString();
  let failed = false;
  if (windowsReport.results.length > 0) {
    const { jsonPath, markdownPath } = writeWindowsReport(windowsReport, outputDirectory);
    console.log(renderWindowsSummary(windowsReport));
    console.log(`results: ${jsonPath}\nsummary: ${markdownPath}`);
    failed ||= windowsReport.results.some((result) => result.error !== null || result.engines.some((engine) => engine.name === 'skein' && engine.error !== null));
  }
  if (report.results.length > 0) {
    const { jsonPath, markdownPath, chartPath } = writeReport(report, outputDirectory, readEarlierResults(outputDirectory));
    console.log(renderSummary(report));
    console.log(`results: ${jsonPath}\nsummary: ${markdownPath}\nchart:   ${chartPath}`);
    failed ||= report.results.some((result) => result.error !== null || Boolean(result.restart?.error));
  }
  return failed ? 1 : 0;
}

// Exiting (rather than dying on the signal) runs the 'exit' hooks that kill the child servers.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    log(`error: ${error.message}`);
    process.exit(2);
  },
);
