// The `skein` command as a user runs it (node dist/src/cli.js): --help, --version, the config file and
// its precedence (flag > MEILI_* variable > config file > default), errors naming the bad flag, value or
// key with exit code 2, warnings for options without effect and unknown MEILI_* variables, /version.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { LAUNCH_OPTIONS } from '../../src/config/launch-options.js';
import { CLI_PATH, Client, REPO_ROOT, freePort, sleep, withTempDir } from './harness.js';

const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

/** The environment without any MEILI_* / SKEIN_* variable of the machine running the tests, plus `extra`. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(MEILI|SKEIN)_/.test(name)) env[name] = value;
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its exit (killed after `timeoutMs`: a server that started when it should have refused). */
function runCli(args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: options.cwd ?? REPO_ROOT, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    // 'close', not 'exit': 'exit' can come before the pipes are drained, so the output could be empty.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts the CLI expecting it to answer /health on `port`; returns its output so far, then stops it
 * with SIGTERM. Fails with the output when it exits first or does not answer in time.
 */
async function serveOnce<T>(args: string[], port: number, options: { cwd?: string; env?: Record<string, string> }, body: (client: Client, output: () => string) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, [CLI_PATH, '--workers', '1', ...args], { cwd: options.cwd ?? REPO_ROOT, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let gone = false;
  void exited.then(() => (gone = true));
  const client = new Client(`http://127.0.0.1:${port}`);
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (gone) throw new Error(`skein exited before answering on port ${port}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`skein did not answer on port ${port} within 20 s:\n${output}`);
      try {
        if ((await client.get('/health')).status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    return await body(client, () => output);
  } finally {
    if (!gone) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
}

test('--help and -h list every launch option with its environment variable, and exit 0', async (t) => {
  const long = await runCli(['--help']);
  const short = await runCli(['-h']);
  t.is(long.code, 0, long.stderr);
  t.is(short.stdout, long.stdout);
  const help = long.stdout;
  for (const option of LAUNCH_OPTIONS) {
    t.true(new RegExp(`--${option.flag}\\b`).test(help), `--${option.flag} is in the help`);
    t.true(help.includes(`[env: ${option.env}]`), `${option.env} is in the help`);
  }
  t.true(help.includes('--config-file-path') && help.includes('[env: MEILI_CONFIG_FILE_PATH]'));
  t.true(help.includes('[default: 127.0.0.1:7700]'));
  t.true(help.includes('[default: 100 MB]'));
  t.true(help.includes('import'), 'the import subcommand is listed');
  t.true(LAUNCH_OPTIONS.length >= 50, 'every Meilisearch launch option is declared');
});

test('--version and -V print the package version and the build commit', async (t) => {
  const stamp = JSON.parse(readFileSync(join(REPO_ROOT, 'dist/build-info.json'), 'utf8')) as { commitSha: string };
  for (const flag of ['--version', '-V']) {
    const run = await runCli([flag]);
    t.is(run.code, 0);
    t.is(run.stdout.trim().split(' ')[0], 'skein');
    t.true(run.stdout.includes(` ${PACKAGE.version} `), run.stdout);
    t.true(run.stdout.includes(stamp.commitSha), run.stdout);
  }
});

test('GET /version answers Skein\'s package version and the build commit, in Meilisearch\'s shape', async (t) => {
  const port = await freePort();
  await withTempDir((dbPath) => serveOnce(['--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`], port, {}, async (client) => {
    const response = await client.get('/version');
    t.is(response.status, 200);
    t.deepEqual(Object.keys(response.body), ['commitSha', 'commitDate', 'pkgVersion']);
    t.is(response.body.pkgVersion, PACKAGE.version);
    const git = spawn('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, stdio: 'ignore' });
    const inGit = await new Promise<boolean>((done) => { git.on('exit', (code) => done(code === 0)); git.on('error', () => done(false)); });
    if (inGit) {
      t.regex(response.body.commitSha, /^[0-9a-f]{40}$/);
      t.false(Number.isNaN(Date.parse(response.body.commitDate)), response.body.commitDate);
    }
  }));
});

test('./config.toml in the working folder is read: its http_addr and db_path take effect', async (t) => {
  const port = await freePort();
  await withTempDir(async (folder) => {
    const dbPath = join(folder, 'from-file.skein');
    writeFileSync(join(folder, 'config.toml'), `# Skein\ndb_path = "${dbPath}"\nhttp_addr = "127.0.0.1:${port}"\nlog_level = "WARN"\n`);
    await serveOnce([], port, { cwd: folder }, async (client, output) => {
      t.is((await client.get('/health')).status, 200);
      t.true(existsSync(dbPath), 'the database is where the file said');
      t.true(output().includes(join(folder, 'config.toml')), 'the start says which file it read');
    });
  });
});

test('precedence: a flag overrides the config file, a MEILI_* variable overrides the file, the flag overrides the variable', async (t) => {
  const [filePort, envPort, flagPort] = [await freePort(), await freePort(), await freePort()];
  await withTempDir(async (folder) => {
    const file = join(folder, 'skein.toml');
    writeFileSync(file, `db_path = "${join(folder, 'db')}"\nhttp_addr = "127.0.0.1:${filePort}"\n`);
    await serveOnce(['--config-file-path', file, '--http-addr', `127.0.0.1:${flagPort}`], flagPort, {}, async (client) => {
      t.is((await client.get('/health')).status, 200, 'flag over file');
    });
    await serveOnce([], envPort, { env: { MEILI_CONFIG_FILE_PATH: file, MEILI_HTTP_ADDR: `127.0.0.1:${envPort}` } }, async (client) => {
      t.is((await client.get('/health')).status, 200, 'environment over file');
    });
    await serveOnce(['--http-addr', `127.0.0.1:${flagPort}`], flagPort, { env: { MEILI_CONFIG_FILE_PATH: file, MEILI_HTTP_ADDR: `127.0.0.1:${envPort}` } }, async (client) => {
      t.is((await client.get('/health')).status, 200, 'flag over environment');
    });
  });
});

