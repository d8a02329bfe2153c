import test from 'ava';
import { writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderMarkdown, renderSummary, type RunReport } from '../../bench/report.js';
import { runWorkload } from '../../bench/run-workload.js';
import { startSkeinServer } from '../../bench/server-process.js';
import { resolveWorkload } from '../../bench/workload.js';

const here = dirname(fileURLToPath(import.meta.url));

/** A stand-in for dist/src/cli.js: same flags, serves the stand-in API. */
function writeFakeCli(directory: string): string {
  const path = join(directory, 'fake-cli.mjs');
  writeFileSync(
    path,
    `import { startStandIn } from ${JSON.stringify(join(here, 'bench-stand-in-server.js'))};
const address = process.argv[process.argv.indexOf('--http-addr') + 1];
if (!process.argv.includes('--db-path')) process.exit(3);
await startStandIn({ port: Number(address.split(':')[1]) });
console.log('listening on', address);
`,
  );
  return path;
}

test('a workload runs end to end against a child server, and the report shows its figures', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'bench-test-'));
  try {
    const server = await startSkeinServer({ cliPath: writeFakeCli(directory) });
    let logDirectory = '';
    try {
      logDirectory = dirname(server.logPath);
      const workload = resolveWorkload(
        { dataset: { documents: 1500, vocabularySize: 2000 }, load: { batchSize: 500 }, queries: { count: 100, mix: { word: 1, typo: 1 } }, concurrency: 4, durationSeconds: 1, warmupSeconds: 0 },
        'tiny',
      );
      const result = await runWorkload(workload, server, () => {});
      t.is(result.error, null);
      t.is(result.indexing?.documents, 1500);
      t.is(result.indexing?.batches, 3);
      t.is(result.search?.non2xx, 0);
      t.true((result.search?.requests ?? 0) > 0);
      t.true((result.server.rssAfterLoadBytes ?? 0) > 1e6);
      t.true((result.server.peakRssBytes ?? 0) >= (result.server.rssAfterLoadBytes ?? 0));
      t.true((result.server.maxRssDuringLoadBytes ?? 0) > 1e6);
      t.true((result.server.peakRssAfterLoadBytes ?? 0) >= (result.server.maxRssDuringLoadBytes ?? 0));
      t.not(result.server.indexingCpuSeconds, null);
      t.is(result.queryKindCounts.word + result.queryKindCounts.typo, 100);
      t.regex(server.logTail(), /listening on/);

      const report: RunReport = {
        startedAt: '2025-01-01T00:00:00.000Z', finishedAt: '2025-01-01T00:01:00.000Z',
        host: { node: 'v20', platform: 'linux-x64', cpus: 2, cpuModel: 'test', totalMemoryBytes: 2 ** 30 },
        git: { commit: 'abc', dirty: false }, overrides: {}, results: [result],
      };
      t.regex(renderSummary(report), /indexing\s+\d+ docs\/s end to end/);
      t.regex(renderSummary(report), /search\s+[\d.]+ queries\/s/);
      t.regex(renderMarkdown(report), /\| typo \| \d+ \|/);
      t.regex(renderMarkdown(report), /\| server peak RSS while indexing \(VmHWM after load\) \| \d+ MiB \|/);
      t.regex(renderSummary(report), /server peak RSS while indexing \d+ MiB/);
      // The warm-up's max: the first searches after the load.
      t.regex(renderMarkdown(report), /\| warm-up \(.*\): queries\/s, p50 \/ p99 \/ max ms \| [\d.]+, [\d.]+ \/ [\d.]+ \/ [\d.]+ \|/);
      t.regex(renderSummary(report), /warm-up .* p99 [\d.]+ \| max [\d.]+ ms/);
    } finally {
      await server.stop();
    }
    t.false(existsSync(logDirectory), 'the database directory is removed on stop');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a server that dies at start is reported with its log', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'bench-test-'));
  try {
    const cliPath = join(directory, 'dying.mjs');
    writeFileSync(cliPath, "console.error('cannot open database'); process.exit(4);\n");
    await t.throwsAsync(startSkeinServer({ cliPath, startTimeoutSeconds: 10 }), { message: /exited \(4\)[\s\S]*cannot open database/ });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
