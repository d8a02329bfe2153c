// The build helper thread (src/build-helper/worker.ts): a shard's full build sends its near-pair
// tables and position lists there, over a copy of the arena, and adopts what comes back. A real
// thread (Tinypool) in every test: the shard must end byte for byte as one built at once in the
// worker, also when writes land while the helper works, when the job is cancelled meanwhile, and
// when the helper fails.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { BuildHelperClient } from '../../src/shard/build-helper-client.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { ShardIndex } from '../../src/shard/shard-index.js';
import { SlicedJobs } from '../../src/shard/sliced-jobs.js';
import { encodeShardSnapshot, settingsFingerprint } from '../../src/shard/snapshot/shard-snapshot.js';
import type { ArenaBuildRequest, ArenaBuildResult } from '../../src/protocol/build-helper.js';
import { randomFrom } from './seeded-lcg.js';
import { rewriteAll, sameAnswers, twins } from './shard-twins.js';

const IDENTITY = { indexUid: 'films', shard: 0, shardCount: 1, commitSeq: 3, settingsFingerprint: settingsFingerprint(compileIndexConfig({}).settings) };

const snapshotOf = (shard: ShardIndex): Buffer => Buffer.concat(encodeShardSnapshot(shard, IDENTITY));

/** A helper used by every shard, whatever its size; `asked` lists what each build handed over. */
function smallShardHelper(): BuildHelperClient & { asked: string[][] } {
  const helper = new (class extends BuildHelperClient {
    readonly asked: string[][] = [];
    override build(request: ArenaBuildRequest): Promise<ArenaBuildResult> {
      this.asked.push([...(request.nearPairs === null ? [] : ['nearPairs']), ...request.tokenKeys.map((spec) => spec.key)]);
      return super.build(request);
    }
  })();
  helper.minDocuments = 1;
  return helper;
}

/** A runner whose slices the test runs by hand (to write between them), each slice at most 2 ms. */
function handRunner(): { jobs: SlicedJobs; slices: (() => void)[] } {
  const slices: (() => void)[] = [];
  return { jobs: new SlicedJobs({ sliceMs: 2, schedule: (run) => slices.push(run) }), slices };
}

