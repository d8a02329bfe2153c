// A shard's caches (src/shard/shard-caches.ts): one object, its entries checked against the writes
// since they were made (shard-caches-writes.test.ts: randomized), its bytes accounted; answers after
// a write equal a fresh shard's.
import test from 'ava';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, sameAnswers, twins } from './shard-twins.js';
import { NO_DOCUMENTS } from '../../src/ranking/score-layers.js';

test('searches fill the shard caches (derivations, lexicon walks, pair memos); a write to their words makes them stale, and answers stay a fresh twin\'s', (t) => {
  const { subject, reference } = twins(2_000, 7);
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
  t.is(subject.derived.length, 5);
  const built = subject.memoryBytes().derived;
  t.true(built.every((bytes) => bytes > 0), `bytes per structure ${built.join(', ')}`);
  const random = randomFrom(12);
  for (let docId = 0; docId < 3_000; docId++) {
    const document = makeDocument(random, docId);
    subject.upsert(docId, document);
    reference.upsert(docId, document);
  }
  subject.flushWrites();
  reference.flushWrites();
  t.deepEqual(subject.derived.map((structure) => structure.needsBuild), [true, true, true, true, true]);
  subject.prepareForSearch();
  t.false(subject.needsPreparing);
  sameAnswers(t, subject, reference, randomFrom(13), 30);
});

test('cached derivations hold no empty bitmap of their own: empty typo levels and rank / position unions are the one frozen empty bitmap (fewer native objects for the collector)', (t) => {
  const { subject } = twins(2_000, 7);
  subject.prepareForSearch();
  // Typos (levels without documents), prefixes, several words (rank and position unions), a word found nowhere.
  for (const q of ['star wars', 'the dark side', 'jedi empire back', 'ga', 'r1 r2', 'stra wrs', 'galaxx', 'empire jed', 'zzqx star']) {
    subject.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
  }
  let bitmaps = 0;
  let emptyLevels = 0;
  const own: string[] = [];
  for (const derivations of subject.caches.derivations.values()) {
    const lists = [['docs', [derivations.docs]], ['docsByTypo', derivations.docsByTypo], ['docsByRank', derivations.docsByRank ?? []],
      ['docsByPosition', derivations.docsByPosition ?? []]] as const;
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
