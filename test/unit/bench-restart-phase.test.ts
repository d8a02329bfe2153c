import test from 'ava';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs } from '../../bench/cli-args.js';
import type { BenchQuery } from '../../bench/query-mix.js';
import { renderMarkdown, renderSummary, type RunReport } from '../../bench/report.js';
import { measureRestart, takeRestartReference, type RestartFigures } from '../../bench/restart-phase.js';
import type { WorkloadResult } from '../../bench/run-workload.js';
import { startSkeinServer } from '../../bench/server-process.js';
import { applyOverrides, resolveWorkload } from '../../bench/workload.js';
import { startStandIn } from './bench-stand-in-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const hitsOnDisk = 7;

/**
 * A stand-in for dist/src/cli.js with a database: the first start creates `<db-path>/marker`; a start
 * that finds it is a restart, which listens after 200 ms and then answers 0 hits for 400 ms (an index
 * still loading) before answering as before. `--mode never` never answers as before, `--mode die` exits.
 */
function writeFakeCli(directory: string): string {
  const path = join(directory, 'fake-cli.mjs');
  writeFileSync(
    path,
    `import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startStandIn } from ${JSON.stringify(join(here, 'bench-stand-in-server.js'))};
const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const db = arg('--db-path');
const mode = arg('--mode') ?? 'loading';
const restarted = existsSync(join(db, 'marker'));
if (restarted && mode === 'die') { console.error('cannot reopen database'); process.exit(5); }
mkdirSync(db, { recursive: true });
writeFileSync(join(db, 'marker'), 'x');
const startedAt = Date.now();
if (restarted) await new Promise((resolve) => setTimeout(resolve, 200));
const loaded = () => !restarted || (mode !== 'never' && Date.now() - startedAt >= 600);
await startStandIn({ port: Number(arg('--http-addr').split(':')[1]), searchHits: (q) => (q === 'none' || !loaded() ? 0 : ${hitsOnDisk}) });
console.log(restarted ? 'reopened' : 'created', db);
`,
  );
  return path;
}

const query = (q: string): BenchQuery => ({ kind: 'word', q, body: JSON.stringify({ q, limit: 20 }) });

async function restartAfterFirstRun(mode: string, timeoutSeconds = 30): Promise<{ figures: RestartFigures; directory: string }> {
  const scripts = mkdtempSync(join(tmpdir(), 'bench-restart-test-'));
  try {
    const cliPath = writeFakeCli(scripts);
    const extraArgs = ['--mode', mode];
    const first = await startSkeinServer({ cliPath, extraArgs });
    const reference = await takeRestartReference(first.baseUrl, 'bench', [query('none'), query('alpha'), query('beta')]);
    await first.stop({ keepFiles: true });
    const figures = await measureRestart({ cliPath, directory: first.directory, indexUid: 'bench', keepFiles: false, extraArgs, timeoutSeconds }, reference);
    return { figures, directory: first.directory };
  } finally {
    rmSync(scripts, { recursive: true, force: true });
  }
}

test('restart: timed from spawn, a search on a still-empty index does not count, the directory goes at the end', async (t) => {
  const { figures, directory } = await restartAfterFirstRun('loading');
  t.is(figures.error, null);
  t.deepEqual(figures.reference, { kind: 'word', q: 'alpha', body: query('alpha').body, estimatedTotalHits: hitsOnDisk });
  t.true(figures.healthySeconds !== null && figures.healthySeconds >= 0.2, `healthy after ${figures.healthySeconds} s`);
  // The restarted stand-in answers 0 hits until 0.6 s after its start: those answers are not counted.
  t.true(figures.firstSearchSeconds !== null && figures.firstSearchSeconds >= 0.6, `first search after ${figures.firstSearchSeconds} s`);
  t.true(figures.firstSearchSeconds! < 5);
  t.true((figures.rssBytes ?? 0) > 1e6);
  t.false(existsSync(directory));
});

test('restart: a server that never answers as before is recorded as a timeout, not thrown', async (t) => {
  const { figures, directory } = await restartAfterFirstRun('never', 4);
  t.not(figures.healthySeconds, null);
  t.is(figures.firstSearchSeconds, null);
  t.regex(figures.error ?? '', /no search answered with 7 hits[\s\S]*estimatedTotalHits 0[\s\S]*reopened/);
  t.false(existsSync(directory));
});

test('restart: a server that cannot reopen its database is recorded with its log', async (t) => {
  const { figures, directory } = await restartAfterFirstRun('die');
  t.is(figures.healthySeconds, null);
  t.regex(figures.error ?? '', /exited \(5\)[\s\S]*cannot reopen database/);
  t.false(existsSync(directory));
});

test('the reference is the first query with hits, else the first query; a failing search throws', async (t) => {
  const standIn = await startStandIn({ searchHits: (q) => (q === 'none' ? 0 : 3), searchStatus: (q) => (q === 'broken' ? 500 : 200) });
  try {
    t.is((await takeRestartReference(standIn.baseUrl, 'bench', [query('none'), query('some')])).q, 'some');
    t.deepEqual(await takeRestartReference(standIn.baseUrl, 'bench', [query('none')]), { kind: 'word', q: 'none', body: query('none').body, estimatedTotalHits: 0 });
    await t.throwsAsync(takeRestartReference(standIn.baseUrl, 'bench', [query('broken')]), { message: /HTTP 500/ });
  } finally {
    await standIn.close();
  }
});

test('restart is on by default, off with "restart": false or --no-restart, and reported', (t) => {
  const workload = resolveWorkload({}, 'w');
  t.true(workload.restart);
  t.false(resolveWorkload({ restart: false }, 'w').restart);
  t.throws(() => resolveWorkload({ restart: 'no' }, 'w'), { message: /restart/ });
  t.false(applyOverrides(workload, parseBenchArgs(['--no-restart']).overrides).restart);
  t.true(applyOverrides(workload, parseBenchArgs([]).overrides).restart);

  const restart: RestartFigures = { healthySeconds: 0.31, firstSearchSeconds: 0.45, rssBytes: 100 * 1048576, emptyStartHealthySeconds: 0.2, reference: { kind: 'word', q: 'alpha', body: '{}', estimatedTotalHits: 7 }, error: null };
  const result: WorkloadResult = {
    workload, startedAt: '', queryKindCounts: {}, indexing: null, search: null, peers: [], restart, error: null,
    server: { rssAfterLoadBytes: 1, rssAfterSearchBytes: 1, maxRssDuringSearchBytes: 1, peakRssBytes: 1, indexingCpuSeconds: 1, searchCpuPercent: 1 },
  };
  const report: RunReport = {
    startedAt: '2025-01-01T00:00:00.000Z', finishedAt: '', host: { node: 'v20', platform: 'linux-x64', cpus: 2, cpuModel: 'test', totalMemoryBytes: 1 },
    git: { commit: null, dirty: null }, overrides: {}, results: [result],
  };
  t.regex(renderSummary(report), /restart {4}spawn to \/health 200 0\.31 s, to first search 0\.45 s \(word "alpha", 7 hits as before the stop\), RSS then 100 MiB; empty-database start 0\.2 s/);
  t.regex(renderMarkdown(report), /\| restart: spawn to first search with the same hits \| 0\.45 s/);
  t.regex(renderSummary({ ...report, results: [{ ...result, restart: { ...restart, firstSearchSeconds: null, error: 'restart: no search answered' } }] }), /restart {4}FAILED/);
});
