// A one-term search ranks the term's own posting list (no copy, shard-search.ts): neither the search
// nor its filter may change that list, so the same searches answer the same afterwards.
import test from 'ava';
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
