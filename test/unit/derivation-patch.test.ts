// Stale cached derivations patched with the documents written since (ShardIndex.patchStale,
// words/derivations.ts patchedDerivations) instead of derived again: every level must hold exactly the
// documents a fresh index derives, across random write batches (rewrites, deletions, new words that
// join a prefix's or a typo's walk, words emptied), and searches must answer as with patching off.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { IndexSettings } from '../../src/settings/index-settings.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, makeQuery } from './shard-twins.js';

/** Words only later writes bring: prefix extensions and typo neighbours of the terms asked. */
const LATE_WORDS = ['stair', 'starship', 'warz', 'jedis', 'empires', 'galaxies', 'dakr', 'sidewalk', 'starwars', 'ba', 'farther', 'r1000'];

function document(random: () => number, id: number, late: boolean): Record<string, unknown> {
  const made = makeDocument(random, id, 90);
  if (late && random() < 0.5) made['title'] = `${made['title'] as string} ${LATE_WORDS[Math.floor(random() * LATE_WORDS.length)]!}`;
  return made;
}

function freshIndex(settings: Partial<IndexSettings>, documents: ReadonlyMap<number, Record<string, unknown>>): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig(settings));
  for (const docId of [...documents.keys()].sort((a, b) => a - b)) shard.upsert(docId, documents.get(docId)!);
  shard.flushWrites();
  return shard;
}

/** A term's derived words (by text) and each typo level's documents, comparable across two indexes. */
function derivationOf(shard: ShardIndex, word: string, isPrefix: boolean, budget: number): { words: string[]; levels: number[][]; docs: number[] } {
  const derivations = shard.derive(word, isPrefix, budget, [], false);
  return {
    words: derivations.words.map((derivation) => `${shard.vocabulary.wordOf(derivation.wordId)}/${derivation.typos}/${derivation.exact}`),
    levels: derivations.docsByTypo.map((docs) => docs.toArray()),
    docs: derivations.docs.toArray(),
  };
}

const SETTINGS: Partial<IndexSettings>[] = [
  {},
  { typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 3, twoTypos: 5 }, disableOnWords: [], disableOnNumbers: false, disableOnAttributes: ['tags'] } },
];
const TERMS = ['s', 'st', 'sta', 'star', 'stai', 'wars', 'warz', 'jedi', 'dakr', 'r1', 'r7', 'side', 'farthr', 'ga', 'b', 'empire'];

for (let round = 0; round < 4; round++) {
  test(`randomized: patched derivations hold the documents a fresh index derives, level by level (round ${round})`, (t) => {
    const settings = SETTINGS[round % SETTINGS.length]!;
    const random = randomFrom(900 + round);
    const documents = new Map<number, Record<string, unknown>>();
    const subject = new ShardIndex(compileIndexConfig(settings));
    subject.cacheOnSecondMiss = false;
    const span = 400;
    for (let docId = 0; docId < span; docId++) {
      const made = document(random, docId, false);
      documents.set(docId, made);
      subject.upsert(docId, made);
    }
    subject.flushWrites();
    let compared = 0;
    for (let step = 0; step < 30; step++) {
      // A batch of 1-24 writes: rewrites (late words), new documents, deletions (a word may lose its last document).
      const writes = 1 + Math.floor(random() * 24);
      for (let k = 0; k < writes; k++) {
        const docId = Math.floor(random() * (span + 60));
        if (random() < 0.3) {
          subject.delete(docId);
          documents.delete(docId);
        } else {
          const made = document(random, docId, step > 2);
          subject.upsert(docId, made);
          documents.set(docId, made);
        }
      }
      if (random() < 0.5) subject.flushWrites();
      const reference = freshIndex(settings, documents);
      for (const term of TERMS) {
        for (const [isPrefix, budget] of [[true, 0], [false, 1], [true, 1], [true, 2]] as const) {
          t.deepEqual(derivationOf(subject, term, isPrefix, budget), derivationOf(reference, term, isPrefix, budget), `step ${step} ${term} ${isPrefix} ${budget}`);
          compared++;
        }
      }
    }
    t.true(compared > 1000);
    // The patch did the work (not derivations made anew every time).
    t.true(subject.caches.patched > 100, `${subject.caches.patched} derivations patched`);
  });
}

test('randomized: searches under write batches answer alike with stale derivations patched or derived again', (t) => {
  const random = randomFrom(990);
  const [patched, derived] = [true, false].map((on) => {
    const shard = new ShardIndex(compileIndexConfig({}));
    shard.cacheOnSecondMiss = false;
    shard.patchStaleDerivations = on;
    return shard;
  }) as [ShardIndex, ShardIndex];
  const span = 500;
  for (let docId = 0; docId < span; docId++) {
    const made = document(random, docId, false);
    for (const shard of [patched, derived]) shard.upsert(docId, made);
  }
  for (const shard of [patched, derived]) shard.flushWrites();
  const queries = [...Array.from({ length: 30 }, () => makeQuery(random)), 'st', 'sta', 's', 'ga', 'star wa', 'jedi empi', 'dakr sid'];
  for (let step = 0; step < 20; step++) {
    const writes = 1 + Math.floor(random() * 30);
    for (let k = 0; k < writes; k++) {
      const docId = Math.floor(random() * (span + 80));
      const remove = random() < 0.25;
      const made = document(random, docId, true);
      for (const shard of [patched, derived]) {
        if (remove) shard.delete(docId);
        else shard.upsert(docId, made);
      }
    }
    for (let k = 0; k < 40; k++) {
      const q = queries[Math.floor(random() * queries.length)]!;
      const request = { q, hitsWanted: random() < 0.3 ? 200 : 1 + Math.floor(random() * 20), matchingStrategy: random() < 0.7 ? 'last' as const : 'all' as const };
      const expected = derived.search(request);
      const actual = patched.search(request);
      t.deepEqual(actual.hits, expected.hits, `step ${step} q=${JSON.stringify(q)}`);
      t.is(actual.candidates, expected.candidates, `step ${step} q=${JSON.stringify(q)}`);
    }
  }
  t.true(patched.caches.patched > 20, `${patched.caches.patched} derivations patched`);
  t.is(derived.caches.patched, 0);
});
