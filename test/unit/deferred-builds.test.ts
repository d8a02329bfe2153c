// Builds deferred to the shard worker's background jobs (ShardIndex.deferBuilds, SlicedJobs catch-up
// jobs): while a bulk-loaded shard's structures wait for their sliced build, searches read documents
// instead of building at once, and must answer exactly as a shard built at once; the build then runs
// with a fair share of the thread.
import test from 'ava';
import { CATCH_UP_MAX_SLICE_MS, CATCH_UP_SHARE, finishSteps, SlicedJobs, type SlicedJob } from '../../src/shard/sliced-jobs.js';
import { sharedPairMemo } from '../../src/shard/pairs/shared-pair-memos.js';
import { BUILD_AT_ONCE_FROM_QUERIES, ShardEngine } from '../../src/shard/shard-engine.js';
import { PREFIX_TABLE_POLICY } from '../../src/shard/pairs/prefix-pair-tables.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, makeQuery, rewriteAll, sameAnswers, twins, withSmallSteps, WORDS } from './shard-twins.js';
import type { ShardIndex } from '../../src/shard/shard-index.js';

function staleStructures(shard: ShardIndex): string[] {
  const stale: string[] = [];
  if (shard.rankPostings.needsRebuild) stale.push('rank');
  if (shard.positionPostings.needsRebuild) stale.push('position');
  if (shard.nearPairs.needsBuild) stale.push('nearPairs');
  if (shard.soleWordFields.needsBuild) stale.push('soleWordFields');
  return stale;
}

const ALL_STALE = ['rank', 'position', 'nearPairs', 'soleWordFields'];
/** What searches still build at once while builds are deferred. */
const DEFERRED = ['nearPairs', 'soleWordFields'];

test('with builds deferred, searches on a bulk-loaded shard leave the near-pair and sole-word builds to the background, and answer as a shard built at once', withSmallSteps((t) => {
  // Short prefixes get tables from the build (many rare words), which lookups gathered before it did not use.
  const policy = { ...PREFIX_TABLE_POLICY };
  Object.assign(PREFIX_TABLE_POLICY, { minDocuments: 40 });
  t.teardown(() => Object.assign(PREFIX_TABLE_POLICY, policy));
  const { subject, reference } = twins(5000, 41, 600);
  t.deepEqual(staleStructures(subject), ALL_STALE, 'never built');
  subject.deferBuilds(true);
  sameAnswers(t, subject, reference, randomFrom(42), 60);
  const prefixQueries = WORDS.slice(0, 6).flatMap((word) => [`${word} r`, `${word} r1`, `${word} r4`]);
  const samePrefixAnswers = (): void => {
    for (const q of prefixQueries) {
      const expected = reference.search({ q, hitsWanted: 30, matchingStrategy: 'last' });
      t.deepEqual(subject.search({ q, hitsWanted: 30, matchingStrategy: 'last' }).hits, expected.hits, q);
    }
  };
  samePrefixAnswers();
  t.deepEqual(staleStructures(subject), DEFERRED, 'the searches built the rank and position lists, and left the rest to the background');
  // The background build, searches between its steps (they use what it swapped in so far).
  const steps = subject.prepareSteps();
  let count = 0;
  while (!steps.next().done) if (count++ % 50 === 0) sameAnswers(t, subject, reference, randomFrom(count), 3);
  t.true(count > 100, `a build in many steps (${count})`);
  subject.deferBuilds(false);
  t.deepEqual(staleStructures(subject), []);
  // The same queries again: what searches gathered before the build (shared pair memos) is not taken for the new tables.
  t.true(subject.nearPairs.hasPrefixTable('r'), 'the build made the short prefix tables');
  sameAnswers(t, subject, reference, randomFrom(42), 60);
  samePrefixAnswers();
}));

test('with builds deferred after rewrites past the rebuild thresholds, searches read the changed documents', withSmallSteps((t) => {
  const { subject, reference } = twins(3000, 43);
  subject.prepareForSearch();
  reference.prepareForSearch();
  rewriteAll([subject, reference], randomFrom(44), 3000, 3500, 4000, 5);
  t.deepEqual(staleStructures(subject), ALL_STALE, 'stale again');
  subject.deferBuilds(true);
  sameAnswers(t, subject, reference, randomFrom(45), 60);
  t.deepEqual(staleStructures(subject), DEFERRED);
  subject.deferBuilds(false);
  sameAnswers(t, subject, reference, randomFrom(46), 20);
  t.deepEqual(staleStructures(subject), [], 'not deferred: the next searches build at once, as before');
}));