test('an unknown flag exits 2 naming it, with a suggestion and a pointer to --help', async (t) => {
  const run = await runCli(['--db-pth', 'x']);
  t.is(run.code, 2);
  t.regex(run.stderr, /error: unknown option '--db-pth'/);
  t.regex(run.stderr, /Did you mean --db-path\?/);
  t.regex(run.stderr, /For more information, try '--help'/);
});

for (const [label, args, env, expected] of [
  ['--workers abc', ['--workers', 'abc'], {}, /invalid value 'abc' for '--workers <N>': expected a positive integer/],
  ['--http-payload-size-limit 12zz', ['--http-payload-size-limit', '12zz'], {}, /invalid value '12zz' for '--http-payload-size-limit <SIZE>'/],
  ['--env staging', ['--env', 'staging'], {}, /invalid value 'staging' for '--env <ENV>': possible values: development, production/],
  ['--log-level loud', ['--log-level', 'loud'], {}, /invalid value 'loud' for '--log-level <LEVEL>'/],
  ['SKEIN_WORKERS=abc', [], { SKEIN_WORKERS: 'abc' }, /invalid value 'abc' for '--workers <N>' from the SKEIN_WORKERS environment variable/],
  ['MEILI_ENV=staging', [], { MEILI_ENV: 'staging' }, /invalid value 'staging' for '--env <ENV>' from the MEILI_ENV environment variable/],
] as const) {
  test(`a bad value exits 2 naming the option and the value: ${label}`, async (t) => {
    const port = await freePort();
    await withTempDir(async (dbPath) => {
      const run = await runCli([...args, '--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`], { env });
      t.is(run.code, 2, run.stderr);
      t.regex(run.stderr, expected);
    });
  });
}

test('the config file: an unknown key, a bad value, invalid TOML and a missing named file exit 2 naming them', async (t) => {
  await withTempDir(async (folder) => {
    const cases: Array<[string, RegExp]> = [
      ['db_pth = "x"\n', /unknown key `db_pth` in the configuration file .*bad\.toml \(did you mean `db_path`\?\)/],
      ['workers = "abc"\n', /invalid value 'abc' for `workers` in the configuration file .*bad\.toml: expected a positive integer/],
      ['http_payload_size_limit = "12zz"\n', /invalid value '12zz' for `http_payload_size_limit`/],
      ['workers = [\n', /bad\.toml is not valid TOML \(line \d+, column \d+\)/],
      ['config_file_path = "other.toml"\n', /`config_file_path` is not supported in the configuration file/],
    ];
    const file = join(folder, 'bad.toml');
    for (const [text, expected] of cases) {
      writeFileSync(file, text);
      const run = await runCli(['--config-file-path', file, '--db-path', join(folder, 'db'), '--http-addr', `127.0.0.1:${await freePort()}`]);
      t.is(run.code, 2, `${text}: ${run.stderr}`);
      t.regex(run.stderr, expected);
    }
    const missing = await runCli(['--config-file-path', join(folder, 'missing.toml')]);
    t.is(missing.code, 2);
    t.regex(missing.stderr, /unable to open or read the ".*missing\.toml" configuration file/);
  });
});

test('Meilisearch options without meaning here start the server with a one-line warning each; unknown MEILI_* variables are warned once', async (t) => {
  const port = await freePort();
  await withTempDir((dbPath) => serveOnce(
    ['--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`, '--no-analytics', '--max-indexing-threads', '2', '--experimental-enable-metrics',
      '--log-level', 'WARN', '--schedule-snapshot', '--snapshot-dir', join(dbPath, 'snapshots')],
    port, { env: { MEILI_DB_PTH: 'typo', MEILI_NOT_AN_OPTION: '1', MEILI_SSL_TICKETS: 'true', MEILI_SSL_RESUMPTION: 'false' } },
    async (client, output) => {
      t.is((await client.get('/health')).status, 200);
      const text = output();
      t.regex(text, /warning: --no-analytics has no effect: Skein collects no analytics/);
      t.regex(text, /warning: --max-indexing-threads has no effect/);
      t.regex(text, /warning: --ssl-tickets \(from MEILI_SSL_TICKETS\) has no effect/);
      t.notRegex(text, /--ssl-resumption/, 'a flag variable set to false is off, not worth a warning');
      t.is(text.match(/unknown environment variable MEILI_DB_PTH is ignored \(did you mean MEILI_DB_PATH\?\)/g)?.length, 1);
      t.is(text.match(/unknown environment variable MEILI_NOT_AN_OPTION is ignored/g)?.length, 1);
      t.notRegex(text, /--experimental-enable-metrics has no effect/);
    }));
});

test('--ignore-missing-dump without --import-dump and --import-dump with --import-snapshot exit 2, as Meilisearch', async (t) => {
  const alone = await runCli(['--ignore-missing-dump']);
  t.is(alone.code, 2);
  t.regex(alone.stderr, /--ignore-missing-dump requires --import-dump/);
  const both = await runCli(['--import-dump', 'a.dump', '--import-snapshot', 'b.snapshot']);
  t.is(both.code, 2);
  t.regex(both.stderr, /'--import-dump <PATH>' cannot be used with '--import-snapshot <PATH>'/);
});
