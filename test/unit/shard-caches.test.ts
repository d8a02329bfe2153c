// A shard's caches (src/shard/shard-caches.ts): one object, dropped whole at any write, its bytes
// accounted; answers after a write equal a fresh shard's.
import test from 'ava';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, sameAnswers, twins } from './shard-twins.js';

test('searches fill the shard caches (derivations, lexicon walks, pair memos); a write empties them all, and answers stay a fresh twin\'s', (t) => {
  const { subject, reference } = twins(2_000, 7);
  subject.prepareForSearch();
  for (const q of ['star wars', 'the dark side', 'jedi empire back', 'ga', 'r1 r2']) subject.search({ q, hitsWanted: 20, matchingStrategy: 'last' });
  const filled = subject.caches.byteSizes();
  t.true(filled.derivations > 0, 'derivations held');
  t.true(filled.pairMemos > 0, 'pair memos held');
  t.true(filled.derivedWordsEntries > 0, 'lexicon walks held');
  const random = randomFrom(8);
  const document = makeDocument(random, 5);
  subject.upsert(5, document);
  reference.upsert(5, document);
  subject.flushWrites();
  reference.flushWrites();
  t.deepEqual(subject.caches.byteSizes(), { derivations: 0, pairMemos: 0, derivedWordsEntries: 0 });
  sameAnswers(t, subject, reference, randomFrom(9), 30);
});
