// The measured runs with wrk instead of autocannon, when wrk is installed and asked for (`--client wrk`):
// autocannon runs in the bench's own Node process and, on a 2-core machine, takes a third to a whole core
// from the server (at the fixed-response ceiling it is the limit: 110% client CPU against 56% for the
// server). wrk, in C, costs several times less per request. It reports overall figures only: no latency
// per query kind and no check of the answers (the autocannon warm-up still gives those).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LatencySummary } from './latency-stats.js';

const scriptPath = fileURLToPath(new URL('../../bench/wrk-queries.lua', import.meta.url));
const getPathsScript = fileURLToPath(new URL('../../bench/wrk-get-paths.lua', import.meta.url));

export function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

export interface WrkRunOptions {
  baseUrl: string;
  indexUid: string;
  bodies: readonly string[];
  concurrency: number;
  durationSeconds: number;
  /** wrk threads (each an event loop over its share of the connections); 1 unless given. */
  threads?: number;
}

export interface WrkFigures {
  /** Answered requests, and those with a status of 400 or more among them. */
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  queriesPerSecond: number;
  latencyMs: LatencySummary;
  /** wrk's own CPU (user + system) in % of one core. */
  clientCpuPercent: number;
}

/** The JSON line wrk-queries.lua prints at the end of a run. */
interface WrkResultLine {
  requests: number;
  durationMicros: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  statusErrors: number;
  timeouts: number;
  meanMicros: number;
  p50Micros: number;
  p90Micros: number;
  p99Micros: number;
  maxMicros: number;
}

const milliseconds = (micros: number) => Math.round(micros / 10) / 100;

export function parseWrkOutput(stdout: string, cpuSeconds: number): WrkFigures {
  const line = /^WRK_RESULT (.*)$/m.exec(stdout);
  if (line === null) throw new Error(`wrk printed no result: ${stdout.slice(0, 300)}`);
  const result = JSON.parse(line[1]!) as WrkResultLine;
  const durationSeconds = result.durationMicros / 1e6;
  const answered = result.requests - result.statusErrors;
  return {
    requests: result.requests,
    non2xx: result.statusErrors,
    errors: result.connectErrors + result.readErrors + result.writeErrors + result.timeouts,
    timeouts: result.timeouts,
    durationSeconds: Math.round(durationSeconds * 100) / 100,
    queriesPerSecond: Math.round((answered / durationSeconds) * 10) / 10,
    latencyMs: {
      count: result.requests,
      mean: milliseconds(result.meanMicros),
      p50: milliseconds(result.p50Micros),
      p90: milliseconds(result.p90Micros),
      p99: milliseconds(result.p99Micros),
      max: milliseconds(result.maxMicros),
    },
    clientCpuPercent: Math.round((cpuSeconds / durationSeconds) * 100),
  };
}

/** One measured run: wrk for `durationSeconds` over `concurrency` connections, cycling through the bodies. */
export async function runWrk(options: WrkRunOptions): Promise<WrkFigures> {
  const directory = mkdtempSync(join(tmpdir(), 'skein-wrk-'));
  try {
    const bodiesPath = join(directory, 'bodies.ndjson');
    writeFileSync(bodiesPath, options.bodies.map((body) => body.replace(/\n/g, ' ')).join('\n') + '\n');
    const threads = Math.max(1, Math.min(options.threads ?? 1, options.concurrency));
    const command = ['wrk', `-t${threads}`, `-c${options.concurrency}`, `-d${options.durationSeconds}s`, '--timeout', '30s',
      '-s', scriptPath, options.baseUrl, '--', bodiesPath, `/indexes/${options.indexUid}/search`, String(threads)];
    // bash's `time` gives wrk's CPU (user, system) once it exits.
    const { stdout, stderr } = await run('bash', ['-c', `TIMEFORMAT='WRK_CPU %U %S'; time ${command.map(shellQuote).join(' ')}`]);
    const cpu = /WRK_CPU ([\d.]+) ([\d.]+)/.exec(stderr);
    return parseWrkOutput(stdout, cpu === null ? 0 : Number(cpu[1]) + Number(cpu[2]));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * One window of the real-text workloads: wrk with ONE thread for `durationSeconds`, each request the next GET
 * path of `pathsFile` (one per line) from line `startLine` (window-phase.ts).
 */
/** `headers`: request headers sent with every request ("Name: value"). */
/** `postTo`: the file's lines are JSON bodies POSTed to this path instead of GET paths (wrk-get-paths.lua's third argument). */
export async function runWrkGetWindow(options: { baseUrl: string; pathsFile: string; startLine: number; concurrency: number; durationSeconds: number; headers?: readonly string[]; postTo?: string }): Promise<WrkFigures> {
  const command = ['wrk', '-t1', `-c${options.concurrency}`, `-d${options.durationSeconds}s`, '--timeout', '30s',
    ...(options.headers ?? []).flatMap((header) => ['-H', header]), '-s', getPathsScript, options.baseUrl, '--', options.pathsFile, String(options.startLine),
    ...(options.postTo === undefined ? [] : [options.postTo])];
  const { stdout, stderr } = await run('bash', ['-c', `TIMEFORMAT='WRK_CPU %U %S'; time ${command.map(shellQuote).join(' ')}`]);
  const cpu = /WRK_CPU ([\d.]+) ([\d.]+)/.exec(stderr);
  return parseWrkOutput(stdout, cpu === null ? 0 : Number(cpu[1]) + Number(cpu[2]));
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function run(command: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ stdout, stderr }) : reject(new Error(`wrk exited with ${code}: ${stderr.slice(0, 300)}`))));
  });
}