test('a pair lookup gathered before a near-pair build is not shared with the searches after it', withSmallSteps((t) => {
  const policy = { ...PREFIX_TABLE_POLICY };
  Object.assign(PREFIX_TABLE_POLICY, { minDocuments: 40 });
  t.teardown(() => Object.assign(PREFIX_TABLE_POLICY, policy));
  const { subject } = twins(5000, 41, 600);
  const vocabulary = subject.vocabulary;
  const side = (wordIds: number[], prefix?: string) => {
    const set = new Uint8Array(vocabulary.size);
    for (const wordId of wordIds) set[wordId] = 1;
    return { wordIds, set, ...(prefix === undefined ? {} : { prefix }) };
  };
  const left = side([vocabulary.idOf('star')!]);
  const right = side(Array.from({ length: vocabulary.size }, (_, wordId) => wordId).filter((wordId) => vocabulary.wordOf(wordId).startsWith('r')), 'r');
  const star = subject.derive('star', false, 0);
  const prefix = subject.derive('r', true, 0);
  subject.deferBuilds(true);
  const before = sharedPairMemo(subject, star, prefix);
  const within = subject.nearPairs.pairDocsWithin(1, left, right, subject.documents, before).size;
  finishSteps(subject.prepareSteps());
  subject.deferBuilds(false);
  // What the memo gathered (no frequent words yet) would now miss what the new tables hold: such a memo is a new one.
  t.true(within > 0);
  t.is(subject.nearPairs.pairDocsWithin(1, left, right, subject.documents, { byCost: [] }).size, within);
  t.not(sharedPairMemo(subject, star, prefix), before);
  t.is(subject.derive('star', false, 0), star, 'the same derivations (no write between)');
}));

test('before a light query batch stale shards are built in the background, builds deferred meanwhile; a full batch builds them at once', (t) => {
  for (const queriesWaiting of [1, BUILD_AT_ONCE_FROM_QUERIES]) {
    const engine = new ShardEngine(0, 1);
    const random = randomFrom(47);
    engine.loadIndex('books', 1, null, Array.from({ length: 2000 }, (_, docId): [number, Record<string, unknown>] => [docId, makeDocument(random, docId)]));
    const shard = [...engine.allShards()][0]!;
    t.true(shard.needsPreparing, 'a load leaves the pair tables and sole-word fields unbuilt');
    const slices: (() => void)[] = [];
    const jobs = new SlicedJobs({ schedule: (run) => slices.push(run) });
    engine.prepareStaleShards(jobs, queriesWaiting);
    if (queriesWaiting >= BUILD_AT_ONCE_FROM_QUERIES) {
      t.false(shard.needsPreparing, 'built at once');
      t.is(jobs.pending, 0);
      t.false(shard.nearPairs.buildsDeferred);
      continue;
    }
    t.true(shard.needsPreparing);
    t.true(jobs.has(shard) && shard.nearPairs.buildsDeferred && shard.soleWordFields.buildsDeferred);
    engine.prepareStaleShards(jobs, queriesWaiting);
    t.is(jobs.pending, 1, 'queued once');
    while (slices.length > 0) slices.shift()!();
    t.false(shard.needsPreparing);
    t.false(shard.nearPairs.buildsDeferred || shard.soleWordFields.buildsDeferred, 'no longer deferred once built');
  }
});

/** A runner whose clock the test drives: `work` advances it as other work between slices would. */
function clockedRunner(): { jobs: SlicedJobs; slices: (() => void)[]; advance: (ms: number) => void } {
  let clock = 0;
  const slices: (() => void)[] = [];
  const jobs = new SlicedJobs({ sliceMs: 4, schedule: (run) => slices.push(run), now: () => clock });
  return { jobs, slices, advance: (ms) => (clock += ms) };
}

/** A job whose every step costs 1 ms of the test's clock; counts its steps. */
function* oneMsSteps(advance: (ms: number) => void, counter: { steps: number }): SlicedJob {
  for (;;) {
    advance(1);
    counter.steps++;
    yield;
  }
}

test('a catch-up job gets slices CATCH_UP_SHARE times as long as the work between them took, up to the cap; a plain job keeps short slices', (t) => {
  for (const catchUp of [true, false]) {
    const { jobs, slices, advance } = clockedRunner();
    const counter = { steps: 0 };
    jobs.enqueue('build', () => oneMsSteps(advance, counter), { catchUp });
    const slice = (): number => {
      const before = counter.steps;
      slices.shift()!();
      return counter.steps - before;
    };
    t.is(slice(), 4, 'the first slice is the plain length');
    advance(50); // a query batch of 50 ms between two slices
    t.is(slice(), catchUp ? 50 * CATCH_UP_SHARE : 4);
    t.is(slice(), 4, 'nothing ran between: back to the plain length');
    advance(10_000);
    t.is(slice(), catchUp ? CATCH_UP_MAX_SLICE_MS : 4, 'capped');
    jobs.cancelAll();
  }
});

test('a catch-up slice runs when the worker asks, before a message, and only for a catch-up job', (t) => {
  for (const catchUp of [true, false]) {
    const { jobs, slices, advance } = clockedRunner();
    const counter = { steps: 0 };
    jobs.enqueue('build', () => oneMsSteps(advance, counter), { catchUp });
    slices.shift()!();
    const before = counter.steps;
    advance(30); // the previous query batch
    jobs.runCatchUpSlice();
    t.is(counter.steps - before, catchUp ? 30 * CATCH_UP_SHARE : 0);
    jobs.cancelAll();
  }
});

