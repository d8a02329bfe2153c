// A term's rank / position unions made key by key when first read (ranking/keyed-lists.ts,
// ShardIndex.lazyKeyUnions): a one-term split that stops at its first part makes no union of the
// later ranks, and on randomized shards with writes between searches the answers are those of
// making every key at once and of reading every document (the plain definition).
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { LazyLists } from '../../src/ranking/keyed-lists.js';
import { randomFrom } from './seeded-lcg.js';
import { makeQuery, rewriteAll, twins } from './shard-twins.js';

/** Words starting with "alp" in the titles of the first 200 documents, and in the bodies of all. */
function alpShard(lazy: boolean): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig({ searchableAttributes: ['title', 'body'] }));
  shard.lazyKeyUnions = lazy;
  // A 3-letter prefix's lists would be the shard's kept ones (prefix-postings.ts), not unions made key by key.
  shard.prefixUnions = false;
  shard.cacheOnSecondMiss = false;
  const alp = ['alpha', 'alpine', 'alps', 'alpaca'];
  for (let docId = 0; docId < 2_000; docId++) {
    shard.upsert(docId, {
      id: docId,
      title: docId < 200 ? `${alp[docId % 4]} tools` : `other tools ${docId}`,
      body: `some text then ${alp[(docId >> 2) % 4]} and ${alp[(docId >> 4) % 4]} again`,
    });
  }
  shard.flushWrites();
  shard.prepareForSearch();
  return shard;
}

function rankListsOf(shard: ShardIndex): LazyLists[] {
  const found: LazyLists[] = [];
  for (const derivations of shard.caches.derivations.values()) {
    if (derivations.docsByRank instanceof LazyLists) found.push(derivations.docsByRank);
  }
  return found;
}

test('a one-word prefix answered from its first rank part makes the union of that rank only; lazyKeyUnions false makes them all', (t) => {
  const lazy = alpShard(true);
  const eager = alpShard(false);
  const answers = [lazy, eager].map((shard) => shard.search({ q: 'alp', hitsWanted: 10, matchingStrategy: 'last' }));
  t.deepEqual(answers[0]!.hits, answers[1]!.hits);
  t.is(answers[0]!.hits.length, 10);
  const lazyLists = rankListsOf(lazy);
  t.is(lazyLists.length, 1, 'the prefix term\'s rank lists, kept on its cached derivations');
  t.is(lazyLists[0]!.madeCount, 1, 'rank 0 (title) only: the first part held the hits');
  const eagerLists = rankListsOf(eager);
  t.is(eagerLists.length, 1);
  t.is(eagerLists[0]!.madeCount, eagerLists[0]!.length);
  // Asking for more hits than the titles hold reads rank 1 then, from the same memo.
  const deep = [lazy, eager].map((shard) => shard.search({ q: 'alp', hitsWanted: 400, matchingStrategy: 'last' }));
  t.deepEqual(deep[0]!.hits, deep[1]!.hits);
  t.is(lazyLists[0]!.madeCount, 2);
  t.deepEqual(deep[0]!.hits, lazy.search({ q: 'alp', hitsWanted: 400, matchingStrategy: 'last', bitmapBuckets: false }).hits);
});

for (let round = 0; round < 4; round++) {
  test(`randomized: unions made key by key answer as made all at once and as reading every document, with writes between searches (round ${round})`, (t) => {
    const random = randomFrom(9100 + round);
    const { subject, reference } = twins(1_500, 9200 + round);
    subject.lazyKeyUnions = true;
    reference.lazyKeyUnions = false;
    for (const shard of [subject, reference]) {
      // Derivations (and their lists made so far) cached from the first miss: later searches read keys earlier ones did not.
      shard.cacheOnSecondMiss = false;
      shard.prepareForSearch();
    }
    let compared = 0;
    for (let phase = 0; phase < 3; phase++) {
      for (let k = 0; k < 60; k++) {
        const q = makeQuery(random);
        const hitsWanted = random() < 0.3 ? 200 : 1 + Math.floor(random() * 30);
        const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
        const plain = subject.search({ q, hitsWanted, matchingStrategy, bitmapBuckets: false });
        const lazy = subject.search({ q, hitsWanted, matchingStrategy });
        const eager = reference.search({ q, hitsWanted, matchingStrategy });
        t.deepEqual(lazy.hits, eager.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted} ${matchingStrategy}`);
        t.deepEqual(lazy.hits, plain.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted} ${matchingStrategy}`);
        t.is(lazy.candidates, eager.candidates);
        compared += lazy.hits.length;
      }
      // Writes touch some words (their cached derivations go) and leave others' lists, half made, cached.
      rewriteAll([subject, reference], random, 40, 1_600, 10_000 * (phase + 1), 5);
    }
    t.true(compared > 0);
  });
}
