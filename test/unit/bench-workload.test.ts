import test from 'ava';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs } from '../../bench/cli-args.js';
import { applyOverrides, listWorkloadFiles, loadWorkloadFile, resolveWorkload, warmupText, workloadPath } from '../../bench/workload.js';

// dist/test/unit -> repository root, where the workload JSON files live.
const workloadsDirectory = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'bench', 'workloads');

test('the synthetic workload is the 100k mixed one', (t) => {
  const workload = loadWorkloadFile(workloadPath('synthetic', workloadsDirectory));
  t.is(workload.name, 'synthetic');
  t.true(workload.dataset.documents >= 100_000);
  t.is(workload.concurrency, 16);
  t.deepEqual(Object.keys(workload.queries.mix).sort(), ['multiWord', 'prefix', 'typo', 'word']);
  t.true(listWorkloadFiles(workloadsDirectory).some((path) => path.endsWith('synthetic.json')));
});

test('missing members take defaults', (t) => {
  const workload = resolveWorkload({ dataset: { documents: 10 } }, 'tiny');
  t.is(workload.name, 'tiny');
  t.is(workload.dataset.documents, 10);
  t.is(workload.dataset.kind, 'movies');
  t.is(workload.index.uid, 'bench');
  t.is(workload.load.format, 'json');
});

test('invalid workloads are refused with a message naming the member', (t) => {
  t.throws(() => resolveWorkload({ dataset: { documents: 0 } }, 'x'), { message: /dataset\.documents/ });
  t.throws(() => resolveWorkload({ queries: { mix: { fuzzy: 1 } } }, 'x'), { message: /unknown query kind "fuzzy"/ });
  t.throws(() => resolveWorkload({ load: { format: 'csv' } }, 'x'), { message: /load\.format/ });
  t.throws(() => resolveWorkload({ index: { uid: 'a b' } }, 'x'), { message: /index\.uid/ });
  t.throws(() => resolveWorkload([], 'x'));
});

test('overrides replace documents, duration, warm-up and connections only', (t) => {
  const base = resolveWorkload({}, 'base');
  const quick = applyOverrides(base, { documents: 5000, durationSeconds: 2, warmupSeconds: 0 });
  t.is(quick.dataset.documents, 5000);
  t.is(quick.durationSeconds, 2);
  t.is(quick.warmupSeconds, 0);
  t.is(quick.concurrency, base.concurrency);
  t.is(quick.dataset.seed, base.dataset.seed);
});

test('the warm-up makes three passes over the queries unless told otherwise, within its bound', (t) => {
  const base = resolveWorkload({}, 'base');
  t.is(base.warmupPasses, 3);
  t.is(base.warmupMaxSeconds, 60);
  t.regex(warmupText(base), /3 passes over the 10000 queries \(at least 3 s, at most 60 s\)/);
  t.regex(warmupText(applyOverrides(base, { warmupPasses: 1 })), /one pass over the 10000 queries/);
  const timed = applyOverrides(base, { warmupPasses: 0 });
  t.is(timed.warmupPasses, 0);
  t.is(warmupText(timed), '3 s warm-up');
  t.is(resolveWorkload({ warmupPasses: 2, warmupMaxSeconds: 90 }, 'x').warmupMaxSeconds, 90);
  t.throws(() => resolveWorkload({ warmupMaxSeconds: 0 }, 'x'), { message: /warmupMaxSeconds/ });
  t.throws(() => resolveWorkload({ warmupPasses: 0.5 }, 'x'), { message: /warmupPasses/ });
});

