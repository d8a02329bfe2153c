// Cost of ShardIndex indexing and search on generated documents, without threads:
//   node dist/bench/engine-search.js [documentCount=100000] [shardCount=1]
// Per query: the first (cold) run, then after 10 warm-up runs the median and mean of 30 runs.
import { performance } from 'node:perf_hooks';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';

const documentCount = Number(process.argv[2] ?? 100_000);
const shardCount = Number(process.argv[3] ?? 1);

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ten', 'sul', 'bor', 'vi', 'an', 'del', 'fre', 'gor', 'hu', 'is', 'jon', 'ku', 'ly', 'mor', 'ne', 'ot'];
const vocabulary = Array.from({ length: 60_000 }, () => {
  const length = 2 + Math.floor(random() * 3);
  let word = '';
  for (let k = 0; k < length; k++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
  return word;
});
/** Zipf-like: low ranks are much more frequent. */
const pickWord = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!;
const text = (min: number, max: number) => Array.from({ length: min + Math.floor(random() * (max - min)) }, pickWord).join(' ');

const documents: [number, JsonDocument][] = [];
for (let i = 0; i < documentCount; i++) documents.push([i, { id: i, title: text(2, 6), overview: text(10, 30), genres: [pickWord(), pickWord()] }]);

global.gc?.();
const before = process.memoryUsage();
let start = performance.now();
const engine = new ShardEngine(0, 1);
engine.loadIndex('bench', shardCount, null, documents.map(([seq, document]) => [seq * shardCount + (seq % shardCount), document]));
const indexMs = performance.now() - start;
global.gc?.();
const after = process.memoryUsage();
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
console.log(`vocabulary of ${new Set(vocabulary).size} distinct words`);
console.log(`indexed ${documentCount} docs in ${shardCount} shard(s): ${(indexMs / 1000).toFixed(1)} s; rss ${mib(before.rss)} -> ${mib(after.rss)} (+${mib(after.rss - before.rss)}), JS heap +${mib(after.heapUsed - before.heapUsed)}, array buffers +${mib(after.arrayBuffers - before.arrayBuffers)}`);

const common = vocabulary[0]!;
const second = vocabulary[1]!;
const rare = vocabulary[50_000]!;
const long = vocabulary.find((word) => word.length >= 9)!;
const queries: [string, string | null][] = [
  ['placeholder', null],
  ['common word', common],
  ['rare word', rare],
  ['two common words', `${common} ${second}`],
  ['short prefix', common.slice(0, 2)],
  ['typo (1)', `${long.slice(0, 3)}x${long.slice(4)}`],
  ['four words', `${vocabulary[3]} ${vocabulary[10]} ${vocabulary[100]} ${vocabulary[1000]}`],
  ['phrase', `"${common} ${second}"`],
  ['ten words', vocabulary.slice(20, 30).join(' ')],
];
for (const [label, q] of queries) {
  const search = () => engine.search({ indexUid: 'bench', shards: [...Array(shardCount).keys()], q, hitsWanted: 20, matchingStrategy: 'last' });
  start = performance.now();
  const first = search();
  const coldMs = performance.now() - start;
  // Warm-up runs first: the JIT's tiers would otherwise dominate the mean of a few runs.
  for (let k = 0; k < 10; k++) search();
  const times: number[] = [];
  for (let k = 0; k < 30; k++) {
    start = performance.now();
    search();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[times.length >> 1]!;
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  console.log(`${label.padEnd(18)} candidates ${String(first.candidates).padStart(7)}  first ${coldMs.toFixed(1).padStart(7)} ms  then median ${median.toFixed(2).padStart(7)} ms, mean ${mean.toFixed(2).padStart(7)} ms`);
}
