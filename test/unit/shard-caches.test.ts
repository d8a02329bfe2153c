// A shard's caches (src/shard/shard-caches.ts): one object, its entries checked against the writes
// since they were made (shard-caches-writes.test.ts: randomized), its bytes accounted; answers after
// a write equal a fresh shard's.
import test from 'ava';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, sameAnswers, twins } from './shard-twins.js';
import { NO_DOCUMENTS } from '../../src/ranking/scores/score-layers.js';
import { allLists } from '../../src/ranking/keyed-lists.js';

test('searches fill the shard caches (derivations, lexicon walks, pair memos); a write to their words makes them stale, and answers stay a fresh twin\'s', (t) => {
  const { subject, reference } = twins(2_000, 7);
  // Cached from a term's first miss (the doorkeeper, tested below, offers them from the second).
  subject.cacheOnSecondMiss = false;
  subject.prepareForSearch();
  for (const q of ['star wars', 'the dark side', 'jedi empire back', 'ga', 'r1 r2']) subject.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
  const filled = subject.caches.byteSizes();
  t.true(filled.derivations > 0, 'derivations held');
  t.true(filled.pairMemos > 0, 'pair memos held');
  t.true(filled.derivedWordsEntries > 0, 'lexicon walks held');
  const star = subject.derive('star', false, 0);
  const random = randomFrom(8);
  const document = makeDocument(random, 5);
  // Every queried word (and the words 'ga' and 'r1' stand for) in one document.
  document['body'] = 'star wars the dark side jedi empire back galaxy r1 r10 r11 r12 r13 r14 r15 r16 r17 r18 r19 r2';
  subject.upsert(5, document);
  reference.upsert(5, document);
  subject.flushWrites();
  reference.flushWrites();
  for (const q of ['star wars', 'the dark side', 'jedi empire back', 'ga', 'r1 r2']) subject.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
  t.not(subject.derive('star', false, 0), star, 'a stale entry is derived again');
  sameAnswers(t, subject, reference, randomFrom(9), 30);
});

test('every derived structure is told of writes, built at quiet time and counted: after a write to every document each wants a build, prepareForSearch builds them all, and answers stay a fresh twin\'s', (t) => {
  // 3,000 documents: rewriting them all writes more tokens than a full rebuild of the postings waits for (65,536).
  const { subject, reference } = twins(3_000, 11);
  subject.trim();
  subject.prepareForSearch();
  t.false(subject.needsPreparing);
  t.is(subject.derived.length, 8);
  // The last three, the short prefixes' lists, are never built: made per prefix when searched, then following the writes (prefix-postings.test.ts).
  const built = subject.memoryBytes().derived.slice(0, 5);
  t.true(built.every((bytes) => bytes > 0), `bytes per structure ${built.join(', ')}`);
  const random = randomFrom(12);
  for (let docId = 0; docId < 3_000; docId++) {
    const document = makeDocument(random, docId);
    subject.upsert(docId, document);
    reference.upsert(docId, document);
  }
  subject.flushWrites();
  reference.flushWrites();
  t.deepEqual(subject.derived.map((structure) => structure.needsBuild), [true, true, true, true, true, false, false, false]);
  subject.prepareForSearch();
  t.false(subject.needsPreparing);
  sameAnswers(t, subject, reference, randomFrom(13), 30);
});

test('cached derivations hold no empty bitmap of their own: empty typo levels and rank / position unions are the one frozen empty bitmap (fewer native objects for the collector)', (t) => {
  const { subject } = twins(2_000, 7);
  subject.cacheOnSecondMiss = false;
  subject.prepareForSearch();
  // Typos (levels without documents), prefixes, several words (rank and position unions), a word found nowhere.
  for (const q of ['star wars', 'the dark side', 'jedi empire back', 'ga', 'r1 r2', 'stra wrs', 'galaxx', 'empire jed', 'zzqx star']) {
    subject.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
  }
  let bitmaps = 0;
  let emptyLevels = 0;
  const own: string[] = [];
  for (const derivations of subject.caches.derivations.values()) {
    const lists = [['docs', [derivations.docs]], ['docsByTypo', derivations.docsByTypo], ['docsByRank', allLists(derivations.docsByRank ?? [])],
      ['docsByPosition', allLists(derivations.docsByPosition ?? [])]] as const;
    for (const [field, list] of lists) {
      for (const bitmap of list) {
        bitmaps++;
        if (!bitmap.isEmpty) continue;
        if (bitmap === NO_DOCUMENTS) emptyLevels++;
        else own.push(`${derivations.words.length} words: ${field}`);
      }
    }
  }
  t.true(bitmaps > 100, `bitmaps held ${bitmaps}`);
  t.true(emptyLevels > 0, 'some levels are empty');
  t.deepEqual(own, [], 'empty bitmaps of their own');
  t.throws(() => NO_DOCUMENTS.add(1), undefined, 'the shared one is frozen');
});

test('the derivation cache\'s doorkeeper: a term\'s first miss keeps nothing (no entry, no lexicon walk), its second is cached; a frequent term is kept at once; with cacheOnSecondMiss false every term is', (t) => {
  const { subject, reference } = twins(1_000, 7);
  reference.cacheOnSecondMiss = false;
  for (const shard of [subject, reference]) shard.prepareForSearch();
  // Terms without documents (an n-gram, a typo matching nothing): under 1 / 1,024 of the documents.
  subject.search({ q: 'zzqxv', hitsWanted: 20, matchingStrategy: 'last' });
  t.deepEqual(subject.caches.byteSizes(), { derivations: 0, pairMemos: 0, derivedWordsEntries: 0, retiredEntries: 0 }, 'nothing kept after one miss');
  const first = subject.derive('zzqxv', true, 1);
  t.true(subject.caches.derivations.size === 1 && subject.caches.derivations.has('p1zzqxv'), 'cached at the second miss');
  t.is(subject.derive('zzqxv', true, 1), first, 'then read from the cache');
  subject.search({ q: 'galaxy', hitsWanted: 20, matchingStrategy: 'last' });
  t.true(subject.caches.derivations.has('p1galaxy'), 'a frequent term at its first miss');
  subject.frequentTermShare = Infinity;
  subject.search({ q: 'jedi', hitsWanted: 20, matchingStrategy: 'last' });
  t.false(subject.caches.derivations.has('p0jedi'), 'none frequent: the doorkeeper for all');
  reference.search({ q: 'zzqxv', hitsWanted: 20, matchingStrategy: 'last' });
  t.true(reference.caches.derivations.has('p1zzqxv'), 'off: cached at the first miss');
});

test('randomized: answers with the doorkeeper equal those caching every derivation from its first miss, under writes between rounds of searches', (t) => {
  const { subject, reference } = twins(1_500, 21);
  reference.cacheOnSecondMiss = false;
  // Every term through the doorkeeper (in a shard this small nearly every term is frequent).
  subject.frequentTermShare = Infinity;
  const random = randomFrom(22);
  for (let round = 0; round < 6; round++) {
    // The query generator's vocabulary is small: terms come back, cached or not, stale or not.
    sameAnswers(t, subject, reference, randomFrom(100 + (round % 3)), 40);
    for (let k = 0; k < 20; k++) {
      const docId = Math.floor(random() * 1_700);
      if (random() < 0.2) {
        subject.delete(docId);
        reference.delete(docId);
        continue;
      }
      const document = makeDocument(random, docId, 80);
      subject.upsert(docId, document);
      reference.upsert(docId, document);
    }
    subject.flushWrites();
    reference.flushWrites();
  }
});
