// Quiet-time work in slices (src/shard/sliced-jobs.ts): the job runner, searches while a full build
// is deferred to the background or half done (they must answer exactly as a shard built at once),
// and the sliced snapshot save (a cancelled or outdated save leaves no file).
import test from 'ava';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import { SLICE_POLICY, SlicedJobs, type SlicedJob } from '../../src/shard/sliced-jobs.js';
import { decodeShardSnapshot, encodeShardSnapshot, encodeShardSnapshotSteps, settingsFingerprint } from '../../src/shard/snapshot/shard-snapshot.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { SnapshotKeeper } from '../../src/shard/snapshot/snapshot-keeper.js';
import { ChangesSinceBuild } from '../../src/shard/postings/changes-since-build.js';
import { PREFIX_TABLE_POLICY, SHORT_PREFIX_LENGTH, SPLIT_LENGTH } from '../../src/shard/pairs/prefix-pair-tables.js';
import { snapshotFolder, snapshotPath } from '../../src/shard/snapshot/snapshot-files.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, rewriteAll, sameAnswers, twins, withSmallSteps, WORDS } from './shard-twins.js';

// --- the runner ---

/** A runner whose slices and clock the test drives: each step of a job costs 1 ms. */
function manualRunner(sliceMs = 3): { jobs: SlicedJobs; slices: (() => void)[]; tick: () => void } {
  let clock = 0;
  const slices: (() => void)[] = [];
  const jobs = new SlicedJobs({ sliceMs, schedule: (run) => slices.push(run), now: () => clock });
  return { jobs, slices, tick: () => clock++ };
}

function* counting(log: string[], name: string, steps: number, tick: () => void): SlicedJob {
  try {
    for (let k = 0; k < steps; k++) {
      log.push(`${name}${k}`);
      tick();
      yield;
    }
  } finally {
    log.push(`${name}:end`);
  }
}

test('jobs run one after the other in slices bounded by time, a key queued once', (t) => {
  const { jobs, slices, tick } = manualRunner(3);
  const log: string[] = [];
  const a = {};
  jobs.enqueue(a, () => counting(log, 'a', 4, tick));
  jobs.enqueue(a, () => counting(log, 'x', 4, tick)); // same key while pending: ignored
  jobs.enqueue('b', () => counting(log, 'b', 2, tick));
  t.is(log.length, 0, 'nothing runs before the first slice');
  t.is(slices.length, 1);
  slices.shift()!();
  t.deepEqual(log, ['a0', 'a1', 'a2']);
  t.is(slices.length, 1, 'the next slice is scheduled');
  slices.shift()!();
  t.deepEqual(log.slice(3), ['a3', 'a:end', 'b0', 'b1']);
  slices.shift()!();
  t.deepEqual(log.slice(7), ['b:end']);
  t.is(jobs.pending, 0);
  t.is(slices.length, 0, 'no slice once the queue is empty');
});

test('cancelAll runs the finally blocks of started jobs and drops the others', (t) => {
  const { jobs, slices, tick } = manualRunner(2);
  const log: string[] = [];
  jobs.enqueue('a', () => counting(log, 'a', 10, tick));
  jobs.enqueue('b', () => counting(log, 'b', 10, tick));
  slices.shift()!();
  t.deepEqual(log, ['a0', 'a1']);
  jobs.cancelAll();
  t.deepEqual(log, ['a0', 'a1', 'a:end'], 'a stopped, b never started');
  t.is(jobs.pending, 0);
  while (slices.length > 0) slices.shift()!();
  t.deepEqual(log, ['a0', 'a1', 'a:end']);
  // Queued again afterwards, a job runs from its start.
  jobs.enqueue('a', () => counting(log, 'c', 1, tick));
  while (slices.length > 0) slices.shift()!();
  t.deepEqual(log.slice(3), ['c0', 'c:end']);
});

