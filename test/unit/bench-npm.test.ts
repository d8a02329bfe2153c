// The real-text workload's parts: the npm dataset, its query list, the quality checks, the FTS5 query,
// the windows phase's workload validation, and every peer's GET search on the committed npm sample.
import test from 'ava';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNpmDataset, parseNpmTsv, textWords } from '../../bench/npm-dataset.js';
import { buildRealQueries, distinctShare, searchPath, type RealQuery } from '../../bench/npm-queries.js';
import { fts5Query } from '../../bench/peers/fts5-query.js';
import { answerIsGood, measureKindLatency } from '../../bench/quality.js';
import { steadyState } from '../../bench/real-run.js';
import { peerScriptPath } from '../../bench/run-peers.js';
import { startSkeinServer } from '../../bench/server-process.js';
import { SkeinHttpClient } from '../../bench/skein-http.js';
import type { WindowFigures } from '../../bench/window-phase.js';
import { peerNames, resolveWorkload } from '../../bench/workload.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runMixed, runWindows } from '../../bench/window-phase.js';
import { wrkInstalled } from '../../bench/wrk-load.js';
import { startStandIn } from './bench-stand-in-server.js';

const fixture = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'test', 'http', 'fixtures', 'npm-packages.tsv');
const rows = parseNpmTsv(readFileSync(fixture, 'utf8'));
// The peers (child processes) read the same committed sample.
process.env.SKEIN_BENCH_NPM_TSV = fixture;
const spec = { kind: 'npm', documents: 1000, seed: 42, vocabularySize: 1, zipfExponent: 1 };
const mix = { word: 25, twoWords: 20, threeWords: 10, prefix: 20, typo: 15, rare: 10 };

test('npm.tsv rows: header skipped, downloads numbers, the "[tested here: ...]" note cut from summaries', (t) => {
  const parsed = parseNpmTsv('name\tversion\tdownloads_a_month\tsummary\nleft-pad\t1.3.0\t123\t[tested here: pin 1.0] String left pad\nempty\t1.0.0\t\t\n');
  t.deepEqual(parsed, [
    { name: 'left-pad', version: '1.3.0', downloads: 123, summary: 'String left pad' },
    { name: 'empty', version: '1.0.0', downloads: 0, summary: '' },
  ]);
  t.deepEqual(textWords('@babel/core: Babel compiler-core, v7.2'), ['babel', 'core', 'babel', 'compiler', 'core', 'v7', '2']);
});

test('npm dataset: a seeded permutation of the rows, id = position, further rows outside the documents', (t) => {
  const a = createNpmDataset(spec, rows);
  const b = createNpmDataset(spec, rows);
  t.deepEqual(a.documentAt(17), b.documentAt(17));
  t.is(a.documentAt(17).id, 17);
  t.deepEqual(Object.keys(a.documentAt(0)).sort(), ['downloads', 'id', 'name', 'summary', 'version']);
  const names = new Set(Array.from({ length: 1000 }, (_, i) => a.documentAt(i).name));
  t.is(names.size, 1000, 'distinct rows');
  t.not(a.documentAt(0).name, rows[0].name, 'not the file order (sorted by name)');
  const further = a.furtherDocument(0, 5000);
  t.is(further.id, 5000);
  t.false(names.has(further.name as string), 'written documents are new packages');
  t.not(createNpmDataset({ ...spec, seed: 7 }, rows).documentAt(0).name, a.documentAt(0).name);
  // A 1M-style variant: rows repeat, ids stay distinct.
  const big = createNpmDataset({ ...spec, documents: rows.length * 2 }, rows);
  t.is(big.documentAt(rows.length + 3).name, big.documentAt(3).name);
  t.is(big.documentAt(rows.length + 3).id, rows.length + 3);
});

test('real queries: seeded, every kind, derived from the corpus, mostly unique', (t) => {
  const dataset = createNpmDataset(spec, rows);
  const queries = buildRealQueries(dataset, { count: 3000, limit: 20, mix });
  t.deepEqual(queries.slice(0, 50), buildRealQueries(dataset, { count: 50, limit: 20, mix }));
  const kinds = new Set(queries.map((query) => query.kind));
  t.deepEqual([...kinds].sort(), ['prefix', 'rare', 'threeWords', 'twoWords', 'typo', 'word']);
  t.true(distinctShare(queries) > 0.5, String(distinctShare(queries)));
  for (const query of queries) {
    if (query.kind === 'prefix') {
      const typed = query.q.split(' ');
      t.true(query.intended!.startsWith(typed[typed.length - 1]) && query.intended !== typed[typed.length - 1], query.q);
    }
    if (query.kind === 'typo') {
      t.not(query.q, query.intended);
      t.false(dataset.wordCounts.has(query.q), `typo ${query.q} is not a corpus word`);
      t.true(query.intended!.length >= 5);
    }
    if (query.kind === 'rare') t.true((dataset.wordCounts.get(query.q) ?? 0) <= 2, query.q);
    if (query.kind === 'twoWords') t.is(query.words.length, 2);
    if (query.kind === 'threeWords') t.is(query.words.length, 3);
  }
  t.is(searchPath('npm', 'a b&c', 20), '/indexes/npm/search?q=a%20b%26c&limit=20');
});

