// Dump and import figures (README "Dumps"): N documents made from test/http/fixtures/npm-packages.tsv
// (rows repeated, ids 0..N-1, ~330 bytes each), loaded as NDJSON in 50k-document requests, then
// POST /dumps, then a fresh server started with importDump. Usage (after npm run build):
//   node bench/dump-figures.mjs [documents=1000000] [workers=1]
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../dist/src/index.js';

const total = Number(process.argv[2] ?? 1_000_000);
const workers = Number(process.argv[3] ?? 1);
const rows = readFileSync(new URL('../test/http/fixtures/npm-packages.tsv', import.meta.url), 'utf8').split('\n').slice(1).filter(Boolean).map((l) => l.split('\t'));
const doc = (i) => {
  const [name, version, downloads, summary] = rows[i % rows.length];
  return `{"id":${i},"name":${JSON.stringify(`${name}-${i}`)},"version":${JSON.stringify(version)},"downloads":${Number(downloads) || 0},"summary":${JSON.stringify(summary ?? '')},"big":1844674407370955${String(i % 10000).padStart(4, '0')},"ratio":${i % 7}.10,"tags":[${JSON.stringify(name.slice(0, 3))},"pkg"]}`;
};
const base = mkdtempSync(join(tmpdir(), 'skein-dump-figures-'));
const headers = { 'content-type': 'application/x-ndjson' };
async function waitIdle(url) {
  for (;;) {
    const r = await (await fetch(`${url}/tasks?statuses=enqueued,processing&limit=1`)).json();
    if (r.total === 0) return;
    await new Promise((s) => setTimeout(s, 100));
  }
}
try {
  const a = await startServer({ dbPath: join(base, 'a'), httpAddr: '127.0.0.1:0', workers, dumpDir: join(base, 'dumps') });
  const url = `http://127.0.0.1:${a.port}`;
  let t0 = Date.now();
  for (let from = 0; from < total; from += 50_000) {
    const body = Array.from({ length: Math.min(50_000, total - from) }, (_, k) => doc(from + k)).join('\n');
    const r = await fetch(`${url}/indexes/npm/documents`, { method: 'POST', headers, body });
    if (r.status !== 202) throw new Error(await r.text());
  }
  await waitIdle(url);
  const loadMs = Date.now() - t0;
  console.log(`NDJSON load: ${total} documents in ${loadMs} ms = ${Math.round(total / loadMs * 1000)} docs/s`);
  t0 = Date.now();
  const task = await (await fetch(`${url}/dumps`, { method: 'POST' })).json();
  let done;
  for (;;) {
    done = await (await fetch(`${url}/tasks/${task.taskUid}`)).json();
    if (done.status === 'succeeded' || done.status === 'failed') break;
    await new Promise((s) => setTimeout(s, 50));
  }
  const dumpMs = Date.now() - t0;
  const file = join(base, 'dumps', `${done.details.dumpUid}.dump`);
  console.log(`dump: ${done.status} in ${dumpMs} ms (task duration ${done.duration}) = ${Math.round(total / dumpMs * 1000)} docs/s, ${(statSync(file).size / 1e6).toFixed(1)} MB`);
  await a.close();
  t0 = Date.now();
  const b = await startServer({ dbPath: join(base, 'b'), httpAddr: '127.0.0.1:0', workers, importDump: file });
  const importMs = Date.now() - t0;
  const stats = await (await fetch(`http://127.0.0.1:${b.port}/indexes/npm/stats`)).json();
  console.log(`import (start with importDump until the server answers, shards built): ${stats.numberOfDocuments} documents in ${importMs} ms = ${Math.round(total / importMs * 1000)} docs/s`);
  await b.close();
} finally {
  rmSync(base, { recursive: true, force: true });
}