test('a step yielding a promise holds its job until it settles; cancelled meanwhile, the job does not resume', async (t) => {
  const { jobs, slices, tick } = manualRunner(100);
  const log: string[] = [];
  let release!: () => void;
  function* waiting(): SlicedJob {
    try {
      log.push('before');
      yield new Promise<void>((resolve) => (release = resolve));
      log.push('after');
    } finally {
      log.push('end');
    }
  }
  jobs.enqueue('w', waiting);
  jobs.enqueue('next', () => counting(log, 'n', 1, tick));
  slices.shift()!();
  t.deepEqual(log, ['before']);
  t.is(slices.length, 0, 'no slice while the promise is pending');
  release();
  await Promise.resolve();
  await Promise.resolve();
  t.is(slices.length, 1);
  slices.shift()!();
  t.deepEqual(log, ['before', 'after', 'end', 'n0', 'n:end']);

  log.length = 0;
  jobs.enqueue('w', waiting);
  slices.shift()!();
  jobs.cancelAll();
  t.deepEqual(log, ['before', 'end']);
  release();
  await Promise.resolve();
  await Promise.resolve();
  t.is(slices.length, 0);
  jobs.enqueue('n', () => counting(log, 'n', 1, tick));
  t.is(slices.length, 1, 'the runner is not stuck waiting for the cancelled job');
});

test('a job that throws is reported and the next one runs', (t) => {
  const reported: unknown[] = [];
  const slices: (() => void)[] = [];
  const jobs = new SlicedJobs({ schedule: (run) => slices.push(run), onError: (key) => reported.push(key) });
  const log: string[] = [];
  // eslint-disable-next-line require-yield
  jobs.enqueue('bad', function* () { throw new Error('boom'); });
  jobs.enqueue('good', () => counting(log, 'g', 1, () => {}));
  while (slices.length > 0) slices.shift()!();
  t.deepEqual(reported, ['bad']);
  t.deepEqual(log, ['g0', 'g:end']);
});

// --- searches while builds are deferred or half done ---

test('a search needing a structure during its sliced build builds it at once, and the sliced build then stops', withSmallSteps((t) => {
  const { subject, reference } = twins(5000, 3);
  const steps = subject.prepareSteps();
  for (let k = 0; k < 3; k++) steps.next(); // into the rank lists' build
  t.true(subject.rankPostings.needsRebuild);
  sameAnswers(t, subject, reference, randomFrom(11), 30); // builds what they need themselves
  t.false(subject.rankPostings.needsRebuild);
  t.false(subject.nearPairs.needsBuild);
  let rest = 0;
  while (!steps.next().done) rest++;
  t.true(rest < 10, `the sliced build stopped (${rest} more steps)`);
  t.false(subject.needsPreparing);
  sameAnswers(t, subject, reference, randomFrom(12), 30);
  // Rewritten beyond the rebuild thresholds: a sliced rebuild, searches in between use the stale structures and the changed documents.
  rewriteAll([subject, reference], randomFrom(13), 6000, 7000, 5000, 4);
  t.true(subject.nearPairs.needsBuild && subject.rankPostings.needsRebuild, 'stale');
  const rebuild = subject.prepareSteps();
  let count = 0;
  while (!rebuild.next().done) if (count++ % 97 === 0) sameAnswers(t, subject, reference, randomFrom(count), 2);
  t.false(subject.needsPreparing);
  sameAnswers(t, subject, reference, randomFrom(14), 30);
}));

test('searches between the slices of a quiet-time build answer as a shard built at once', withSmallSteps((t) => {
  const { subject, reference } = twins(900, 4);
  const steps = subject.prepareSteps();
  const random = randomFrom(14);
  let count = 0;
  while (!steps.next().done) {
    if (count++ % 7 === 0) sameAnswers(t, subject, reference, random, 3);
  }
  t.true(count > 100, `many steps (${count})`);
  t.false(subject.needsPreparing, 'every structure built');
  t.true(subject.nearPairs.byteLength > 0);
  sameAnswers(t, subject, reference, random, 40);
}));

