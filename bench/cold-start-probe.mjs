#!/usr/bin/env node
// Diagnostic probe (issue 19, warm-perf): start a server, bulk-load N real npm packages
// ({id, name, summary} from /work/.library/env/packages/npm.tsv), wait for the last task, then at once
// run consecutive wrk windows (-t1 -c64 -d10s) of GET searches and print req/s and p99 per window.
// Not the bench (bench/README.md); a small separate script.
//   node bench/cold-start-probe.mjs [mode] [docs] [windows] [port] [--md5 FILE] [-- server args...]
// PROBE_WINDOW: window length for wrk -d (default 10s); PROBE_CONNECTIONS: wrk -c (default 64).
// modes: cycle    2,000 mostly unique queries (words, 2-3 words, prefixes, one-typo, rare), cycled
//        unique   every query unique (a list of 200,000, each window going on where the last stopped)
//        repeated 20 queries cycled
//        mixed    cycle, plus a 1,000-document batch every second during the windows
// --md5 FILE: instead of wrk, send every query of the 2,000 list once and write "md5 of the answers" lines to FILE.
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const serverExtra = dash >= 0 ? argv.slice(dash + 1) : [];
const own = dash >= 0 ? argv.slice(0, dash) : argv;
const md5At = own.indexOf('--md5');
const md5File = md5At >= 0 ? own.splice(md5At, 2)[1] : null;
const [mode = 'cycle', docsArg = '100000', windowsArg = '4', portArg = '7931'] = own;
const docCount = Number(docsArg), windows = Number(windowsArg), port = Number(portArg);
const base = `http://127.0.0.1:${port}`;

let seed = 19;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = (a) => a[Math.floor(random() * a.length)];

const lines = readFileSync('/work/.library/env/packages/npm.tsv', 'utf8').split('\n').slice(1).filter(Boolean);
const docs = lines.slice(0, docCount).map((line, id) => {
  const [name, , , summary] = line.split('\t');
  return { id, name, summary: summary ?? '' };
});
const extraDocs = lines.slice(docCount, docCount + 200_000).map((line, i) => {
  const [name, , , summary] = line.split('\t');
  return { id: docCount + i, name, summary: summary ?? '' };
});

// Query lists from the documents' own words.
const wordsOf = (d) => `${d.name} ${d.summary}`.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1);
const freq = new Map();
for (const d of docs) for (const w of new Set(wordsOf(d))) freq.set(w, (freq.get(w) ?? 0) + 1);
const rare = [...freq].filter(([w, n]) => n >= 2 && n <= 5 && w.length >= 4).map(([w]) => w);
const letters = 'abcdefghijklmnopqrstuvwxyz';
function typo(w) {
  const i = 1 + Math.floor(random() * (w.length - 1));
  const k = Math.floor(random() * 3);
  if (k === 0) return w.slice(0, i) + w.slice(i + 1);
  if (k === 1) return w.slice(0, i) + pick(letters) + w.slice(i + 1);
  return w.slice(0, i) + pick(letters) + w.slice(i);
}
function query() {
  let ws = [];
  while (ws.length === 0) ws = wordsOf(pick(docs));
  const start = Math.floor(random() * ws.length);
  switch (Math.floor(random() * 5)) {
    case 0: return ws[start];
    case 1: return ws.slice(start, start + 2 + Math.floor(random() * 2)).join(' ');
    case 2: { // as-you-type: words then a prefix of the next
      const head = ws.slice(start, start + Math.floor(random() * 2));
      const next = ws[start + head.length] ?? ws[start];
      return [...head, next.slice(0, 1 + Math.floor(random() * Math.min(5, next.length)))].join(' ');
    }
    case 3: { const w = ws.find((x) => x.length >= 5) ?? ws[start]; return w.length >= 5 ? typo(w) : w; }
    default: return pick(rare);
  }
}
const pathOf = (q) => `/indexes/x/search?q=${encodeURIComponent(q)}`;
const cycleList = Array.from({ length: 2000 }, query);
const list = mode === 'unique' ? Array.from({ length: 200_000 }, query)
  : mode === 'repeated' ? cycleList.slice(0, 20) : cycleList;
