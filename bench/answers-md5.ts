// The md5 of a real server's answers to a seeded list of searches, to show that a refactor of the
// shard leaves every answer IDENTICAL (hit ids and order, _rankingScore, facets, totals; never
// processingTimeMs), plus a rough throughput figure of the same list.
//
//   npx tsc -p tsconfig.json && node dist/bench/answers-md5.js [--rows 20000] [--queries 2000] [--seed 26] [--shards 2] [--workers 1]
//     [--concurrency 8] [--cutoff 60000] [--dump /tmp/answers]   (writes <dump>.cold / .warm: query, answer per line)
//     [--restart]   (the server is closed after indexing and started again on its folder: answers from restored snapshots)
//
// Data: the first `rows` rows of /work/.library/env/packages/npm.tsv (real npm names and summaries).
// Queries: words, two- and three-word queries, prefixes, typos (one edit), some with a filter, a sort,
// facets, an offset, or matchingStrategy "all", all drawn from the loaded text with a seeded PRNG.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../test/http/harness.js';
import { SeededRandom } from './seeded-random.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    queries: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '26' },
    shards: { type: 'string', default: '2' },
    /** Shard worker threads (shards spread over workers: the front chooses split words, protocol/split-choice.ts). */
    workers: { type: 'string', default: '1' },
    tsv: { type: 'string', default: '/work/.library/env/packages/npm.tsv' },
    concurrency: { type: 'string', default: '8' },
    dump: { type: 'string' },
    /** searchCutoffMs (default the server's 1500 ms): a loaded machine may cut cold searches short, which changes answers. */
    cutoff: { type: 'string' },
    restart: { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
const QUERIES = Number(values.queries);
const random = new SeededRandom(Number(values.seed));

interface Row { id: number; name: string; summary: string; downloads: number; band: string }

function loadRows(): Row[] {
  const lines = readFileSync(values.tsv!, 'utf8').split('\n').slice(1, ROWS + 1);
  return lines.map((line, id) => {
    const [name = '', , downloads = '0', summary = ''] = line.split('\t');
    const count = Number(downloads) || 0;
    const band = count >= 100_000 ? 'huge' : count >= 10_000 ? 'big' : count >= 1_000 ? 'mid' : 'small';
    return { id, name, summary, downloads: count, band };
  });
}

function wordsOf(rows: Row[]): string[] {
  const words: string[] = [];
  for (const row of rows) {
    for (const word of `${row.name} ${row.summary}`.toLowerCase().split(/[^a-z0-9]+/)) {
      if (word.length >= 2) words.push(word);
    }
  }
  return words; // with repeats: frequent words are drawn more often
}

function typo(word: string): string {
  const at = random.int(0, word.length - 1);
  const letter = String.fromCharCode(97 + random.int(0, 25));
  switch (random.int(0, 2)) {
    case 0: return word.slice(0, at) + letter + word.slice(at + 1);
    case 1: return word.slice(0, at) + word.slice(at + 1);
    default: return word.slice(0, at) + letter + word.slice(at);
  }
}

function makeQueries(words: string[]): Record<string, unknown>[] {
  const queries: Record<string, unknown>[] = [];
  const longWords = words.filter((word) => word.length >= 5);
  for (let i = 0; i < QUERIES; i++) {
    let q: string;
    switch (random.int(0, 5)) {
      case 0: q = random.pick(words); break;
      case 1: q = `${random.pick(words)} ${random.pick(words)}`; break;
      case 2: q = `${random.pick(words)} ${random.pick(words)} ${random.pick(words)}`; break;
      case 3: { const word = random.pick(words); q = word.slice(0, random.int(1, Math.min(4, word.length))); break; }
      case 4: q = typo(random.pick(longWords)); break;
      default: { const word = random.pick(words); q = `${random.pick(words)} ${word.slice(0, random.int(1, word.length))}`; break; }
    }
    const query: Record<string, unknown> = { q, showRankingScore: true, limit: 20 };
    if (random.chance(0.1)) query.filter = `downloads > ${random.pick([100, 1000, 10_000])}`;
    if (random.chance(0.08)) query.sort = [random.chance(0.5) ? 'downloads:desc' : 'downloads:asc'];
    if (random.chance(0.1)) query.facets = ['band'];
    if (random.chance(0.05)) query.offset = random.int(1, 30);
    if (random.chance(0.05)) query.matchingStrategy = 'all';
    queries.push(query);
  }
  return queries;
}

const rows = loadRows();
const queries = makeQueries(wordsOf(rows));
const dbPath = mkdtempSync(join(tmpdir(), 'skein-answers-'));
let server = await startTestServer({ workers: Number(values.workers), shardsPerIndex: Number(values.shards), dbPath });
try {
  let client = server.client;
  await client.createIndex('npm', 'id');
  await client.run('PATCH', '/indexes/npm/settings', {
    body: {
      searchableAttributes: ['name', 'summary'], filterableAttributes: ['downloads', 'band'], sortableAttributes: ['downloads'],
      ...(values.cutoff ? { searchCutoffMs: Number(values.cutoff) } : {}),
    },
  });
  for (let start = 0; start < rows.length; start += 10_000) {
    await client.addDocuments('npm', rows.slice(start, start + 10_000));
  }
  if (values.restart) {
    // close() saves every shard's snapshot; the new server restores them instead of re-indexing.
    await server.close();
    if (!existsSync(join(dbPath, 'snapshots', 'npm'))) throw new Error('no snapshot saved');
    server = await startTestServer({ workers: Number(values.workers), shardsPerIndex: Number(values.shards), dbPath });
    client = server.client;
  }
  const answers: string[] = new Array(queries.length);
  const run = async () => {
    const concurrency = Number(values.concurrency);
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < queries.length) {
        const at = next++;
        const response = await client.post('/indexes/npm/search', queries[at]);
        if (response.status !== 200) throw new Error(`query ${JSON.stringify(queries[at])}: ${response.status} ${response.text}`);
        const body = response.body;
        answers[at] = JSON.stringify([
          body.hits.map((hit: any) => [hit.id, hit._rankingScore]),
          body.estimatedTotalHits, body.offset, body.limit, body.facetDistribution ?? null, body.facetStats ?? null,
        ]);
      }
    }));
  };
  await run(); // first pass: cold (derivations, pair tables, memos built along the way)
  const cold = createHash('md5').update(answers.join('\n')).digest('hex');
  if (values.dump) writeFileSync(`${values.dump}.cold`, queries.map((query, i) => `${JSON.stringify(query)}\t${answers[i]}`).join('\n'));
  const started = process.hrtime.bigint();
  await run(); // second pass: warm
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const warm = createHash('md5').update(answers.join('\n')).digest('hex');
  if (values.dump) writeFileSync(`${values.dump}.warm`, queries.map((query, i) => `${JSON.stringify(query)}\t${answers[i]}`).join('\n'));
  const hits = answers.reduce((sum, answer) => sum + (answer.startsWith('[[]') ? 0 : 1), 0);
  console.log(JSON.stringify({ rows: rows.length, queries: queries.length, withHits: hits, md5Cold: cold, md5Warm: warm, warmQueriesPerSecond: Math.round(queries.length / seconds) }));
} finally {
  await server.close();
  rmSync(dbPath, { recursive: true, force: true });
}
