// End-to-end load, built checkouts interleaved (A B, then B A, ...): for each, a fresh server
// (/tmp/npmdata/ab-db-LABEL), the npm index with the bench's settings, every payload of BATCH rows POSTed
// (each awaiting its 202), the last task polled (25 ms) until succeeded. Prints the ready time, the
// server's CPU (utime + stime) and per thread (by thread id, those over 0.1 s), and the load average.
//   node bench/npm-scale/ab-load.mjs FILE.ndjson BATCH json|ndjson ROUNDS DIR_A [DIR_B ...]
//   (PROF=DIR: --cpu-prof of every thread; SERVER_ARGS="...": more server flags; NODE_FLAGS="...": node's own, e.g. --single-threaded)
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
const [file, batchArg, format, roundsArg, ...dirs] = process.argv.slice(2);
const batch = Number(batchArg);
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
const bodies = [];
for (let i = 0; i < lines.length; i += batch) {
  const part = lines.slice(i, i + batch);
  bodies.push(Buffer.from(format === 'json' ? `[${part.join(',')}]` : part.join('\n') + '\n'));
}
const ctype = format === 'json' ? 'application/json' : 'application/x-ndjson';
const clk = 100;
function cpuOf(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / clk;
}
import { readdirSync } from 'node:fs';
function threadCpu(pid) {
  const out = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try { const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' '); out.push([Number(tid), (Number(f[11]) + Number(f[12])) / clk]); } catch {}
  }
  return new Map(out);
}
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
let port = 27000 + Math.floor(Math.random() * 1000);
async function one(dir, label) {
  const db = `/tmp/npmdata/ab-db-${label}`;
  rmSync(db, { recursive: true, force: true });
  port++;
  const url = `http://127.0.0.1:${port}`;
  const extra = [...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : []), ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}/${label}`] : [])];
  const child = spawn('node', [...extra, `${dir}/dist/src/cli.js`, '--db-path', db, '--http-addr', `127.0.0.1:${port}`, ...(process.env.SERVER_ARGS ? process.env.SERVER_ARGS.split(' ') : [])], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) { try { if ((await fetch(`${url}/health`)).ok) break; } catch {} await new Promise((r) => setTimeout(r, 50)); }
  const wait = async (uid) => { for (;;) { const t = await (await fetch(`${url}/tasks/${uid}`)).json(); if (t.status === 'succeeded') return t; if (t.status === 'failed') throw new Error(JSON.stringify(t)); await new Promise((r) => setTimeout(r, 25)); } };
  let r = await (await fetch(`${url}/indexes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uid: 'npm', primaryKey: 'id' }) })).json();
  await wait(r.taskUid);
  r = await (await fetch(`${url}/indexes/npm/settings`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ searchableAttributes: ['name', 'summary'], displayedAttributes: ['*'] }) })).json();
  await wait(r.taskUid);
  await new Promise((r) => setTimeout(r, 300));
  const load0 = loadavg();
  const cpu0 = cpuOf(child.pid);
  const th0 = threadCpu(child.pid);
  const t0 = performance.now();
  let last;
  for (const body of bodies) {
    const res = await fetch(`${url}/indexes/npm/documents`, { method: 'POST', headers: { 'content-type': ctype }, body });
    if (res.status !== 202) throw new Error(await res.text());
    last = (await res.json()).taskUid;
  }
  const posted = performance.now();
  await wait(last);
  const done = performance.now();
  const cpu1 = cpuOf(child.pid);
  const th1 = threadCpu(child.pid);
  const perThread = [...th1].map(([tid, c]) => [tid, c - (th0.get(tid) ?? 0)]).filter(([, c]) => c >= 0.1).sort((a, b) => a[0] - b[0]).map(([, c]) => c.toFixed(2)).join(' ');
  const failed = await (await fetch(`${url}/tasks?statuses=failed`)).json();
  const stats = await (await fetch(`${url}/indexes/npm/stats`)).json();
  child.kill('SIGINT');
  await new Promise((r) => child.on('exit', r));
  rmSync(db, { recursive: true, force: true });
  const s = (done - t0) / 1000;
  console.log(JSON.stringify({ label, posted: ((posted - t0) / 1000).toFixed(2), ready: s.toFixed(2), docsPerS: Math.round(lines.length / s), cpuS: (cpu1 - cpu0).toFixed(2), threads: perThread, docs: stats.numberOfDocuments, failed: failed.total, load: `${load0} -> ${loadavg()}` }));
}
mkdirSync('/tmp/npmdata', { recursive: true });
for (let round = 0; round < Number(roundsArg); round++) {
  const order = round % 2 === 0 ? dirs : [...dirs].reverse();
  for (const dir of order) await one(dir, `${dirs.indexOf(dir) === 0 ? 'A' : 'B' + dirs.indexOf(dir)}-${round}`);
}
