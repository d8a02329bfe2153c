import test from 'ava';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs } from '../../bench/cli-args.js';
import { applyOverrides, listWorkloadFiles, loadWorkloadFile, resolveWorkload, workloadPath } from '../../bench/workload.js';

// dist/test/unit -> repository root, where the workload JSON files live.
const workloadsDirectory = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'bench', 'workloads');

test('the default workload is the 100k mixed one', (t) => {
  const workload = loadWorkloadFile(workloadPath('default', workloadsDirectory));
  t.is(workload.name, 'default');
  t.true(workload.dataset.documents >= 100_000);
  t.is(workload.concurrency, 64);
  t.deepEqual(Object.keys(workload.queries.mix).sort(), ['multiWord', 'prefix', 'typo', 'word']);
  t.true(listWorkloadFiles(workloadsDirectory).some((path) => path.endsWith('default.json')));
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

test('workload arguments are names or paths', (t) => {
  t.is(workloadPath('default', '/w'), '/w/default.json');
  t.is(workloadPath('./mine.json', '/w'), './mine.json');
});

test('command line: names, --all and overrides', (t) => {
  const args = parseBenchArgs(['default', '--docs', '5000', '--duration', '3', '--warmup', '0']);
  t.deepEqual(args.workloads, ['default']);
  t.false(args.all);
  t.deepEqual(args.overrides, { documents: 5000, durationSeconds: 3, warmupSeconds: 0, concurrency: undefined });
  t.true(parseBenchArgs(['--all']).all);
  t.deepEqual(parseBenchArgs([]).workloads, []);
  t.throws(() => parseBenchArgs(['--docs', 'many']), { message: /--docs/ });
  t.throws(() => parseBenchArgs(['default', '--all']));
  t.throws(() => parseBenchArgs(['--bogus']));
});