/** Runs the slices until the queue is empty, waiting (bounded) while its job awaits the helper. */
async function runToEnd(jobs: SlicedJobs, slices: (() => void)[]): Promise<void> {
  const started = Date.now();
  while (jobs.pending > 0) {
    if (Date.now() - started > 30_000) throw new Error('the build did not end within 30 s');
    const slice = slices.shift();
    if (slice !== undefined) slice();
    else await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Runs slices until the job awaits the helper's answer (no slice scheduled, the job pending). */
function runUntilAwaiting(jobs: SlicedJobs, slices: (() => void)[]): void {
  while (slices.length > 0) slices.shift()!();
  if (jobs.pending === 0) throw new Error('the job ended without awaiting the helper');
}

/**
 * Twins of `count` documents (the reference built at once unless `buildReference` is false), the subject's
 * build handed to `helper` and its slices run until it awaits the answer.
 */
function awaitingTwins(helper: BuildHelperClient, count: number, seed: number, buildReference = true) {
  const { subject, reference } = twins(count, seed);
  if (buildReference) reference.prepareForSearch();
  const { jobs, slices } = handRunner();
  jobs.enqueue(subject, () => subject.prepareSteps(helper));
  runUntilAwaiting(jobs, slices);
  return { subject, reference, jobs, slices };
}

test('the helper\'s tables and position lists are the shard worker\'s own: the shard snapshots byte for byte alike', async (t) => {
  const helper = smallShardHelper();
  try {
    // 6,000 documents: enough tokens that the position lists are due a full build (they go to the helper too).
    for (const [seed, count] of [[3, 530], [17, 6_000], [29, 790]] as const) {
      const { subject, reference } = twins(count, seed);
      reference.prepareForSearch();
      const { jobs, slices } = handRunner();
      const before = helper.tasks;
      jobs.enqueue(subject, () => subject.prepareSteps(helper));
      await runToEnd(jobs, slices);
      t.is(helper.tasks, before + 1, 'the build went to the helper');
      t.deepEqual(helper.asked.at(-1), count > 5_000 ? ['nearPairs', 'position'] : ['nearPairs']);
      t.false(subject.needsPreparing);
      t.true(snapshotOf(subject).equals(snapshotOf(reference)), `seed ${seed}`);
      sameAnswers(t, subject, reference, randomFrom(seed + 1), 30);
    }
  } finally {
    await helper.close();
  }
});

test('writes while the helper builds count as written after the build: answers stay those of a shard built at once after them', async (t) => {
  const helper = smallShardHelper();
  try {
    for (const seed of [5, 11]) {
      const { subject, reference, jobs, slices } = awaitingTwins(helper, 700, seed, false);
      // Rewrites, new documents and deletions while the helper's answer is on its way (ids up to 900: some new).
      rewriteAll([subject, reference], randomFrom(seed + 100), 60, 900, 5_000, 7);
      await runToEnd(jobs, slices);
      reference.prepareForSearch();
      sameAnswers(t, subject, reference, randomFrom(seed + 2), 40);
      // And once the subject is built again at once, byte for byte the reference.
      subject.prepareForSearch();
      sameAnswers(t, subject, reference, randomFrom(seed + 3), 20);
    }
  } finally {
    await helper.close();
  }
});

test('a search that builds at once while the helper works overtakes it: the answer is dropped, the shard ends as one built at once', async (t) => {
  const helper = smallShardHelper();
  try {
    // 6,000 documents: the position lists go to the helper too, and the search rebuilds them (and the pair tables) at once.
    const { subject, reference, jobs, slices } = awaitingTwins(helper, 6_000, 71);
    t.deepEqual(helper.asked.at(-1), ['nearPairs', 'position']);
    sameAnswers(t, subject, reference, randomFrom(72), 10);
    await runToEnd(jobs, slices);
    t.false(subject.needsPreparing);
    t.true(snapshotOf(subject).equals(snapshotOf(reference)));
    // Writes after it are tracked as for any built shard (no build left tracking them): answers stay exact.
    rewriteAll([subject, reference], randomFrom(73), 40, 6_500, 9_000, 5);
    sameAnswers(t, subject, reference, randomFrom(74), 20);
  } finally {
    await helper.close();
  }
});

test('a build cancelled while it awaits the helper drops the answer; the next build starts over', async (t) => {
  const helper = smallShardHelper();
  try {
    const { subject, reference, jobs, slices } = awaitingTwins(helper, 600, 41);
    jobs.cancel(subject);
    t.is(jobs.pending, 0);
    // The answer arriving later changes nothing: still stale, still answering as the reference.
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.true(subject.needsPreparing);
    sameAnswers(t, subject, reference, randomFrom(42), 20);
    jobs.enqueue(subject, () => subject.prepareSteps(helper));
    await runToEnd(jobs, slices);
    t.false(subject.needsPreparing);
    t.true(snapshotOf(subject).equals(snapshotOf(reference)));
  } finally {
    await helper.close();
  }
});

test('when the helper fails, the shard worker builds what it had handed over', async (t) => {
  // The real thread, given a plan it cannot build (a key space past any typed array): it throws, the promise rejects.
  const failures: unknown[] = [];
  const helper = new (class extends BuildHelperClient {
    override build(request: ArenaBuildRequest): Promise<ArenaBuildResult> {
      return super.build({ ...request, nearPairs: request.nearPairs === null ? null : { ...request.nearPairs, slotCount: 1 << 24 } });
    }
  })((cause) => failures.push(cause));
  helper.minDocuments = 1;
  try {
    const { subject, reference } = twins(500, 53);
    reference.prepareForSearch();
    const { jobs, slices } = handRunner();
    jobs.enqueue(subject, () => subject.prepareSteps(helper));
    await runToEnd(jobs, slices);
    t.is(failures.length, 1, 'the failure was told');
    t.false(subject.needsPreparing);
    t.true(snapshotOf(subject).equals(snapshotOf(reference)));
  } finally {
    await helper.close();
  }
});

test('a shard below the helper\'s size builds everything itself', async (t) => {
  const helper = new BuildHelperClient();
  try {
    const { subject, reference } = twins(300, 61);
    reference.prepareForSearch();
    const { jobs, slices } = handRunner();
    jobs.enqueue(subject, () => subject.prepareSteps(helper));
    await runToEnd(jobs, slices);
    t.is(helper.tasks, 0);
    t.true(snapshotOf(subject).equals(snapshotOf(reference)));
  } finally {
    await helper.close();
  }
});

test('the build helper thread loads no native addon (roaring\'s aborts the process when its thread is terminated while it loads)', (t) => {
  // Tinypool ends an idle helper, and a shard worker's exit ends its helper, with terminate(): at any
  // moment, its start included. A helper importing roaring aborted a probe process in 1 run of 2
  // (bench/build-helper-end-probe.mjs: "FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal" in
  // roaring's module registration); without it, none in 4.
  const distSrc = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
  const script = `await import(${JSON.stringify(resolve(distSrc, 'build-helper/worker.js'))});
    const { createRequire } = await import('node:module');
    console.log(JSON.stringify(Object.keys(createRequire(process.cwd() + '/x.js').cache)));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  t.is(run.status, 0, run.stderr);
  const loaded = JSON.parse(run.stdout) as string[];
  t.deepEqual(loaded.filter((path) => path.endsWith('.node') || path.includes('/roaring/')), []);
});
