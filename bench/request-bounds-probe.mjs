// Issue 18 figures (not part of `npm run bench`): `node bench/request-bounds-probe.mjs <checkout> [N]`
// after `npm run build` in <checkout> (tsc alone leaves out native/'s patched uWS). Starts <checkout>/dist/src/cli.js as a child process
// (a blocked front thread must not block this client), loads 200 documents of 600 fields, then times:
// documents/fetch with 65,536 and 1,000 `fields` (with /health probed meanwhile), a settings update of
// N (default 30,000) attributes in each of searchable/filterable/sortable/displayed (with searches of
// another index probed meanwhile), and a search with 1,000 attributesToRetrieve/Highlight.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
const port = 17000 + Math.floor(Math.random() * 1000);
const child = spawn('node', [process.argv[2] + '/dist/src/cli.js', '--db-path', mkdtempSync(join(tmpdir(), 'skein-bounds-')), '--http-addr', `127.0.0.1:${port}`, '--workers', '1', '--shards-per-index', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((done) => child.stdout.on('data', (d) => { if (String(d).includes('listening')) done(); }));
const base = `http://127.0.0.1:${port}`;
const req = async (m, p, body) => { const t0 = performance.now(); const r = await fetch(base + p, { method: m, headers: { 'content-type': 'application/json' }, body }); const text = await r.text(); return { status: r.status, text, ms: performance.now() - t0 }; };
const wait = async (uid) => { for (;;) { const r = JSON.parse((await req('GET', `/tasks/${uid}`)).text); if (['succeeded', 'failed'].includes(r.status)) return r; await new Promise((d) => setTimeout(d, 20)); } };
const docs = Array.from({ length: 200 }, (_, i) => { const d = { id: i, title: `hello ${i}` }; for (let k = 0; k < 300; k++) d[`f${k}`] = { v: k, w: `w${k}` }; return d; });
await wait(JSON.parse((await req('POST', '/indexes/x/documents', JSON.stringify(docs))).text).taskUid);
await wait(JSON.parse((await req('POST', '/indexes/other/documents', JSON.stringify([{ id: 1, t: 'hello' }]))).text).taskUid);
async function during(label, work, probe) {
  let worst = 0; let n = 0; let stop = false;
  const loop = (async () => { while (!stop) { const r = await probe(); worst = Math.max(worst, r.ms); n++; await new Promise((d) => setTimeout(d, 20)); } })();
  await new Promise((d) => setTimeout(d, 50));
  const t0 = performance.now(); const out = await work(); const ms = performance.now() - t0;
  stop = true; await loop;
  console.log(`${label}: ${ms.toFixed(0)} ms (${out}); concurrent probe worst ${worst.toFixed(1)} ms over ${n}`);
}
const fields = Array.from({ length: 65536 }, (_, i) => `f${i}.v`);
await during('fetch 65,536 fields, limit 20', async () => { const r = await req('POST', '/indexes/x/documents/fetch', JSON.stringify({ fields, limit: 20 })); return `${r.status} ${r.text.length} B`; }, () => req('GET', '/health'));
const N = Number(process.argv[3] ?? 30000);
await during('fetch 1,000 fields, limit 20', async () => { const r = await req('POST', '/indexes/x/documents/fetch', JSON.stringify({ fields: fields.slice(0, 1000), limit: 20 })); return `${r.status} ${r.text.length} B`; }, () => req('GET', '/health'));
const names = Array.from({ length: N }, (_, i) => `f${i}.v`);
await during(`settings ${N} attrs x4`, async () => {
  const r = await req('PATCH', '/indexes/x/settings', JSON.stringify({ searchableAttributes: names, filterableAttributes: names, sortableAttributes: names, displayedAttributes: names }));
  if (r.status !== 202) return `${r.status} ${r.text.slice(0, 160)}`;
  const task = await wait(JSON.parse(r.text).taskUid); return `${task.status} ${task.duration} ${JSON.stringify(task.error)?.slice(0, 200)}`;
}, () => req('POST', '/indexes/other/search', JSON.stringify({ q: 'hello' })));
await during('search x with 1,000 attributesToRetrieve/Highlight', async () => { const r = await req('POST', '/indexes/x/search', JSON.stringify({ q: 'hello', limit: 200, attributesToRetrieve: names.slice(0, 1000), attributesToHighlight: names.slice(0, 1000) })); return `${r.status} ${r.text.length} B ${r.text.slice(0, 100)}`; }, () => req('GET', '/health'));
child.kill('SIGTERM');