test('quality: intended word in a top hit; top hit holding every word, the last as a prefix', (t) => {
  const hit = (name: string, summary = '') => ({ name, summary });
  const typo: RealQuery = { kind: 'typo', q: 'reactt', words: ['react'], intended: 'react' };
  t.true(answerIsGood(typo, [hit('vue'), hit('x', 'React hooks')]));
  t.false(answerIsGood(typo, [hit('reactive')]), 'a longer word is not the intended one');
  t.false(answerIsGood(typo, []));
  const prefix: RealQuery = { kind: 'prefix', q: 'date form', words: ['date', 'format'], intended: 'format' };
  t.true(answerIsGood(prefix, [hit('date-fns', 'format dates')]));
  const two: RealQuery = { kind: 'twoWords', q: 'left pad', words: ['left', 'pad'], intended: null };
  t.true(answerIsGood(two, [hit('left-pad', 'String left pad')]));
  t.true(answerIsGood(two, [hit('left-padding')]), 'the last word may be a prefix');
  t.false(answerIsGood(two, [hit('leftover', 'pad')]), 'only the last word may be a prefix');
  t.false(answerIsGood(two, [hit('string', 'pad'), hit('left-pad')]), 'only the top hit counts');
  t.false(answerIsGood(two, []));
});

test('fts5 query: words quoted (no operator passes through), the last a prefix', (t) => {
  t.is(fts5Query('React  hooks'), '"react" "hooks"*');
  t.is(fts5Query('"a" OR b* NEAR(c) -d'), '"a" "or" "b" "near" "c" "d"*');
  t.is(fts5Query('  -- '), null);
});

test('windows workloads: validated, npm dataset only, real kinds only; steady state = median of the last half', (t) => {
  const workload = resolveWorkload({ phase: 'windows', dataset: { kind: 'npm' }, queries: { mix } }, 'x');
  t.is(workload.windows.count, 6);
  t.is(workload.windows.mixed.batchSize, 1000);
  t.is(resolveWorkload({ phase: 'windows', dataset: { kind: 'npm' }, queries: { mix }, windows: { mixed: { windows: 0 } } }, 'x').windows.mixed.batchSize, 1000);
  t.throws(() => resolveWorkload({ phase: 'windows', queries: { mix } }, 'x'), { message: /npm/ });
  t.throws(() => resolveWorkload({ phase: 'windows', dataset: { kind: 'npm' }, queries: { mix: { multiWord: 1 } } }, 'x'), { message: /multiWord/ });
  t.throws(() => resolveWorkload({ phase: 'both' }, 'x'), { message: /phase/ });
  t.throws(() => resolveWorkload({ phase: 'windows', dataset: { kind: 'npm' }, queries: { mix }, windows: { seconds: 0 } }, 'x'), { message: /windows.seconds/ });
  const window = (queriesPerSecond: number, p99Ms: number) => ({ queriesPerSecond, p50Ms: 1, p99Ms }) as WindowFigures;
  t.deepEqual(steadyState([window(100, 900), window(2000, 50), window(3000, 40), window(2500, 45)]), { queriesPerSecond: 2500, p50Ms: 1, p99Ms: 40 });
  t.is(steadyState([]), null);
});

for (const name of peerNames) {
  test(`${name}: GET /indexes/<uid>/search?q=&limit= on the npm sample`, async (t) => {
    const dataset = { ...spec, documents: 500 };
    const server = await startSkeinServer({
      cliPath: peerScriptPath(name),
      extraArgs: ['--dataset', JSON.stringify(dataset), '--settings', JSON.stringify({ searchableAttributes: ['name', 'summary'] })],
      startTimeoutSeconds: 60,
    });
    try {
      const npm = createNpmDataset(dataset, rows);
      // A plain one-word name: every engine's tokenizer sees the same word (Orama keeps "is-symbol" whole).
      const target = Array.from({ length: 500 }, (_, i) => npm.documentAt(i)).find((document) => /^[a-z]{5,}$/.test(String(document.name)))!;
      const word = String(target.name);
      const client = new SkeinHttpClient(server.baseUrl);
      const { status, json } = await client.request('GET', searchPath('npm', word, 20));
      t.is(status, 200);
      const body = json as { hits: Array<{ id: number; name: string }>; limit: number };
      t.is(body.limit, 20);
      if (name !== 'ceiling') t.true(body.hits.some((hit) => textWords(`${hit.name}`).includes(word)), `${name} finds ${word}`);
      t.is((await client.request('GET', '/indexes/npm/search?q=x&limit=-1')).status, 400);
      const hostile = await client.request('GET', searchPath('npm', '"a" OR b* NEAR(', 5));
      t.is(hostile.status, 200, 'query syntax of an engine is plain text');
      const figures = (await client.request('GET', '/bench/peer')).json as { documents: number; diskBytes?: number };
      t.is(figures.documents, 500);
      if (name === 'sqlite') t.true((figures.diskBytes ?? 0) > 10_000, 'sqlite reports its file size');
    } finally {
      await server.stop();
    }
  });
}

