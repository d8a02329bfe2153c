// The near-pair tables are built once and kept while no write comes, and a pair's lookups are
// gathered once and kept across searches (shared-pair-memos.ts), a pair of one word with itself
// ("feem feem") included: repeated searches rebuild nothing and gather nothing again.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { NearPairPostings } from '../../src/shard/pairs/near-pair-postings.js';
import { randomFrom } from './seeded-lcg.js';

const COMMON = ['alpha', 'beta', 'gamma', 'delta'];

test('pair tables and pair lookups stay cached across searches', (t) => {
  const random = randomFrom(5);
  const shard = new ShardIndex(compileIndexConfig({}));
  // Derivations cached from their first miss: the pair memos are kept by the derivation objects.
  shard.cacheOnSecondMiss = false;
  const text = () => Array.from({ length: 2 + Math.floor(random() * 6) }, () => COMMON[Math.floor(random() * COMMON.length)]!).join(' ');
  for (let docId = 0; docId < 400; docId++) shard.upsert(docId, { id: docId, title: text(), body: `${text()} ${text()}` });
  shard.trim();
  const prototype = NearPairPostings.prototype as unknown as { tablesDocsWithin: (...args: unknown[]) => unknown };
  const gather = prototype.tablesDocsWithin;
  let gathers = 0;
  prototype.tablesDocsWithin = function (this: unknown, ...args: unknown[]) {
    gathers++;
    return gather.apply(this, args);
  };
  try {
    const queries = ['alpha alpha', 'alpha beta gamma', 'delta delta beta '];
    const first = queries.map((q) => shard.search({ q, hitsWanted: 5, matchingStrategy: 'last' }).hits);
    const generation = shard.nearPairs.buildGeneration;
    t.false(shard.nearPairs.needsBuild);
    t.true(gathers > 0);
    const gathered = gathers;
    for (let round = 0; round < 3; round++) {
      t.deepEqual(queries.map((q) => shard.search({ q, hitsWanted: 5, matchingStrategy: 'last' }).hits), first);
    }
    t.is(shard.nearPairs.buildGeneration, generation, 'no rebuild');
    t.is(gathers, gathered, 'no pair gathered again');
  } finally {
    prototype.tablesDocsWithin = gather;
  }
});
