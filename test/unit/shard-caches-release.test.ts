// The derivations a shard's caches let go of (stale, evicted, dropped whole by a write batch) have their
// own bitmaps freed at the worker's top level (ShardCaches.releaseRetired, TermDerivations.owned) instead
// of by the collector inside a full collection's pause. Only bitmaps made for a derivation alone may be
// freed: a word's posting list, a rank / position list or the shared empty one emptied would change
// every later answer. Randomized writes, whole drops and releases between searches must answer exactly
// as an index built fresh from the same documents.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { IndexSettings } from '../../src/settings/index-settings.js';
import { NO_DOCUMENTS } from '../../src/ranking/scores/score-layers.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, makeQuery, WORDS } from './shard-twins.js';

function freshIndex(settings: Partial<IndexSettings>, documents: ReadonlyMap<number, Record<string, unknown>>): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig(settings));
  for (const docId of [...documents.keys()].sort((a, b) => a - b)) shard.upsert(docId, documents.get(docId)!);
  shard.flushWrites();
  return shard;
}

const SETTINGS: Partial<IndexSettings>[] = [
  {},
  // Synonyms: derivations with phrases and zero-typo alternatives (withSynonyms' unions).
  { synonyms: { r5: ['r105'], hope: ['r10 r11'], jedi: ['wars'] } },
  { typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 3, twoTypos: 5 }, disableOnWords: [], disableOnNumbers: false, disableOnAttributes: ['tags'] } },
];

for (let round = 0; round < 6; round++) {
  test(`derivations let go of and freed between searches leave every answer as a fresh index's (round ${round})`, (t) => {
    const settings = SETTINGS[round % SETTINGS.length]!;
    const random = randomFrom(1300 + round);
    const documents = new Map<number, Record<string, unknown>>();
    const subject = new ShardIndex(compileIndexConfig(settings));
    subject.cacheOnSecondMiss = false;
    for (let docId = 0; docId < 600; docId++) {
      const document = makeDocument(random, docId, 60);
      documents.set(docId, document);
      subject.upsert(docId, document);
    }
    subject.flushWrites();
    if (round % 2 === 0) subject.prepareForSearch();
    // A fixed pool (terms come back: cached entries are read, then let go of), with prefixes and typos.
    const pool = [...Array.from({ length: 30 }, () => makeQuery(random)), 'sta', 'st', 'ja', 'emp', 'gal', 'star wars', 'dark si', 'jedx', 'r1', 'r10 r11'];
    let reference = freshIndex(settings, documents);
    let released = 0;
    let compared = 0;
    for (let step = 0; step < 30; step++) {
      for (let k = 0; k < 12; k++) {
        const q = pool[Math.floor(random() * pool.length)]!;
        const hitsWanted = random() < 0.3 ? 300 : 1 + Math.floor(random() * 30);
        const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
        const actual = subject.search({ q, hitsWanted, matchingStrategy });
        const expected = reference.search({ q, hitsWanted, matchingStrategy });
        t.deepEqual(actual.hits, expected.hits, `step ${step} q=${JSON.stringify(q)} ${matchingStrategy}`);
        t.is(actual.candidates, expected.candidates, `step ${step} q=${JSON.stringify(q)} ${matchingStrategy}`);
        compared += actual.hits.length;
      }
      // Let go of: a few writes (stale entries), or the whole cache as a write batch of many documents does.
      const roll = random();
      if (roll < 0.4) {
        for (let k = 0; k < 1 + Math.floor(random() * 3); k++) {
          const docId = Math.floor(random() * 640);
          if (random() < 0.3) {
            subject.delete(docId);
            documents.delete(docId);
          } else {
            const document = makeDocument(random, docId, 60);
            subject.upsert(docId, document);
            documents.set(docId, document);
          }
        }
        subject.flushWrites();
        reference = freshIndex(settings, documents);
      } else if (roll < 0.8) {
        subject.caches.clear();
      }
      released += subject.caches.retiredCount;
      // The worker's top level: no search running.
      subject.caches.releaseRetired(Infinity);
      t.is(subject.caches.retiredCount, 0);
    }
    t.true(released > 40, `${released} derivations released`);
    t.true(compared > 1000, `${compared} hits compared`);
  });
}

test('releaseRetired empties the unions made for derivations let go of, never a word\'s own list, a rank / position list or the shared empty one', (t) => {
  const random = randomFrom(77);
  const shard = new ShardIndex(compileIndexConfig({}));
  // A short prefix's union would be the shard's kept list (prefix-postings.ts), not one made for its derivations.
  shard.prefixUnions = false;
  shard.cacheOnSecondMiss = false;
  for (let docId = 0; docId < 400; docId++) shard.upsert(docId, makeDocument(random, docId, 60));
  shard.flushWrites();
  shard.prepareForSearch();
  const before = WORDS.map((word) => shard.vocabulary.docs(shard.vocabulary.idOf(word)!).toArray());
  const rankLists = WORDS.map((word) => shard.rankPostings.unionByKey([shard.vocabulary.idOf(word)!]).map((list) => list.size));
  const answer = (q: string) => {
    const { hits, candidates } = shard.search({ q, hitsWanted: 50, matchingStrategy: 'last' });
    return { hits, candidates };
  };
  const queries = ['star', 'st', 'stxr wars', 'dark si', 'r1'];
  const answers = queries.map(answer);
  const prefix = shard.derive('st', true, 0);
  t.true(prefix.words.length > 1, 'a prefix of several words');
  t.true((prefix.owned ?? []).includes(prefix.docs), 'its union is its own');
  const lone = shard.derive('star', false, 0);
  t.false((lone.owned ?? []).includes(lone.docs), 'a lone word\'s list is not');
  const unionSize = prefix.docs.size;
  t.true(unionSize > 0);
  shard.caches.clear();
  t.true(shard.caches.retiredCount > 0);
  t.is(prefix.docs.size, unionSize, 'nothing freed before releaseRetired');
  shard.caches.releaseRetired(Infinity);
  t.is(prefix.docs.size, 0, 'the union freed');
  t.is(prefix.owned, undefined);
  t.true(NO_DOCUMENTS.isEmpty);
  t.deepEqual(WORDS.map((word) => shard.vocabulary.docs(shard.vocabulary.idOf(word)!).toArray()), before, 'the words\' lists as they were');
  t.deepEqual(WORDS.map((word) => shard.rankPostings.unionByKey([shard.vocabulary.idOf(word)!]).map((list) => list.size)), rankLists, 'the rank lists as they were');
  t.deepEqual(queries.map(answer), answers, 'the same answers, derived again');
});
