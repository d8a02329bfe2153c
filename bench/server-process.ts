// Runs Skein as a child process (`node dist/src/cli.js`) on a free loopback port with a fresh database
// directory (or an existing one, to restart a server on its database), so the server never shares a process, a heap or a CPU accounting line with the load
// generator.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkeinHttpClient } from './skein-http.js';

export interface ServerHandle {
  readonly baseUrl: string;
  readonly pid: number;
  readonly logPath: string;
  /** Holds the database (`db`) and the log; reuse it with ServerOptions.directory to restart on the same data. */
  readonly directory: string;
  /** performance.now() when the process was spawned and when GET /health first answered 200. */
  readonly spawnedAtMs: number;
  readonly healthyAtMs: number;
  /** The last lines the server wrote, for error reports. */
  logTail(lines?: number): string;
  /** SIGTERM (SIGKILL after 10 s); removes the directory unless kept (ServerOptions.keepFiles or here). */
  stop(options?: { keepFiles?: boolean }): Promise<void>;
}

export interface ServerOptions {
  cliPath: string;
  startTimeoutSeconds?: number;
  /** Keep the database and log directory after stopping (for post-mortems). */
  keepFiles?: boolean;
  extraArgs?: string[];
  /** Start on this existing directory (its `db` and `server.log`) instead of a fresh temporary one. */
  directory?: string;
  /** How often to poll GET /health while starting (default 100 ms). */
  healthPollMs?: number;
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function waitForExit(child: ChildProcess, milliseconds: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), milliseconds);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Extra Node flags for the server from SKEIN_BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=prof":
 * Node refuses --cpu-prof in NODE_OPTIONS, and profiles of the server's threads are what guide tuning.
 */
function nodeArgs(): string[] {
  return (process.env.SKEIN_BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0);
}

export async function startSkeinServer(options: ServerOptions): Promise<ServerHandle> {
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'skein-bench-'));
  const logPath = join(directory, 'server.log');
  const port = await findFreePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  if (options.directory) appendFileSync(logPath, `--- bench: server restarted on this directory at ${new Date().toISOString()} ---\n`);
  const logFd = openSync(logPath, 'a');
  const spawnedAtMs = performance.now();
  const child = spawn(
    process.execPath,
    [...nodeArgs(), options.cliPath, '--db-path', join(directory, 'db'), '--http-addr', `127.0.0.1:${port}`, ...(options.extraArgs ?? [])],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  // Never leave a server behind if the bench dies half-way.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const logTail = (lines = 20) => {
    try {
      return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  let stopped = false;
  const stop = async (stopOptions: { keepFiles?: boolean } = {}) => {
    if (stopped) return;
    stopped = true;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 10_000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
    process.off('exit', killOnExit);
    if (!options.keepFiles && !stopOptions.keepFiles) rmSync(directory, { recursive: true, force: true });
  };

  let spawnError: Error | null = null;
  child.once('error', (error) => (spawnError = error));
  try {
    await new SkeinHttpClient(baseUrl).waitUntilHealthy((options.startTimeoutSeconds ?? 30) * 1000, options.healthPollMs ?? 100, () => {
      if (spawnError) return `cannot start ${options.cliPath}: ${spawnError.message}`;
      if (child.exitCode !== null || child.signalCode !== null) {
        return `server exited (${child.exitCode ?? child.signalCode}) before becoming healthy:\n${logTail()}`;
      }
      return null;
    });
  } catch (error) {
    await stop();
    throw error;
  }

  const healthyAtMs = performance.now();
  if (child.pid === undefined) throw new Error('server has no pid');
  return { baseUrl, pid: child.pid, logPath, directory, spawnedAtMs, healthyAtMs, logTail, stop };
}