test('runs and peers: defaults, workload values, overrides and validation', (t) => {
  const base = resolveWorkload({}, 'base');
  t.is(base.runs, 3);
  t.deepEqual(base.peers, []);
  const withPeers = resolveWorkload({ runs: 5, peers: ['minisearch', 'ceiling'] }, 'x');
  t.is(withPeers.runs, 5);
  t.deepEqual(withPeers.peers, ['minisearch', 'ceiling']);
  t.deepEqual(applyOverrides(withPeers, { peers: [] }).peers, []);
  t.is(applyOverrides(withPeers, { runs: 1 }).runs, 1);
  t.throws(() => resolveWorkload({ peers: ['lucene'] }, 'x'), { message: /unknown peer "lucene"/ });
  t.throws(() => resolveWorkload({ runs: 0 }, 'x'), { message: /runs/ });
  t.deepEqual(parseBenchArgs(['--peers', 'orama,flexsearch', '--runs', '2']).overrides.peers, ['orama', 'flexsearch']);
  t.deepEqual(parseBenchArgs(['--peers', 'none']).overrides.peers, []);
  t.is(parseBenchArgs(['--runs', '2']).overrides.runs, 2);
  t.throws(() => parseBenchArgs(['--peers', 'minisearch,solr']), { message: /unknown peer "solr"/ });
});

test('--workers sets the server\'s worker threads; absent, the server keeps its default', (t) => {
  t.is(parseBenchArgs(['--workers', '1']).workers, 1);
  t.is(parseBenchArgs([]).workers, null);
  t.throws(() => parseBenchArgs(['--workers', '0']), { message: /--workers/ });
});

test('every shipped workload file is valid', (t) => {
  const directory = workloadsDirectory;
  const names = listWorkloadFiles(directory).map((path) => loadWorkloadFile(path).name);
  for (const name of ['npm', 'synthetic', 'filters', 'scale-10k', 'scale-1m']) t.true(names.includes(name), name);
  const byName = Object.fromEntries(listWorkloadFiles(directory).map((path) => [loadWorkloadFile(path).name, loadWorkloadFile(path)]));
  t.deepEqual(byName.synthetic.peers, ['minisearch', 'flexsearch', 'orama', 'ceiling']);
  t.deepEqual(byName.npm.peers, ['minisearch', 'flexsearch', 'orama', 'sqlite', 'ceiling']);
  t.is(byName.npm.phase, 'windows');
  t.is(byName.npm.dataset.kind, 'npm');
  t.is(byName['scale-1m'].dataset.documents, 1_000_000);
  t.deepEqual((byName.filters.index.settings as { filterableAttributes: string[] }).filterableAttributes, ['genre', 'year', 'price', '_geo']);
});

test('workload arguments are names or paths', (t) => {
  t.is(workloadPath('default', '/w'), '/w/default.json');
  t.is(workloadPath('./mine.json', '/w'), './mine.json');
});

test('command line: names, --all and overrides', (t) => {
  const args = parseBenchArgs(['default', '--docs', '5000', '--duration', '3', '--warmup', '0', '--warmup-passes', '0']);
  t.deepEqual(args.workloads, ['default']);
  t.false(args.all);
  t.deepEqual(args.overrides, { documents: 5000, durationSeconds: 3, warmupSeconds: 0, warmupPasses: 0, client: undefined, concurrency: undefined, runs: undefined, peers: undefined, restart: undefined, windows: undefined });
  t.is(parseBenchArgs(['--client', 'wrk']).overrides.client, 'wrk');
  t.throws(() => parseBenchArgs(['--client', 'ab']), { message: /--client/ });
  t.is(resolveWorkload({}, 'x').client, 'autocannon');
  t.throws(() => resolveWorkload({ client: 'ab' }, 'x'), { message: /client/ });
  t.throws(() => parseBenchArgs(['--warmup-passes', '-1']), { message: /--warmup-passes/ });
  t.true(parseBenchArgs(['--all']).all);
  t.deepEqual(parseBenchArgs([]).workloads, []);
  t.throws(() => parseBenchArgs(['--docs', 'many']), { message: /--docs/ });
  t.throws(() => parseBenchArgs(['default', '--all']));
  t.throws(() => parseBenchArgs(['--bogus']));
});
