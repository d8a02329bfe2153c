// npm.tsv rows as NDJSON documents (the bench's shape: id, name, summary, version, downloads);
// `copies` > 1 repeats every row with distinct ids (the 1M-document set is npm rows replicated).
import { readFileSync, writeFileSync } from 'node:fs';
const [limit, copies, out] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const lines = readFileSync('/work/.library/env/packages/npm.tsv', 'utf8').split('\n').slice(1).filter((l) => l.length > 0);
const rows = lines.map((l) => { const [name, version, downloads, summary] = l.split('\t'); return { name, version, downloads: Number(downloads), summary: summary ?? '' }; });
const parts = [];
let id = 0;
outer: for (let c = 0; c < copies; c++) for (const row of rows) {
  if (id >= limit) break outer;
  parts.push(JSON.stringify({ id: id++, name: row.name, summary: row.summary, version: row.version, downloads: row.downloads }));
}
writeFileSync(out, parts.join('\n') + '\n');
console.log(out, id);
