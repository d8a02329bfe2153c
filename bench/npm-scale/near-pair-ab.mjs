// The near-pair build alone (built dist), its fill replayed from the counting pass's recording or by a
// second visit of the documents (NearPairPostings.replayPairPass), alternating in one process over the
// same shard: the first DOCS rows of FILE loaded in write batches of 10,000, then ROUNDS builds of each
// variant (order swapped every round); CPU ms per build (process.cpuUsage: this thread and V8's helpers),
// medians and minima, and the load average.
//   node bench/npm-scale/near-pair-ab.mjs FILE.ndjson [docs=100000] [rounds=6]
import { readFileSync } from 'node:fs';
import { ShardEngine } from '../../dist/src/shard/shard-engine.js';
import { finishSteps } from '../../dist/src/shard/sliced-jobs.js';

const [file, docsArg, roundsArg] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, Number(docsArg ?? 100_000));
const engine = new ShardEngine(0, 1);
engine.loadIndex('npm', 1, { searchableAttributes: ['name', 'summary'] }, []);
for (let s = 0; s < lines.length; s += 10_000) {
  engine.writeBatch('npm', 0, lines.slice(s, s + 10_000).map((document, j) => ({ kind: 'upsert', docId: s + j, document })), () => {});
}
const pairs = engine.shard('npm', 0).nearPairs;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`${lines.length} documents; load ${load()}`);
const times = { replayed: [], visitedTwice: [] };
for (let round = 0; round < Number(roundsArg ?? 6); round++) {
  const order = round % 2 === 0 ? ['replayed', 'visitedTwice'] : ['visitedTwice', 'replayed'];
  for (const variant of order) {
    pairs.replayPairPass = variant === 'replayed';
    const c0 = process.cpuUsage();
    finishSteps(pairs.buildSteps());
    const c = process.cpuUsage(c0);
    times[variant].push(Math.round((c.user + c.system) / 1000));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [variant, xs] of Object.entries(times)) console.log(`${variant.padEnd(13)} median ${median(xs)} ms, min ${Math.min(...xs)} (${xs.join(' ')})`);
console.log(`load ${load()}`);
