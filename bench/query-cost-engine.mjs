// usage: node bench/query-cost-engine.mjs TREE [documents] [queries]: CPU time per search on one shard (ShardIndex
// of TREE's dist) over the first `documents` real npm packages (npm.tsv: name + summary), for `queries`
// unique queries of 1, 2 and 3 words drawn from the summaries (seeded), each query searched once (cold
// derivations, as unique queries are), the best and the median of 5 passes over fresh shards (the machine is shared: the best is the steadier figure).
import { readFileSync } from 'node:fs';
const [tree, documentsArg = '20000', queriesArg = '600'] = process.argv.slice(2);
const { ShardIndex } = await import(`${tree}/dist/src/shard/shard-index.js`);
const { compileIndexConfig } = await import(`${tree}/dist/src/shard/index-config.js`);
const lines = readFileSync('/work/.library/env/packages/npm.tsv', 'utf8').split('\n').slice(1, 1 + Number(documentsArg)).filter(Boolean);
const docs = lines.map((line) => { const [name, , , summary] = line.split('\t'); return { name, summary: summary ?? '' }; });
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const vocabulary = [...new Set(docs.flatMap((doc) => doc.summary.toLowerCase().split(/[^a-z]+/).filter((word) => word.length > 2)))];
const queries = { 1: [], 2: [], 3: [] };
for (const size of [1, 2, 3]) for (let k = 0; k < Number(queriesArg); k++) queries[size].push(Array.from({ length: size }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' '));
const results = { 1: [], 2: [], 3: [], repeated: [] };
// Warm: the first 100 two-word queries, each searched again 5 times (cached derivations, as repeated queries are).
const repeated = queries[2].slice(0, 100);
for (let pass = 0; pass < 5; pass++) {
  const shard = new ShardIndex(compileIndexConfig(null));
  docs.forEach((doc, id) => shard.upsert(id, doc));
  shard.flushWrites?.();
  shard.prepareForSearch?.();
  shard.search({ q: 'warm up', hitsWanted: 20, matchingStrategy: 'last' });
  for (const size of [1, 2, 3]) {
    const started = process.cpuUsage();
    for (const q of queries[size]) shard.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
    const used = process.cpuUsage(started);
    results[size].push((used.user + used.system) / queries[size].length);
  }
  const started = process.cpuUsage();
  for (let round = 0; round < 5; round++) for (const q of repeated) shard.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
  const used = process.cpuUsage(started);
  results.repeated.push((used.user + used.system) / (5 * repeated.length));
}
for (const size of [1, 2, 3, 'repeated']) {
  const sorted = results[size].sort((a, b) => a - b);
  console.log(`${tree} ${size === 'repeated' ? 'repeated 2-word' : `${size}-word unique`} queries: best ${Math.round(sorted[0])}, median ${Math.round(sorted[2])} µs CPU per search (passes ${sorted.map(Math.round).join(', ')})`);
}