test('writes between the slices of a build: searches after it answer as a shard built at once', withSmallSteps((t) => {
  for (const seed of [31, 32]) {
    // 5,000 documents: the rank / position lists are stale too (a full rebuild in steps).
    const { subject, reference } = twins(5000, seed);
    t.true(subject.rankPostings.needsRebuild);
    const writes = randomFrom(seed + 100);
    let written = 0;
    const write = () => {
      // Rewrites, deletions, and new documents with new words (ids beyond the build's vocabulary).
      const docId = Math.floor(writes() * 5500);
      const roll = writes();
      const document = roll < 0.3 ? { id: docId, title: `novel${written} star wars`, body: `brandnew${written % 7} the empire` } : makeDocument(writes, 7000 + written);
      for (const shard of [subject, reference]) {
        if (roll > 0.85) shard.delete(docId);
        else shard.upsert(docId, document);
        shard.flushWrites();
      }
      written++;
    };
    const steps = subject.prepareSteps();
    let count = 0;
    while (!steps.next().done) {
      count++;
      if (count % 8 === 0) write();
    }
    // (No searches meanwhile: one needing the tables would build them at once and stop this build.)
    t.true(written > 100, `writes interleaved (${written})`);
    t.false(subject.nearPairs.needsBuild, 'built, with the documents written meanwhile as changes');
    t.false(subject.rankPostings.needsRebuild);
    // Every word's rank and position lists as a shard that saw no build in steps has them.
    for (let wordId = 0; wordId < reference.vocabulary.size; wordId++) {
      const word = reference.vocabulary.wordOf(wordId);
      const subjectId = subject.vocabulary.idOf(word)!;
      for (const lists of ['rankPostings', 'positionPostings'] as const) {
        const actual = subject[lists].unionByKey([subjectId]).map((bitmap) => bitmap.toArray());
        const expected = reference[lists].unionByKey([wordId]).map((bitmap) => bitmap.toArray());
        while (actual.length > 0 && actual[actual.length - 1]!.length === 0) actual.pop();
        while (expected.length > 0 && expected[expected.length - 1]!.length === 0) expected.pop();
        if (JSON.stringify(actual) !== JSON.stringify(expected)) t.fail(`${lists} of ${word}`);
      }
    }
    sameAnswers(t, subject, reference, randomFrom(seed), 40);
    for (let k = 0; k < 200; k++) write();
    sameAnswers(t, subject, reference, randomFrom(seed + 1), 40);
  }
}));

test('once a full rebuild of the rank / position lists is due, writes drop the lists instead of updating them; searches answer as a shard built at once', (t) => {
  const { subject, reference } = twins(6000, 41);
  t.true(subject.rankPostings.needsRebuild);
  subject.prepareForSearch();
  reference.prepareForSearch();
  t.true(subject.rankPostings.byteLength > 0);
  // A few writes: updated in place (no rebuild due), so the lists stay.
  rewriteAll([subject, reference], randomFrom(42), 50, 6000, 10_000, 5);
  t.false(subject.rankPostings.needsRebuild);
  t.true(subject.rankPostings.byteLength > 0, 'kept while no rebuild is due');
  // Writes of more than a quarter of the tokens: a rebuild is due, the lists are gone (a bulk load no longer updates them in place).
  const writes = randomFrom(43);
  for (let chunk = 0; chunk < 40 && !subject.rankPostings.needsRebuild; chunk++) rewriteAll([subject, reference], writes, 500, 8000, 20_000 + chunk * 500, 7);
  t.true(subject.rankPostings.needsRebuild);
  t.is(subject.rankPostings.byteLength, 0);
  t.is(subject.positionPostings.byteLength, 0);
  sameAnswers(t, subject, reference, randomFrom(44), 40);
  t.false(subject.rankPostings.needsRebuild, 'the first search rebuilt them');
  rewriteAll([subject, reference], randomFrom(45), 100, 8000, 60_000, 3);
  sameAnswers(t, subject, reference, randomFrom(46), 40);
});