test('a plain job queued before a catch-up job gets the catch-up share, so the catch-up job does not wait behind it', (t) => {
  const { jobs, slices, advance } = clockedRunner();
  const log: string[] = [];
  const finite = (name: string, steps: number) => function* (): SlicedJob {
    for (let k = 0; k < steps; k++) {
      advance(1);
      log.push(name);
      yield;
    }
  };
  jobs.enqueue('save', finite('save', 20));
  jobs.enqueue('build', finite('build', 1000), { catchUp: true });
  slices.shift()!();
  t.is(log.length, 4);
  advance(30);
  jobs.runCatchUpSlice();
  t.is(log.length, 4 + 30 * CATCH_UP_SHARE);
  t.deepEqual(log.slice(20), Array.from({ length: 30 * CATCH_UP_SHARE - 16 }, () => 'build'));
  jobs.cancelAll();
});

test('onLeave runs once when a job finishes, throws, or is cancelled, started or not', (t) => {
  const { jobs, slices, advance } = clockedRunner();
  const left: string[] = [];
  const finite = function* (): SlicedJob {
    advance(1);
    yield;
  };
  jobs.enqueue('done', finite, { onLeave: () => left.push('done') });
  // eslint-disable-next-line require-yield
  jobs.enqueue('throws', function* () { throw new Error('boom'); }, { onLeave: () => left.push('throws') });
  while (slices.length > 0) slices.shift()!();
  t.deepEqual(left, ['done', 'throws']);
  const counter = { steps: 0 };
  jobs.enqueue('started', () => oneMsSteps(advance, counter), { onLeave: () => left.push('started') });
  jobs.enqueue('queued', () => oneMsSteps(advance, counter), { onLeave: () => left.push('queued') });
  slices.shift()!();
  t.true(counter.steps > 0);
  jobs.cancelAll();
  t.deepEqual(left, ['done', 'throws', 'started', 'queued']);
  while (slices.length > 0) slices.shift()!();
  t.is(left.length, 4, 'once each');
});

test('writes that make a built shard\'s structures stale leave their rebuild to slices, even before a full query batch, and the shard answers as a fresh twin meanwhile', (t) => {
  const engine = new ShardEngine(0, 1);
  const random = randomFrom(53);
  const documents = new Map<number, Record<string, unknown>>();
  for (let docId = 0; docId < 3000; docId++) documents.set(docId, makeDocument(random, docId));
  engine.loadIndex('books', 1, null, [...documents]);
  engine.prepareForSearch();
  const shard = [...engine.allShards()][0]!;
  t.false(shard.needsPreparing, 'built');
  // Rewrites of most documents: past the rebuild thresholds of the pair tables and sole-word fields
  // (1,024 documents) and of the rank / position lists (65,536 tokens), searched at every yield point.
  const ops = Array.from({ length: 4000 }, (_, k) => {
    const docId = Math.floor(random() * 3200);
    const document = makeDocument(random, 5000 + k);
    documents.set(docId, document);
    return { kind: 'upsert' as const, docId, document: JSON.stringify(document) };
  });
  let searchedStale = 0;
  engine.writeBatch('books', 0, ops, () => {
    engine.search({ indexUid: 'books', shards: [0], q: 'star wa', hitsWanted: 20, matchingStrategy: 'last' });
    if (shard.needsPreparing) searchedStale++;
  }, { sliceMs: 0, fairShare: false });
  t.true(searchedStale > 0, 'searches ran while the structures were stale');
  t.true(shard.rankPostings.needsRebuild && shard.nearPairs.needsBuild, 'the searches built nothing at once');
  const slices: (() => void)[] = [];
  const jobs = new SlicedJobs({ schedule: (run) => slices.push(run) });
  engine.prepareStaleShards(jobs, BUILD_AT_ONCE_FROM_QUERIES);
  t.true(shard.needsPreparing, 'not built at once by a full batch');
  t.true(jobs.has(shard) && shard.nearPairs.buildsDeferred);
  const reference = new ShardEngine(0, 1);
  reference.loadIndex('books', 1, null, [...documents]);
  reference.prepareForSearch();
  const sameAsReference = (label: string): void => {
    const answers = randomFrom(59);
    for (let k = 0; k < 30; k++) {
      const q = makeQuery(answers);
      const query = { indexUid: 'books', shards: [0], q, hitsWanted: 20, matchingStrategy: 'last' as const };
      const expected = reference.search(query);
      const actual = engine.search(query);
      t.deepEqual(actual.hits, expected.hits, `${label} q=${JSON.stringify(q)}`);
      t.is(actual.candidates, expected.candidates);
    }
  };
  sameAsReference('deferred');
  t.true(shard.needsPreparing, 'still left to the slices');
  engine.prepareStaleShards(jobs, BUILD_AT_ONCE_FROM_QUERIES);
  t.is(jobs.pending, 1, 'queued once');
  while (slices.length > 0) slices.shift()!();
  t.false(shard.needsPreparing);
  t.false(shard.nearPairs.buildsDeferred || shard.rankPostings.needsRebuild, 'built, no longer deferred');
  sameAsReference('rebuilt');
});