const work = mkdtempSync(join(tmpdir(), 'cold-probe-'));
writeFileSync(join(work, 'paths.txt'), list.map(pathOf).join('\n') + '\n');

// PROBE_NODE_ARGS: node flags for the server (e.g. --cpu-prof --cpu-prof-dir=DIR); PROBE_SERVER_OUT: a file for the
// server's stdout (e.g. what --trace-gc prints).
const serverOut = process.env.PROBE_SERVER_OUT ? openSync(process.env.PROBE_SERVER_OUT, 'w') : 'ignore';
const server = spawn('node', [...(process.env.PROBE_NODE_ARGS ?? '').split(' ').filter(Boolean), join(root, 'dist/src/cli.js'), '--db-path', join(work, 'db'), '--http-addr', `127.0.0.1:${port}`,
  '--no-analytics', '--log-level', 'off', ...serverExtra], { stdio: ['ignore', serverOut, 'inherit'] });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitTask(uid) {
  for (;;) {
    const t = await (await fetch(`${base}/tasks/${uid}`)).json();
    if (t.status === 'succeeded') return t;
    if (t.status === 'failed' || t.status === 'canceled') throw new Error(JSON.stringify(t));
    await sleep(50);
  }
}
try {
  for (let i = 0; ; i++) {
    try { await fetch(`${base}/health`); break; } catch { if (i === 600) throw new Error('the server did not answer /health within 2 minutes'); await sleep(200); }
  }
  const t0 = Date.now();
  let last;
  for (let i = 0; i < docs.length; i += 10_000) {
    last = await (await fetch(`${base}/indexes/x/documents?primaryKey=id`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(docs.slice(i, i + 10_000)) })).json();
  }
  await waitTask(last.taskUid);
  console.log(`loaded ${docs.length} docs in ${Date.now() - t0} ms; mode ${mode}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (md5File) {
    const out = [];
    for (const q of cycleList) {
      const body = await (await fetch(base + pathOf(q))).json();
      delete body.processingTimeMs;
      out.push(`${createHash('md5').update(JSON.stringify(body)).digest('hex')} ${q}`);
    }
    writeFileSync(md5File, out.join('\n') + '\n');
    console.log(`md5 of all: ${createHash('md5').update(out.join('\n')).digest('hex')}`);
  } else {
    let writer = null, writes = 0;
    if (mode === 'mixed') {
      let next = 0;
      writer = setInterval(() => {
        const batch = extraDocs.slice(next, next + 1000); next += 1000; writes++;
        fetch(`${base}/indexes/x/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) }).catch(() => {});
      }, 1000);
    }
    let offset = 0;
    for (let w = 0; w < windows; w++) {
      const { stdout: out } = await promisify(execFile)('wrk', ['-t1', `-c${process.env.PROBE_CONNECTIONS ?? '64'}`, `-d${process.env.PROBE_WINDOW ?? '10s'}`, '-s', join(root, 'bench/wrk-get-paths.lua'), base, '--', join(work, 'paths.txt'), String(offset)], { encoding: 'utf8' });
      const r = JSON.parse(out.split('WRK_RESULT ')[1]);
      offset += r.requests;
      console.log(`window ${w + 1}: ${(r.requests / (r.durationMicros / 1e6)).toFixed(0)} req/s, p50 ${(r.p50Micros / 1000).toFixed(1)} ms, p99 ${(r.p99Micros / 1000).toFixed(1)} ms, max ${(r.maxMicros / 1000).toFixed(0)} ms, errors ${r.connectErrors + r.readErrors + r.writeErrors + r.statusErrors + r.timeouts}; load average ${loadavg()[0].toFixed(2)}`);
    }
    if (writer) { clearInterval(writer); console.log(`write batches sent: ${writes}`); }
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