test('a quiet-time build cancelled halfway leaves the shard consistent for writes and searches', withSmallSteps((t) => {
  const { subject, reference } = twins(900, 5);
  subject.prepareForSearch();
  const writes = randomFrom(15);
  const write = (k: number) => {
    const docId = Math.floor(writes() * 1000);
    const document = makeDocument(writes, 9000 + k);
    for (const shard of [subject, reference]) shard.upsert(docId, document);
  };
  for (let k = 0; k < 400; k++) write(k);
  subject.flushWrites();
  reference.flushWrites();
  for (const stopAfter of [5, 40, 90]) {
    const steps = subject.prepareSteps();
    for (let k = 0; k < stopAfter; k++) steps.next();
    steps.return();
    for (let k = 0; k < 50; k++) write(1000 * stopAfter + k);
    subject.flushWrites();
    reference.flushWrites();
    sameAnswers(t, subject, reference, randomFrom(stopAfter), 20);
  }
  subject.prepareForSearch();
  sameAnswers(t, subject, reference, randomFrom(16), 40);
}));

// --- the sliced snapshot save ---

async function drive(job: SlicedJob, until?: (value: unknown, index: number) => boolean): Promise<boolean> {
  for (let index = 0; ; index++) {
    const step = job.next();
    if (step.done) return true;
    if (until?.(step.value, index)) return false;
    if (step.value instanceof Promise) await step.value;
  }
}

function savedEngine(dbPath: string): { engine: ShardEngine; keeper: SnapshotKeeper } {
  const engine = new ShardEngine(0, 1);
  const random = randomFrom(21);
  engine.loadIndex('films', 1, {}, Array.from({ length: 600 }, (_, docId) => [docId, makeDocument(random, docId)] as [number, Record<string, unknown>]));
  const keeper = new SnapshotKeeper(dbPath, engine, () => {});
  keeper.loaded('films', 7);
  return { engine, keeper };
}

