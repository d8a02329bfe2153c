// Indexing throughput on real text: the npm package list (/work/.library/env/packages/npm.tsv, ~227k names
// and summaries) as JSON documents, posted in batches to a Skein server in its own process; prints docs/s
// from the first POST to the last task's success.
// Usage: node scripts/ingest-npm-throughput.mjs [distDir=dist] [batchSize=10000] [floats=0|1]
// On a shared machine the wall clock follows the load; `serverCpuSeconds` (the server process's user +
// system time from /proc, every thread) and `cpuMicrosPerDoc` do not.
// floats=1 adds fields whose numbers JavaScript would rewrite (1.0, 2^53+1, 1e300), so every document
// takes the exact path.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const distDir = resolve(process.argv[2] ?? 'dist');
const batchSize = Number(process.argv[3] ?? 10_000);
const floats = process.argv[4] === '1';
const lines = readFileSync('/work/.library/env/packages/npm.tsv', 'utf8').split('\n').slice(1).filter((line) => line !== '');
const documents = lines.map((line, id) => {
  const [name, version, downloads, summary] = line.split('\t');
  const document = { id, name, version, downloads: Number(downloads), summary: summary ?? '' };
  return floats ? { ...document, ratio: Number(downloads) / 7 } : document;
});
const batches = [];
for (let start = 0; start < documents.length; start += batchSize) {
  let text = JSON.stringify(documents.slice(start, start + batchSize));
  if (floats) text = text.replace(/"ratio":[^,}]*/g, (_, k) => `"ratio":1.0,"big":9007199254740993,"huge":1e300`);
  batches.push(Buffer.from(text));
}
const bytes = batches.reduce((sum, batch) => sum + batch.byteLength, 0);

const dbPath = mkdtempSync(join(tmpdir(), 'skein-ingest-bench-'));
const port = 7700 + Math.floor(Math.random() * 1000);
const server = spawn(process.execPath, [join(distDir, 'src/cli.js'), '--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`, '--http-payload-size-limit', '1000000000'], { stdio: 'inherit' });
const base = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/health`)).ok) break; } catch { /* starting */ }
    if (i > 200) throw new Error('server did not start');
    await new Promise((done) => setTimeout(done, 50));
  }
  const cpuAtStart = serverCpuSeconds(server.pid);
  const started = performance.now();
  let last = 0;
  for (const batch of batches) {
    const response = await fetch(`${base}/indexes/npm/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: batch });
    last = (await response.json()).taskUid;
  }
  const enqueued = performance.now();
  for (;;) {
    const task = await (await fetch(`${base}/tasks/${last}`)).json();
    if (task.status === 'succeeded') break;
    if (task.status === 'failed') throw new Error(JSON.stringify(task.error));
    await new Promise((done) => setTimeout(done, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = serverCpuSeconds(server.pid) - cpuAtStart;
  const stats = await (await fetch(`${base}/indexes/npm/stats`)).json();
  console.log(JSON.stringify({
    dist: distDir, documents: documents.length, stored: stats.numberOfDocuments, batchSize, floats, megabytes: +(bytes / 1e6).toFixed(1),
    enqueueSeconds: +((enqueued - started) / 1000).toFixed(2), seconds: +seconds.toFixed(2), docsPerSecond: Math.round(documents.length / seconds),
    serverCpuSeconds: +cpuSeconds.toFixed(2), cpuMicrosPerDoc: +((cpuSeconds * 1e6) / documents.length).toFixed(1),
  }));
} finally {
  server.kill('SIGTERM');
  await new Promise((done) => server.once('exit', done));
  rmSync(dbPath, { recursive: true, force: true });
}

/** utime + stime of a process (all its threads), in seconds, from /proc/<pid>/stat. */
function serverCpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
