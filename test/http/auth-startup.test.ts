// The master key at start (auth.md §1): production refuses a missing or short key; development accepts
// a short one with a warning; without a key the server says it is open.
import { spawn } from 'node:child_process';
import test from 'ava';
import { CLI_PATH, REPO_ROOT, freePort, spawnServerProcess, stopChild, withTempDir } from './harness.js';

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MEILI_MASTER_KEY: '' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output })); // after the pipes are drained, unlike 'exit'
  });
}

test('production without a master key refuses to start', (t) =>
  withTempDir(async (dbPath) => {
    const { code, output } = await runCli(['--env', 'production', '--db-path', dbPath, '--http-addr', `127.0.0.1:${await freePort()}`]);
    t.not(code, 0);
    t.regex(output, /In production mode, you must provide a master key/);
  }));

test('production with a master key under 16 bytes refuses to start', (t) =>
  withTempDir(async (dbPath) => {
    const { code, output } = await runCli(['--env', 'production', '--master-key', '0123456789abcde', '--db-path', dbPath, '--http-addr', `127.0.0.1:${await freePort()}`]);
    t.not(code, 0);
    t.regex(output, /at least 16 bytes.*only 15 bytes/);
  }));

for (const [label, args, expected] of [
  ['development accepts a short key with a warning', ['--master-key', 'short'], /master key is too short \(5 bytes\)/],
  ['without a master key the server says it is open', [], /No master key was found/],
  ['production accepts a 16-byte key', ['--env', 'production', '--master-key', '0123456789abcdef'], null],
] as const) {
  test(label, (t) =>
    withTempDir(async (dbPath) => {
      const port = await freePort();
      const child = await spawnServerProcess(CLI_PATH, [...args, '--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`], port);
      try {
        if (expected) t.regex(child.output(), expected);
        const locked = (args as readonly string[]).includes('--master-key');
        t.is((await child.client.get('/indexes')).status, locked ? 401 : 200);
        t.is((await child.client.get('/health')).status, 200);
      } finally {
        await stopChild(child, 'SIGTERM');
      }
    }));
}
