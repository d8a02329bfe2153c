// Pair lookups sharing a PairLookupMemo within one search (near-pair-postings.ts) must answer exactly
// as fresh lookups, whatever the order of costs and universes; the settled answers (no document read)
// must bracket the exact one: `within` inside it, the rest of it among the `unsettled`.
import test from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { PairLookupMemo } from '../../src/shard/pairs/near-pair-postings.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

const COMMON = ['alpha', 'beta', 'gamma', 'delta', 'kappa'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.15 ? `rare${Math.floor(random() * 40)}` : COMMON[Math.floor(random() * COMMON.length)]!);
  const text = () => Array.from({ length: 1 + Math.floor(random() * 5) }, word).join(' ');
  return { id, title: text(), body: text() };
}

for (const rewritten of [false, true]) {
  test(`memoized pair lookups answer as fresh ones; settled ones bracket them (${rewritten ? 'documents rewritten after the build' : 'tables fresh'})`, (t) => {
    const random = randomFrom(rewritten ? 41 : 42);
    const shard = new ShardIndex(compileIndexConfig({}));
    for (let docId = 0; docId < 400; docId++) shard.upsert(docId, makeDocument(random, docId));
    shard.nearPairs.build();
    if (rewritten) for (let k = 0; k < 60; k++) shard.upsert(Math.floor(random() * 400), makeDocument(random, k));
    const vocabulary = shard.vocabulary;
    const words = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
    const side = (ids: number[]) => {
      const set = new Uint8Array(vocabulary.size);
      for (const id of ids) set[id] = 1;
      return { wordIds: ids, set };
    };
    const randomUniverse = () => new RoaringBitmap32(shard.documents.toArray().filter(() => random() < 0.5));
    let memoHits = 0;
    let unsettledSeen = 0;
    for (let k = 0; k < 40; k++) {
      const left = side(words.filter(() => random() < 0.2));
      const right = side(words.filter(() => random() < 0.2));
      const memo: PairLookupMemo = { byCost: [] };
      for (let call = 0; call < 8; call++) {
        const cost = random() < 0.5 ? 1 : 2;
        const universe = randomUniverse();
        const fresh = shard.nearPairs.pairDocsWithin(cost, left, right, universe);
        if (random() < 0.5) {
          if (memo.byCost[cost] !== undefined) memoHits++;
          t.deepEqual(shard.nearPairs.pairDocsWithin(cost, left, right, universe, memo).toArray(), fresh.toArray(), `pair ${k} call ${call} cost ${cost}`);
        } else {
          const { within, unsettled } = shard.nearPairs.pairDocsSettled(cost, left, right, universe, memo);
          t.true(within.isSubset(fresh), `pair ${k} call ${call}: within is within`);
          t.true(RoaringBitmap32.andNot(fresh, within).isSubset(unsettled), `pair ${k} call ${call}: the rest is unsettled`);
          t.true(unsettled.isSubset(universe) && within.isSubset(universe));
          t.is(within.andCardinality(unsettled), 0);
          unsettledSeen += unsettled.size;
        }
      }
    }
    t.true(memoHits > 20);
    t.true(unsettledSeen > 0);
  });
}

// Searches share pair memos across queries (shard-search.ts, by the terms' derivations): repeated
// multi-word queries between writes must rank as reading every document does, the writes included.
test('pair memos shared across searches stay exact through writes', (t) => {
  const random = randomFrom(43);
  const shard = new ShardIndex(compileIndexConfig({}));
  // Enough documents for the universes of two common words to be split by pair lookups (over 256).
  const documentCount = 3000;
  for (let docId = 0; docId < documentCount; docId++) shard.upsert(docId, makeDocument(random, docId));
  shard.trim();
  shard.nearPairs.build();
  const queries = ['alpha beta', 'beta gamma delta', 'kappa alpha r', 'gamma rare1 delta', 'delta kappa', 'alpha beta gamma delta'];
  let compared = 0;
  for (let round = 0; round < 6; round++) {
    for (let k = 0; k < 12; k++) {
      const q = queries[Math.floor(random() * queries.length)]!;
      const hitsWanted = 1 + Math.floor(random() * 30);
      const fast = shard.search({ q, hitsWanted, matchingStrategy: 'last' });
      const reference = shard.search({ q, hitsWanted, matchingStrategy: 'last', bitmapBuckets: false });
      t.deepEqual(fast.hits, reference.hits, `round ${round} q=${q} hitsWanted=${hitsWanted}`);
      compared += fast.hits.length;
    }
    // Rewrites and deletions between rounds: the memos of the old documents must not answer.
    for (let k = 0; k < 100; k++) {
      const docId = Math.floor(random() * documentCount);
      if (random() < 0.3) shard.delete(docId);
      else shard.upsert(docId, makeDocument(random, docId));
    }
  }
  t.true(compared > 500);
});
