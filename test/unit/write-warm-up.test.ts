// The shard worker's write-path warm-up (src/shard/warm-up.ts writeWarmUpSteps): a sliced job that ends
// without error, other work running between its slices, that stops when cancelled (worker.ts cancels it
// at the first real write), and whose documents index and search as a real index's would.
import test from 'ava';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import { SlicedJobs } from '../../src/shard/sliced-jobs.js';
import { writeWarmUpSteps } from '../../src/shard/warm-up.js';
import { writeWarmUpDocuments } from '../../src/documents/warm-up-documents.js';

test('the write warm-up runs as a background job between other macrotasks, to its end', async (t) => {
  let turns = 0;
  let finished = false;
  const probe = (): void => {
    turns++;
    if (!finished) setImmediate(probe);
  };
  setImmediate(probe);
  const errors: unknown[] = [];
  const jobs = new SlicedJobs({ onError: (_key, cause) => errors.push(cause) });
  let completed = false;
  await new Promise<void>((resolve) => jobs.enqueue('warm-up', () => writeWarmUpSteps(() => { completed = true; }, 2_000), { onLeave: resolve }));
  finished = true;
  t.deepEqual(errors, []);
  t.true(completed);
  // 20 write batches of 100 documents and the build's steps, in slices: the probe ran between them.
  t.true(turns >= 5, `the probe ran ${turns} times`);
});

test('a cancelled write warm-up stops before its end', async (t) => {
  const jobs = new SlicedJobs();
  let completed = false;
  const left = new Promise<void>((resolve) => jobs.enqueue('warm-up', () => writeWarmUpSteps(() => { completed = true; }, 2_000), { onLeave: resolve }));
  await new Promise((resolve) => setImmediate(resolve));
  jobs.cancel('warm-up');
  await left;
  t.false(completed);
  t.is(jobs.pending, 0);
});

test('the warm-up steps are many: each write batch is one', (t) => {
  let steps = 0;
  for (const _ of writeWarmUpSteps(() => {}, 2_000)) steps++;
  t.true(steps > 20, `${steps} steps`);
});

test('the warm-up documents are the same each time and index as any documents', (t) => {
  const documents = writeWarmUpDocuments(500);
  t.deepEqual(writeWarmUpDocuments(500), documents);
  t.is(new Set(documents.map((document) => document.id)).size, 500);
  t.true(documents.some((document) => /[^\x00-\x7f]/.test(String(document.summary))), 'some text is not ASCII');
  const engine = new ShardEngine(0, 1, null);
  engine.loadIndex('w', 1, { searchableAttributes: ['name', 'summary'] }, documents.map((document) => [document.id as number, document]));
  engine.prepareForSearch();
  const name = String(documents[7]!.name);
  const result = engine.search({ indexUid: 'w', shards: [0], q: name, hitsWanted: 1000, matchingStrategy: 'all', options: {} });
  t.true(result.hits.some((hit) => hit.docId === 7), `"${name}" finds its document`);
});

test('cancelAll(except) stops the other jobs and leaves that one running (worker.ts: a load or drop keeps the warm-up)', async (t) => {
  const jobs = new SlicedJobs();
  const warmUpKey = { job: 'write warm-up' };
  let completed = false;
  let otherLeft = false;
  const warmUpLeft = new Promise<void>((resolve) => jobs.enqueue(warmUpKey, () => writeWarmUpSteps(() => { completed = true; }, 1_000), { onLeave: resolve }));
  jobs.enqueue('other', function* () { for (;;) yield; }, { onLeave: () => { otherLeft = true; } });
  await new Promise((resolve) => setImmediate(resolve));
  jobs.cancelAll(warmUpKey);
  t.true(otherLeft);
  await warmUpLeft;
  t.true(completed);
});

test('an idle job gives way: a job queued after it started runs first, then the idle one resumes to its end', (t) => {
  const order: string[] = [];
  const scheduled: (() => void)[] = [];
  const jobs = new SlicedJobs({ schedule: (run) => scheduled.push(run), sliceMs: 0 });
  jobs.enqueue('idle', function* () { for (let k = 0; k < 3; k++) { order.push(`idle ${k}`); yield; } }, { idle: true });
  scheduled.shift()!();
  jobs.enqueue('build', function* () { for (let k = 0; k < 2; k++) { order.push(`build ${k}`); yield; } });
  while (scheduled.length > 0) scheduled.shift()!();
  t.deepEqual(order, ['idle 0', 'build 0', 'build 1', 'idle 1', 'idle 2']);
});
