// CPU per search by chunks of the npm workload's query list on one ShardEngine right after its load
// (no threads, no HTTP): how much the first chunks (the bench's first window: ~60,000 searches) pay
// over the later ones, and where (cold caches, JIT, the load's garbage).
//   node dist/bench/cold-curve.js [documents=100000] [queries=120000] [chunk=10000]
// (A text warm-up of the worker tried against it: DECISIONS, session 30, commit 17a2645.) JIT_FIRST=1: the same load and the last JIT_QUERIES (20,000) queries
// first on another engine, then dropped (JIT_DOCS: of its first documents only): what is left is not JIT.
// OTHER=N: N searches of another query list drawn like the bench's (seed + 1) on the same engine first:
// the chunks then cost what unseen queries cost on a warm engine (what is left of the first window's
// excess is the workload's, not the cold start's). Each chunk's CPU is split between the main thread and
// the process's other threads (V8's: concurrent TurboFan compiles, GC helpers; `usPerSearchOther`).
// SHORT_PREFIXES=queried|all|topK (experiment, session 34): before the chunks, short prefixes get their kept
// union and rank / position lists (postings/prefix-postings.ts) as a first search of each would make them
// (derive + listsOfTerm), timed apart in warmMs: `queried` the 2- and 3-letter last words of the query list
// (an oracle: the most a pre-made set could save), `all` every 2- and 3-letter prefix of the lexicon, `topK`
// the K with the most postings. SHORT_PREFIXES_DETAIL=1 prints their cost by length and the costliest.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [documentsArg = '100000', queriesArg = '120000', chunkArg = '10000'] = process.argv.slice(2);
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const queries = buildRealQueries(dataset, workload.queries as never).slice(0, Number(queriesArg));
const chunk = Number(chunkArg);
function* documents(): Generator<[number, JsonDocument]> {
  for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq, dataset.documentAt(seq) as JsonDocument];
}
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** CPU ms of the main thread (Linux /proc, 10 ms ticks; 0 elsewhere). */
const mainThreadMs = (): number => {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
};
const hasThreadTimes = (() => {
  try {
    return readdirSync('/proc/self/task').length > 0;
  } catch {
    return false;
  }
})();
let engine = new ShardEngine(0, 1);
if (process.env.JIT_FIRST === '1') {
  // Experiment: the same load and queries once before, on another engine (dropped): what is left is not JIT.
  const jitDocs = Number(process.env.JIT_DOCS ?? dataset.spec.documents);
  engine.loadIndex('npm', 1, workload.index.settings, [...documents()].slice(0, jitDocs));
  engine.prepareForSearch();
  for (const query of queries.slice(queries.length - Number(process.env.JIT_QUERIES ?? 20_000))) engine.search({ indexUid: 'npm', shards: [0], q: query.q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
  engine = new ShardEngine(0, 1);
}
let at = cpuMs();
engine.loadIndex('npm', 1, workload.index.settings, documents());
const loadMs = cpuMs() - at;
at = cpuMs();
engine.prepareForSearch();
const prepareMs = cpuMs() - at;
// WARM=N (experiment): N searches made from the index's own documents (a word, two words in a row, a
// prefix of 2-4 letters; every 7th document), run before the chunks: what a warm-up during indexing could buy.
let warmMs = 0;
const warmCount = Number(process.env.WARM ?? 0);
if (warmCount > 0) {
  at = cpuMs();
  const wordsOf = (doc: Record<string, unknown>) => `${doc['name'] ?? ''} ${doc['summary'] ?? ''}`.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1);
  for (let k = 0; k < warmCount; k++) {
    const words = wordsOf(dataset.documentAt((k * 7) % dataset.spec.documents) as Record<string, unknown>);
    if (words.length === 0) continue;
    const w = words[k % words.length]!;
    const q = k % 3 === 0 ? w : k % 3 === 1 ? words.slice(k % words.length, (k % words.length) + 2).join(' ') : w.slice(0, 2 + (k % 3));
    engine.search({ indexUid: 'npm', shards: [0], q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
  }
  warmMs = cpuMs() - at;
}
// PREFIXES=L (experiment): every prefix of 1..L letters of the lexicon's words derived once before the chunks (as a last query word).
const prefixLength = Number(process.env.PREFIXES ?? 0);
if (prefixLength > 0) {
  at = cpuMs();
  const shard = engine.shard('npm', 0);
  const prefixes = new Set<string>();
  for (const list of shard.vocabulary.lexicon.lists()) for (const word of list) for (let l = 1; l <= prefixLength && l < word.length; l++) prefixes.add(word.slice(0, l));
  for (const prefix of prefixes) shard.derive(prefix, true, 0);
  warmMs += cpuMs() - at;
  console.error(`derived ${prefixes.size} prefixes`);
}
// SHORT_PREFIXES=all|queried (experiment): every 2- and 3-letter prefix of the lexicon's words (or only those the
// query list ends with) gets its kept union and rank / position lists first (postings/prefix-postings.ts), timed apart.
const shortPrefixes = process.env.SHORT_PREFIXES;
if (shortPrefixes !== undefined) {
  at = cpuMs();
  const shard = engine.shard('npm', 0);
  const prefixes = new Set<string>();
  if (shortPrefixes === 'queried') {
    for (const query of queries) {
      const last = query.q.trim().toLowerCase().split(/\s+/).pop() ?? '';
      if (last.length === 2 || last.length === 3) prefixes.add(last);
    }
  } else if (shortPrefixes.startsWith('top')) {
    // topK: the K 2- and 3-letter prefixes of the most postings (their words' documents summed), as a build could choose them.
    const postings = new Map<string, number>();
    for (const list of shard.vocabulary.lexicon.lists()) {
      for (const word of list) {
        const wordId = shard.vocabulary.idOf(word);
        if (wordId === undefined) continue;
        const size = shard.vocabulary.docs(wordId).size;
        for (const l of [2, 3]) if (l < word.length) postings.set(word.slice(0, l), (postings.get(word.slice(0, l)) ?? 0) + size);
      }
    }
    for (const [prefix] of [...postings].sort((a, b) => b[1] - a[1]).slice(0, Number(shortPrefixes.slice(3)))) prefixes.add(prefix);
  } else for (const list of shard.vocabulary.lexicon.lists()) for (const word of list) for (const l of [2, 3]) if (l < word.length) prefixes.add(word.slice(0, l));
  console.error(JSON.stringify({ phase: 'short prefixes', monoUs: Number(process.hrtime.bigint() / 1000n) }));
  const detail = process.env.SHORT_PREFIXES_DETAIL === '1';
  // Per prefix: its text, the CPU µs of its derivation, and with its rank / position lists (detail only: cpuUsage costs).
  const costs: [string, number, number][] = [];
  const usSince = (from: NodeJS.CpuUsage | undefined) => {
    if (from === undefined) return 0;
    const { user, system } = process.cpuUsage(from);
    return user + system;
  };
  for (const prefix of prefixes) {
    const from = detail ? process.cpuUsage() : undefined;
    const derivations = shard.derive(prefix, true, 0);
    const derived = usSince(from);
    shard.prefixRanks.listsOfTerm(derivations, shard.rankPostings);
    shard.prefixPositions.listsOfTerm(derivations, shard.positionPostings);
    if (detail) costs.push([prefix, derived, usSince(from)]);
  }
  if (detail) {
    costs.sort((a, b) => b[2] - a[2]);
    const sum = (rows: typeof costs, k: 1 | 2) => Math.round(rows.reduce((s, r) => s + r[k], 0) / 1000);
    for (const length of [2, 3]) {
      const rows = costs.filter((r) => r[0].length === length);
      console.error(`length ${length}: ${rows.length} prefixes, derive ${sum(rows, 1)} ms, with lists ${sum(rows, 2)} ms`);
    }
    for (const top of [50, 100, 200, 400]) console.error(`top ${top}: ${sum(costs.slice(0, top), 2)} ms`);
    console.error(costs.slice(0, 15).map((r) => `${r[0]} ${r[1]}/${r[2]}`).join(', '));
  }
  warmMs += cpuMs() - at;
  console.error(`short prefixes: ${prefixes.size}, made ${shard.prefixDocs.prefixesMade} / ${shard.prefixRanks.prefixesMade} / ${shard.prefixPositions.prefixesMade}`);
}
const otherCount = Number(process.env.OTHER ?? 0);
let otherMs = 0;
if (otherCount > 0) {
  const otherDataset = Object.assign(Object.create(dataset) as typeof dataset, { spec: { ...dataset.spec, seed: dataset.spec.seed + 1 } });
  const others = buildRealQueries(otherDataset, { ...workload.queries, count: otherCount } as never);
  at = cpuMs();
  for (const query of others) engine.search({ indexUid: 'npm', shards: [0], q: query.q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
  otherMs = cpuMs() - at;
}
const perChunk: number[] = [];
const perChunkOther: number[] = [];
for (let start = 0; start < queries.length; start += chunk) {
  // Chunk starts on the monotonic clock (µs, as CPU profiles stamp samples), on stderr: cut a --cpu-prof profile by chunk.
  console.error(JSON.stringify({ phase: `from ${start}`, monoUs: Number(process.hrtime.bigint() / 1000n) }));
  at = cpuMs();
  const mainAt = mainThreadMs();
  for (const query of queries.slice(start, start + chunk)) {
    engine.search({ indexUid: 'npm', shards: [0], q: query.q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
  }
  const searches = Math.min(chunk, queries.length - start);
  const all = cpuMs() - at;
  perChunk.push(Math.round((all * 1000) / searches));
  if (hasThreadTimes) perChunkOther.push(Math.max(0, Math.round(((all - (mainThreadMs() - mainAt)) * 1000) / searches)));
}
console.error(JSON.stringify({ phase: 'end', monoUs: Number(process.hrtime.bigint() / 1000n) }));
console.log(JSON.stringify({ documents: dataset.spec.documents, loadMs: Math.round(loadMs), prepareMs: Math.round(prepareMs), warmMs: Math.round(warmMs),
  ...(otherCount > 0 ? { otherQueries: otherCount, otherMs: Math.round(otherMs) } : {}), chunk, usPerSearch: perChunk, ...(hasThreadTimes ? { usPerSearchOther: perChunkOther } : {}) }));
