// 1,000 queries from npm.tsv words (every 200th row: a word of its summary, two words, a prefix), fixed.
import { readFileSync, writeFileSync } from 'node:fs';
const lines = readFileSync('/work/.library/env/packages/npm.tsv', 'utf8').split('\n').slice(1).filter((l) => l.length > 0);
const out = [];
for (let i = 0; out.length < 1000 && i < lines.length; i += 200) {
  const words = (lines[i].split('\t')[3] ?? '').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
  if (words.length === 0) continue;
  const kind = out.length % 3;
  if (kind === 0) out.push(words[0]);
  else if (kind === 1) out.push(words.slice(0, 2).join(' '));
  else out.push(words[0].slice(0, Math.max(2, words[0].length - 2)));
}
writeFileSync('/tmp/npmdata/queries.txt', out.join('\n') + '\n');
console.log(out.length);
