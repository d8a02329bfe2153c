// A one-term search ranks the term's own posting list (no copy, shard-search.ts): neither the search
// nor its filter may change that list, so the same searches answer the same afterwards.
import test, { type ExecutionContext } from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';

const { RoaringBitmap32 } = roaring;

test('one-term searches, filtered or not, leave the term\'s documents as they were', (t) => {
  const shard = new ShardIndex(compileIndexConfig({}));
  const words = ['apple', 'banana', 'cherry', 'damson'];
  for (let docId = 0; docId < 400; docId++) {
    shard.upsert(docId, { id: docId, title: `${words[docId % 4]} ${words[(docId >> 2) % 4]}`, body: docId % 3 === 0 ? 'apple pie' : 'plain' });
  }
  const everyOther = new RoaringBitmap32(Array.from({ length: 200 }, (_, k) => k * 2));
  const before = ['apple', 'banana', 'appl'].map((q) => shard.search({ q, hitsWanted: 400, matchingStrategy: 'last' }));
  for (let round = 0; round < 3; round++) {
    for (const q of ['apple', 'banana', 'appl', 'apple banana']) {
      const filtered = shard.search({ q, hitsWanted: 1 + round * 50, matchingStrategy: 'last', restrictTo: everyOther });
      t.true(filtered.hits.every((hit) => hit.docId % 2 === 0));
      t.is(filtered.candidates, filtered.universe.size);
      shard.search({ q, hitsWanted: 7, matchingStrategy: 'all' });
    }
  }
  const after = ['apple', 'banana', 'appl'].map((q) => shard.search({ q, hitsWanted: 400, matchingStrategy: 'last' }));
  t.deepEqual(after.map((result) => [result.candidates, result.hits]), before.map((result) => [result.candidates, result.hits]));
  const hasApple = (docId: number) => docId % 4 === 0 || (docId >> 2) % 4 === 0 || docId % 3 === 0;
  t.is(before[0]!.candidates, Array.from({ length: 400 }, (_, docId) => docId).filter(hasApple).length);
  t.is(everyOther.size, 200);
});

test('a one-term search whose term has a multi-word synonym ranks only its documents (its words\' rank lists reach beyond them)', (t) => {
  // The rule splitting from rank / position lists first gets the term's own documents as its universe.
  for (const rankingRules of [['attributeRank', 'words', 'typo', 'proximity', 'wordPosition', 'exactness'], ['wordPosition', 'attributeRank', 'words']]) {
    const shard = new ShardIndex(compileIndexConfig({ synonyms: { mu: ['nu pi'] }, rankingRules }));
    // "nu" alone in the first field, "nu pi" further on, "mu" anywhere: only the last two match "mu".
    const titles = ['nu alone here', 'nu and then pi', 'mu first', 'other words', 'then nu pi', 'the mu'];
    // Enough matches (720) that the rules split from bitmaps rather than read a small universe directly.
    for (let docId = 0; docId < 1200; docId++) shard.upsert(docId, { id: docId, title: titles[docId % titles.length], body: docId % 5 === 0 ? 'nu pi' : 'plain' });
    searchesMatchOnly(t, shard, (docId) => [2, 4, 5].includes(docId % titles.length) || docId % 5 === 0);
  }
});

function searchesMatchOnly(t: ExecutionContext, shard: ShardIndex, matches: (docId: number) => boolean): void {
  for (const hitsWanted of [1, 5, 20, 300]) {
    const fast = shard.search({ q: 'mu', hitsWanted, matchingStrategy: 'last' });
    const reference = shard.search({ q: 'mu', hitsWanted, matchingStrategy: 'last', bitmapBuckets: false });
    t.true(fast.hits.every((hit) => matches(hit.docId)), `hitsWanted ${hitsWanted}`);
    t.deepEqual(fast.hits, reference.hits);
    t.is(fast.candidates, Array.from({ length: 1200 }, (_, docId) => docId).filter(matches).length);
  }
}