function folderFiles(dbPath: string): string[] {
  const folder = snapshotFolder(dbPath, 'films');
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

test('the sliced save writes the committed state, which then restores', async (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-sliced-save-'));
  try {
    const { engine, keeper } = savedEngine(dbPath);
    let promises = 0;
    t.true(await drive(keeper.saveSteps(), (value) => (value instanceof Promise && promises++, false)));
    t.true(promises > 0, 'the fsync is awaited off the thread');
    t.deepEqual(folderFiles(dbPath), ['0.bin']);
    const config = engine.configOf('films')!;
    const restored = new SnapshotKeeper(dbPath, new ShardEngine(0, 1), () => {}).restore('films', 0, 1, 7, config);
    t.truthy(restored);
    sameAnswers(t, restored!, engine.loadedIndex('films')!.shards.get(0)!, randomFrom(22), 20);
    // Saved already under this stamp: nothing to write.
    let steps = 0;
    await drive(keeper.saveSteps(), () => (steps++, false));
    t.is(steps, 0);
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
});

test('a sliced save cancelled while writing, or whose stamp went away, leaves no file', async (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-sliced-save-'));
  try {
    const { keeper } = savedEngine(dbPath);
    // Cancelled (a write arrived): stopped after the encoding and a first piece of the file.
    const job = keeper.saveSteps();
    t.false(await drive(job, () => folderFiles(dbPath).length === 1));
    t.is(folderFiles(dbPath).length, 1, 'the temporary file is being written');
    job.return();
    t.deepEqual(folderFiles(dbPath), []);
    // Cancelled while its fsync runs: nothing left once that ends either.
    const syncing = keeper.saveSteps();
    let pending: Promise<unknown> | null = null;
    t.false(await drive(syncing, (value) => value instanceof Promise && ((pending = value), true)));
    syncing.return();
    await pending;
    await new Promise((resolve) => setImmediate(resolve));
    t.deepEqual(folderFiles(dbPath), []);
    // The state changed between two steps (unstamped): the file is not renamed into place.
    const outdated = keeper.saveSteps();
    t.false(await drive(outdated, (_value, index) => index === 0));
    keeper.changed('films');
    t.true(await drive(outdated));
    t.deepEqual(folderFiles(dbPath), []);
    t.false(existsSync(snapshotPath(dbPath, 'films', 0)));
    // Stamped again: the next save writes it.
    keeper.committed('films', 8);
    t.true(await drive(keeper.saveSteps()));
    t.deepEqual(folderFiles(dbPath), ['0.bin']);
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
});

/** The snapshot encode's step sizes lowered (SLICE_POLICY), so a small shard takes many steps. */
function withSmallEncodeSteps(run: (t: import('ava').ExecutionContext) => void): (t: import('ava').ExecutionContext) => void {
  return (t) => {
    const saved = { ...SLICE_POLICY };
    Object.assign(SLICE_POLICY, { bitmapsPerStep: 3, wordsPerStep: 5, bytesPerStep: 512 });
    try {
      run(t);
    } finally {
      Object.assign(SLICE_POLICY, saved);
    }
  };
}

const SNAPSHOT_IDENTITY = { indexUid: 'films', shard: 0, shardCount: 1, commitSeq: 3, settingsFingerprint: settingsFingerprint(compileIndexConfig({}).settings) };

test('the snapshot encoded in small steps is byte for byte the one encoded at once', withSmallEncodeSteps((t) => {
  const { subject } = twins(400, 31);
  subject.prepareForSearch();
  const steps = encodeShardSnapshotSteps(subject, SNAPSHOT_IDENTITY);
  let count = 0;
  let step = steps.next();
  for (; !step.done; step = steps.next()) count++;
  t.true(count > 100, `${count} steps`);
  const sliced = Buffer.concat(step.value);
  Object.assign(SLICE_POLICY, { bitmapsPerStep: 1 << 30, wordsPerStep: 1 << 30, bytesPerStep: 1 << 30 });
  t.true(Buffer.concat(encodeShardSnapshot(subject, SNAPSHOT_IDENTITY)).equals(sliced));
}));

test('searches and an at-once build between the encode steps: the snapshot restores to the same answers', withSmallEncodeSteps((t) => {
  // Stale (never built, and rewritten): searches between two steps build lists, and a full batch of
  // queries builds everything at once (ShardEngine.prepareStaleShards), replacing the arrays the encode
  // listed from. No write lands meanwhile (a write cancels the save).
  for (const builtAt of [0.2, 0.5, 0.9]) {
    const { subject, reference } = twins(500, 32 + builtAt * 10);
    rewriteAll([subject, reference], randomFrom(33), 100, 600, 5000, 5);
    reference.prepareForSearch();
    t.true(subject.needsPreparing, 'stale before the encode');
    const total = (() => { const all = encodeShardSnapshotSteps(subject, SNAPSHOT_IDENTITY); let n = 0; while (!all.next().done) n++; return n; })();
    const steps = encodeShardSnapshotSteps(subject, SNAPSHOT_IDENTITY);
    const searches = randomFrom(Math.round(builtAt * 100));
    let step = steps.next();
    for (let k = 0; !step.done; k++, step = steps.next()) {
      if (k % 7 === 0) sameAnswers(t, subject, reference, searches, 1);
      if (k === Math.floor(total * builtAt)) subject.prepareForSearch();
    }
    const config = compileIndexConfig({});
    const restored = decodeShardSnapshot(Buffer.concat(step.value), SNAPSHOT_IDENTITY, config);
    sameAnswers(t, restored, reference, randomFrom(40), 40);
  }
}));

// --- short prefixes' tables, made by the near-pair build ---

test('the near-pair build makes the tables of the short prefixes with enough rare documents, and searches answer the same', (t) => {
  const policy = { ...PREFIX_TABLE_POLICY };
  Object.assign(PREFIX_TABLE_POLICY, { minDocuments: 40 });
  try {
    const { subject, reference } = twins(2000, 6, 600);
    subject.nearPairs.build();
    // Rare words are r0..r599 (~7 documents each): "r" passes; its table is tagged by the next characters, so "r1" (and "r15") read it too.
    t.true(subject.nearPairs.hasPrefixTable('r'));
    t.true(subject.nearPairs.hasPrefixTable('r1'), 'a prefix one character longer reads its short prefix\'s tagged table');
    t.is(subject.nearPairs.hasPrefixTable('r15'), SHORT_PREFIX_LENGTH + SPLIT_LENGTH >= 3, 'within the tags');
    t.false(subject.nearPairs.hasPrefixTable('r150'), 'longer prefixes stay lazy');
    t.false(subject.nearPairs.hasPrefixTable('st'), 'no rare word starts with it');
    const random = randomFrom(17);
    for (let k = 0; k < 40; k++) {
      const q = `${WORDS[Math.floor(random() * 6)]} ${['r', 'r1', 'r2', 'r4', 'r5', 'r9', 'r15', 'r40'][k % 8]}`;
      const expected = reference.search({ q, hitsWanted: 30, matchingStrategy: 'last', bitmapBuckets: false });
      t.deepEqual(subject.search({ q, hitsWanted: 30, matchingStrategy: 'last' }).hits, expected.hits, q);
    }
  } finally {
    Object.assign(PREFIX_TABLE_POLICY, policy);
  }
});

test('changes since a build: each build in progress gets the documents written after its start, whichever ends first', (t) => {
  const changes = new ChangesSinceBuild();
  const sliced = changes.startBuild();
  changes.markChanged(1);
  const atOnce = changes.startBuild(); // a search builds meanwhile, at once
  changes.markChanged(2);
  changes.markBuilt(atOnce);
  t.deepEqual(changes.changed.toArray(), [2]);
  changes.markChanged(3);
  t.deepEqual(changes.changed.toArray(), [2, 3]);
  // The sliced build, still running, ends later: what it did not see since its start is changed.
  changes.markBuilt(sliced);
  t.deepEqual(changes.changed.toArray(), [1, 2, 3]);
  const abandoned = changes.startBuild();
  changes.abandonBuild(abandoned);
  changes.markChanged(4);
  t.deepEqual(abandoned.toArray(), [], 'an abandoned build is no longer told');
  t.deepEqual(changes.changed.toArray(), [1, 2, 3, 4]);
});

test('with a rebuild in slices on its way, the rank / position lists follow writes in place only until twice the tokens that made the rebuild due were written, then go (a bulk load after an early build); searches answer as a shard built at once', (t) => {
  const { subject, reference } = twins(3000, 71);
  // Built whole (as after a load), then the rest.
  for (const shard of [subject, reference]) {
    shard.trim();
    shard.prepareForSearch();
  }
  // What the worker does to a built shard a write batch makes stale (shard-engine.ts writeBatch, rebuildsDue).
  subject.deferBuilds(true);
  const writes = randomFrom(72);
  let chunk = 0;
  const writeChunk = (): void => rewriteAll([subject, reference], writes, 500, 40_000, 100_000 + 500 * chunk++, 9);
  while (!subject.rankPostings.needsRebuild) writeChunk();
  const dueAfter = chunk;
  t.true(subject.rankPostings.byteLength > 0 && subject.positionPostings.byteLength > 0, 'kept up to date while deferred');
  while (chunk < 1.5 * dueAfter) writeChunk();
  t.true(subject.rankPostings.byteLength > 0, 'still kept at 1.5 times the tokens that made the rebuild due');
  while (chunk < 2.5 * dueAfter + 2) writeChunk();
  t.is(subject.rankPostings.byteLength, 0, 'dropped past twice');
  t.is(subject.positionPostings.byteLength, 0);
  sameAnswers(t, subject, reference, randomFrom(73), 40);
  t.false(subject.rankPostings.needsRebuild, 'the first search needing them rebuilt them at once');
  subject.deferBuilds(false);
  writeChunk();
  sameAnswers(t, subject, reference, randomFrom(74), 40);
});
