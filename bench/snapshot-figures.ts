// Snapshot figures (issue 21): load N synthetic movies (the bench generator, scale-1m's dataset) into
// a Skein child process, time POST /snapshots (task duration, archive bytes), then start a fresh child
// with --import-snapshot and time it to its first search answer; the load time is the same data from
// JSON payloads, for comparison. Also the restart without the shards' restart files (rebuilt from LMDB).
//   npm run build && node dist/bench/snapshot-figures.js [documents=1000000] [workers=1]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDataset } from './dataset.js';
import { loadDataset } from './loader.js';
import { findFreePort } from './server-process.js';
import { SkeinHttpClient } from './skein-http.js';

const ENTRY = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'src/index.js');
const documents = Number(process.argv[2] ?? 1_000_000);
const workers = Number(process.argv[3] ?? 1);

async function startChild(options: Record<string, unknown>): Promise<{ child: ChildProcess; client: SkeinHttpClient; startedMs: number }> {
  const port = await findFreePort();
  const startedMs = performance.now();
  // A file, not --eval: worker threads inherit execArgv (--input-type would break them).
  const script = join(root, 'server.mjs');
  writeFileSync(script, `import { startServer } from ${JSON.stringify(ENTRY)};
    const server = await startServer({ ...JSON.parse(process.argv[2]), httpAddr: '127.0.0.1:${port}' });
    process.once('SIGTERM', () => { void server.close().then(() => process.exit(0)); });`);
  const child = spawn(process.execPath, [script, JSON.stringify({ workers, ...options })], { stdio: ['ignore', 'inherit', 'inherit'] });
  const client = new SkeinHttpClient(`http://127.0.0.1:${port}`);
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited');
    try {
      if ((await client.request('GET', '/health')).status === 200) break;
    } catch {
      // not yet
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return { child, client, startedMs };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

let probe = 'love';

async function firstSearch(client: SkeinHttpClient): Promise<number> {
  const response = await client.request('POST', '/indexes/bench/search', JSON.stringify({ q: probe, limit: 20 }));
  if (response.status !== 200) throw new Error(`search: ${response.status} ${response.text}`);
  return (response.json as { estimatedTotalHits: number }).estimatedTotalHits;
}

async function waitTask(client: SkeinHttpClient, uid: number): Promise<Record<string, string>> {
  for (;;) {
    const task = (await client.request('GET', `/tasks/${uid}`)).json as Record<string, string>;
    if (task['status'] === 'succeeded' || task['status'] === 'failed') return task;
    await new Promise((done) => setTimeout(done, 100));
  }
}

const root = mkdtempSync(join(tmpdir(), 'skein-snapshot-bench-'));
const snapshotDir = join(root, 'snaps');
try {
  const dataset = createDataset({ kind: 'movies', documents, seed: 42, vocabularySize: 50_000, zipfExponent: 1.0 });
  probe = dataset.queryableWordsAt(0)[0] ?? probe;
  const source = await startChild({ dbPath: join(root, 'db'), snapshotDir });
  const load = await loadDataset(source.client, dataset, {
    indexUid: 'bench', settings: { searchableAttributes: ['title', 'overview', 'genre'] }, batchSize: 20_000, format: 'json', taskTimeoutSeconds: 3600,
  });
  console.log(`load: ${load.documents} documents from ${(load.payloadBytes / 1e6).toFixed(0)} MB of JSON in ${load.totalSeconds.toFixed(1)} s (${Math.round(load.documentsPerSecond)} docs/s)`);
  const hits = await firstSearch(source.client);
  const uid = await source.client.enqueue('POST', '/snapshots');
  const task = await waitTask(source.client, uid);
  const archive = join(snapshotDir, 'db.snapshot');
  const dataBytes = statSync(join(root, 'db', 'lmdb', 'data.mdb')).size;
  console.log(`snapshot: ${task['status']} in ${task['duration']}; ${(statSync(archive).size / 1e6).toFixed(1)} MB archive (LMDB data.mdb ${(dataBytes / 1e6).toFixed(1)} MB; shard files ${readdirSync(join(root, 'db', 'snapshots', 'bench')).length})`);
  await stop(source.child);

  const imported = await startChild({ dbPath: join(root, 'imported'), snapshotDir: join(root, 'snaps2'), importSnapshot: archive });
  const importedHits = await firstSearch(imported.client);
  console.log(`import + restart: first search answered ${((performance.now() - imported.startedMs) / 1000).toFixed(1)} s after spawn (${importedHits} hits, ${hits} before)`);
  await stop(imported.child);

  rmSync(join(root, 'imported', 'snapshots'), { recursive: true, force: true });
  const rebuilt = await startChild({ dbPath: join(root, 'imported'), snapshotDir: join(root, 'snaps2') });
  await firstSearch(rebuilt.client);
  console.log(`restart without the shards' restart files (rebuilt from LMDB): first search ${((performance.now() - rebuilt.startedMs) / 1000).toFixed(1)} s after spawn`);
  await stop(rebuilt.child);
} finally {
  rmSync(root, { recursive: true, force: true });
}