const withWrk = wrkInstalled() ? test : test.skip;

withWrk('windows: wrk GETs the paths in order, each window continuing where the previous stopped; mixed writes a batch a second', async (t) => {
  const standIn = await startStandIn({});
  const directory = mkdtempSync(join(tmpdir(), 'bench-windows-'));
  try {
    const pathsFile = join(directory, 'paths.txt');
    const count = 200_000;
    writeFileSync(pathsFile, Array.from({ length: count }, (_, i) => searchPath('npm', `q${i}`, 20)).join('\n') + '\n');
    const options = { baseUrl: standIn.baseUrl, pid: process.pid, pathsFile, pathCount: count, startLine: 0, concurrency: 2, windowSeconds: 1, windows: 2, readyAtMs: performance.now() };
    const run = await runWindows(options);
    t.is(run.windows.length, 2);
    t.true(run.windows.every((window) => window.requests > 10 && window.non2xx === 0), JSON.stringify(run.windows));
    t.true(run.windows[1].startSeconds >= 1);
    t.is(run.nextLine, run.windows[0].requests + run.windows[1].requests);
    const sent = standIn.searchedQueries;
    // Two connections: arrival order may swap neighbours, but the walk starts at line 0 and stays in order.
    t.true(sent.slice(0, 2).includes('q0'), sent.slice(0, 3).join());
    t.true(sent.every((q) => Number(q.slice(1)) < run.nextLine + options.concurrency), 'nothing beyond the lines sent');
    // Requests in flight when a window's wrk stops are sent again by the next one: at most one per connection.
    t.true(sent.length - new Set(sent).size <= options.concurrency, `${sent.length - new Set(sent).size} repeats`);
    const mixed = await runMixed({ ...options, startLine: run.nextLine, windows: 2, client: new SkeinHttpClient(standIn.baseUrl), indexUid: 'npm', batchSize: 3, taskTimeoutSeconds: 10,
      makeBatch: (k) => JSON.stringify([{ id: 3 * k }, { id: 3 * k + 1 }, { id: 3 * k + 2 }]) });
    t.is(mixed.windows.length, 2);
    t.true(mixed.writes.batches >= 2 && mixed.writes.batches <= 4, String(mixed.writes.batches));
    t.is(mixed.writes.failed, 0);
    t.is(standIn.documentCount, mixed.writes.documents);
    t.true(mixed.readOnly.requests > 0);
  } finally {
    rmSync(directory, { recursive: true, force: true });
    await standIn.close();
  }
});

test('cost by kind: the list\'s last queries, one at a time, each timed under its own kind', async (t) => {
  const { createServer } = await import('node:http');
  const seen: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const server = createServer((request, response) => {
    const q = new URL(request.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    seen.push(q);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    // Multi-word queries answer 30 ms late, single words at once; "fail" is refused.
    setTimeout(() => {
      inFlight--;
      response.writeHead(q === 'fail' ? 500 : 200, { 'content-type': 'application/json' }).end('{"hits":[]}');
    }, q.includes(' ') ? 30 : 0);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  const query = (kind: RealQuery['kind'], q: string): RealQuery => ({ kind, q, words: q.split(' '), intended: null });
  const queries = [query('word', 'never sent'), query('word', 'alpha'), query('twoWords', 'alpha beta'), query('word', 'fail'), query('word', 'gamma'), query('twoWords', 'gamma delta')];
  const figures = await measureKindLatency(`http://127.0.0.1:${port}`, 'npm', queries, { count: 5, limit: 20, maxSeconds: 10 });
  server.close();
  t.deepEqual(seen, ['gamma delta', 'gamma', 'fail', 'alpha beta', 'alpha'], 'from the end back, the first query left out');
  t.is(mostInFlight, 1, 'one at a time');
  t.is(figures.queries, 4);
  t.is(figures.failed, 1);
  t.is(figures.byKind.word?.queries, 2);
  t.is(figures.byKind.twoWords?.queries, 2);
  t.true(figures.byKind.twoWords!.meanMs >= 29, `multi-word ${figures.byKind.twoWords!.meanMs} ms`);
  t.true(figures.byKind.word!.meanMs < figures.byKind.twoWords!.meanMs);
  t.is(figures.byKind.threeWords, undefined);
});
