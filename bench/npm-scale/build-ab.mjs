// The pre-commit build's structures, A/B in one process: each built checkout (DIR: its dist) loads the
// first DOCS rows of FILE into an in-process shard, then every round builds each derived structure
// and the lexicon's deletion index again, the checkouts alternating; medians (and minima) of CPU ms.
//   node bench/npm-scale/build-ab.mjs FILE.ndjson DOCS ROUNDS DIR_A [DIR_B ...]
import { readFileSync } from 'node:fs';
const [file, docsArg, roundsArg, ...dirs] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, Number(docsArg));
const setups = [];
for (const dir of dirs) {
  const { ShardEngine } = await import(`${dir}/dist/src/shard/shard-engine.js`);
  const { finishSteps } = await import(`${dir}/dist/src/shard/sliced-jobs.js`);
  const { DeletionIndex } = await import(`${dir}/dist/src/shard/words/deletion-index.js`);
  const engine = new ShardEngine(0, 1);
  engine.loadIndex('npm', 1, { searchableAttributes: ['name', 'summary'] }, []);
  for (let s = 0; s < lines.length; s += 10000) engine.writeBatch('npm', 0, lines.slice(s, s + 10000).map((document, j) => ({ kind: 'upsert', docId: s + j, document })), () => {});
  const shard = engine.shard('npm', 0);
  shard.prepareForSearch();
  const names = ['rank', 'position', 'nearPairs', 'soleWordFields', 'fieldStartPairs', 'prefixDocs', 'prefixRanks', 'prefixPositions'];
  const jobs = shard.derived.map((s, k) => [names[k], () => finishSteps(s.buildSteps())]);
  const lists = shard.vocabulary.lexicon.lists().map((l) => l.slice());
  jobs.push(['deletionIndex', () => finishSteps(DeletionIndex.build(lists, () => {}))]);
  setups.push({ dir, jobs });
}
const cpu = (c0) => { const c = process.cpuUsage(c0); return (c.user + c.system) / 1000; };
const times = setups.map(() => new Map());
for (let round = 0; round < Number(roundsArg); round++) {
  const order = round % 2 ? [...setups.keys()].reverse() : [...setups.keys()];
  for (const i of order) for (const [name, job] of setups[i].jobs) {
    const c0 = process.cpuUsage(); job(); const t = cpu(c0);
    (times[i].get(name) ?? times[i].set(name, []).get(name)).push(t);
  }
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name] of setups[0].jobs) console.log(name.padEnd(16), setups.map((_, i) => `${med(times[i].get(name)).toFixed(0).padStart(5)} (min ${Math.min(...times[i].get(name)).toFixed(0)})`).join('  '));
console.log('load', readFileSync('/proc/loadavg', 'utf8').slice(0, 15));
