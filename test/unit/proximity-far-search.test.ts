// proximity's far cost from the rank postings (proximity-parts.ts docsNeverInOneField) under
// searchableAttributes ["*"], where a field's rank is its place in its document: the forward index's
// highest rank (after a restore too) tells whether the rank postings list every rank. Searches with
// it must rank exactly as reading every document does.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { ForwardIndex } from '../../src/shard/documents/forward-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { randomFrom } from './seeded-lcg.js';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'lambda', 'sigma', 'omega', 'mu', 'nu', 'pi', 'rho', 'tau', 'phi', 'chi', 'psi'];

test('the forward index knows its highest field rank, after deletes and a restore too', (t) => {
  const forward = new ForwardIndex();
  t.is(forward.maxFieldRank, -1);
  forward.put(1, { fieldRanks: [0, 3], wordIds: [5, 6], fields: [0, 1], positions: [0, 0] });
  forward.put(2, { fieldRanks: [7], wordIds: [5], fields: [0], positions: [0] });
  t.is(forward.maxFieldRank, 7);
  forward.remove(2);
  t.true(forward.maxFieldRank >= 3);
  const restored = new ForwardIndex();
  restored.importState(forward.exportState());
  t.true(restored.maxFieldRank >= 3 && restored.maxFieldRank <= 7);
  const fresh = new ForwardIndex();
  fresh.put(1, { fieldRanks: [0, 3], wordIds: [5, 6], fields: [0, 1], positions: [0, 0] });
  const restoredFresh = new ForwardIndex();
  restoredFresh.importState(fresh.exportState());
  t.is(restoredFresh.maxFieldRank, 3);
});

test('proximity with far pairs under searchableAttributes ["*"] ranks as reading every document', (t) => {
  const random = randomFrom(33);
  const shard = new ShardIndex(compileIndexConfig({}));
  // Title words and body words apart, but for the odd title word in a body: most pairs of a title
  // word and a body word are in no common field (far), a few are close.
  const titleWord = () => WORDS[Math.floor(8 * random() ** 1.5)]!;
  const bodyWord = () => (random() < 0.05 ? titleWord() : WORDS[8 + Math.floor(8 * random() ** 1.5)]!);
  const text = (max: number, pick: () => string) => Array.from({ length: 1 + Math.floor(random() * max) }, pick).join(' ');
  for (let docId = 0; docId < 3000; docId++) shard.upsert(docId, { id: docId, title: text(4, titleWord), body: text(8, bodyWord) });
  shard.trim();
  shard.nearPairs.build();
  t.true(shard.forward.maxFieldRank < shard.rankPostings.limit);
  let compared = 0;
  for (let k = 0; k < 60; k++) {
    const q = Array.from({ length: 2 + Math.floor(random() * 3) }, (_, index) => (index % 2 === 0 ? titleWord() : bodyWord())).join(' ') + ' ';
    const hitsWanted = 1 + Math.floor(random() * 30);
    const fast = shard.search({ q, hitsWanted, matchingStrategy: 'last' });
    const reference = shard.search({ q, hitsWanted, matchingStrategy: 'last', bitmapBuckets: false });
    t.deepEqual(fast.hits, reference.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted}`);
    compared += fast.hits.length;
  }
  t.true(compared > 300);
});
