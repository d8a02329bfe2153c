// Self time by function (and by file) from a .cpuprofile: top N.
import { readFileSync } from 'node:fs';
const [file, n = 30] = [process.argv[2], Number(process.argv[3] ?? 30)];
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((node) => [node.id, node]));
const self = new Map();
const dt = prof.timeDeltas; let total = 0;
for (let k = 0; k < prof.samples.length; k++) {
  const node = byId.get(prof.samples[k]); const d = dt[k] ?? 0; total += d;
  const f = node.callFrame; const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + d);
}
// inclusive by function name
const parent = new Map(); for (const node of prof.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
const incl = new Map();
const counts = new Map(); for (let k = 0; k < prof.samples.length; k++) counts.set(prof.samples[k], (counts.get(prof.samples[k]) ?? 0) + (dt[k] ?? 0));
for (const [id, d] of counts) { const seen = new Set(); let cur = id; while (cur !== undefined) { const f = byId.get(cur).callFrame; const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`; if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) ?? 0) + d); } cur = parent.get(cur); } }
console.log(`total ${(total / 1000).toFixed(0)} ms`);
console.log('--- self');
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${(100 * v / total).toFixed(1)}% ${k}`);
console.log('--- inclusive');
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${(100 * v / total).toFixed(1)}% ${k}`);
