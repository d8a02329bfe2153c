// Word splits and multi-word synonyms (derivations.ts PhraseAlternative) are runs of words standing
// for a term: a document holds them only where the words stand in a row. Held here, on randomized
// shards whose words often stand as halves of the query's words: (1) every accelerator method, alone
// answering "cannot tell", gives the reference path's hits and scores; (2) a document's match profile
// counts a run as one occurrence where it starts (a split at one typo, not exact, spanning the run),
// and never a half standing alone, so a document's scores do not depend on the other documents.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { ACCELERATOR_METHODS, withCannotTell } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

// Whole words, and halves of them that documents hold alone or in a row (`sun flower`, `star fish`).
const WHOLE = ['sunflower', 'starfish', 'rainbow', 'moonlight', 'firefly'];
const HALVES = ['sun', 'flower', 'star', 'fish', 'rain', 'bow', 'moon', 'light', 'fire', 'fly'];
const OTHER = ['garden', 'ocean', 'night', 'summer', 'field', 'sky'];
const SYNONYMS = { sky: ['blue heaven'], ocean: ['deep sea water'] };
const EXTRA = ['blue', 'heaven', 'deep', 'sea', 'water'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => {
    const roll = random();
    if (roll < 0.15) return WHOLE[Math.floor(random() * WHOLE.length)]!;
    if (roll < 0.35) {
      // A whole word split in a row.
      const k = Math.floor(random() * WHOLE.length);
      return `${HALVES[2 * k]!} ${HALVES[2 * k + 1]!}`;
    }
    if (roll < 0.6) return HALVES[Math.floor(random() * HALVES.length)]!;
    if (roll < 0.75) return EXTRA[Math.floor(random() * EXTRA.length)]!;
    if (roll < 0.8) return 'blue heaven';
    return OTHER[Math.floor(random() * OTHER.length)]!;
  };
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
  // Long bodies: three words of the query are seldom near each other (proximity's rest, read by class: termPairDocsSettled).
  return { id, title: text(3), body: text(random() < 0.5 ? 40 : 12), tags: text(2) };
}

function makeQuery(random: () => number): string {
  const pool = [...WHOLE, ...WHOLE, ...HALVES, ...OTHER];
  // Three words often: proximity's rest past the near buckets is read by class (termPairDocsSettled).
  const count = random() < 0.4 ? 3 : 1 + Math.floor(random() * 2);
  const words = Array.from({ length: count }, () => pool[Math.floor(random() * pool.length)]!);
  return words.join(' ') + (random() < 0.6 ? ' ' : '');
}

const RULE_ORDERS: string[][] = [
  ['words', 'typo', 'proximity', 'attributeRank', 'sort', 'wordPosition', 'exactness'],
  ['proximity', 'exactness', 'words', 'attributeRank'],
  ['wordPosition', 'proximity', 'typo', 'exactness'],
];

for (let round = 0; round < RULE_ORDERS.length * 2; round++) {
  test(`splits and multi-word synonyms: every accelerator method alone answering "cannot tell" gives the reference path's hits (round ${round})`, (t) => {
    const random = randomFrom(9100 + round);
    const shard = new ShardIndex(compileIndexConfig({
      rankingRules: RULE_ORDERS[round % RULE_ORDERS.length]!,
      searchableAttributes: ['title', 'body', 'tags'],
      synonyms: SYNONYMS,
    }));
    const documentCount = 1500;
    for (let docId = 0; docId < documentCount; docId++) shard.upsert(docId, makeDocument(random, docId));
    if (round % 2 === 0) shard.prepareForSearch();
    let withPhrases = 0;
    for (let k = 0; k < 40; k++) {
      const q = makeQuery(random);
      const hitsWanted = random() < 0.3 ? 100 + Math.floor(random() * 200) : 1 + Math.floor(random() * 20);
      const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
      const reference = shard.search({ q, hitsWanted, matchingStrategy, bitmapBuckets: false });
      const all = shard.search({ q, hitsWanted, matchingStrategy });
      t.deepEqual(all.hits, reference.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted} ${matchingStrategy}`);
      t.is(all.candidates, reference.candidates);
      for (const method of ACCELERATOR_METHODS) {
        const without = shard.search({ q, hitsWanted, matchingStrategy, wrapAccelerator: (accelerator) => withCannotTell(accelerator, [method]) });
        t.deepEqual(without.hits, reference.hits, `${method} off: q=${JSON.stringify(q)}`);
      }
      if (q.split(' ').some((word) => WHOLE.includes(word) || word === 'sky' || word === 'ocean')) withPhrases++;
    }
    t.true(withPhrases > 5, 'queries with a word that splits or has a multi-word synonym');
  });
}

test('a split counts where its halves stand in a row only: a document scores the same whatever the other documents', (t) => {
  const config = compileIndexConfig({ searchableAttributes: ['title', 'body'], synonyms: SYNONYMS });
  const target = { id: 0, title: 'garden', body: 'the flower of a sun in the summer sunflower field' };
  const pair = { id: 1, title: 'sun flower', body: 'blue heaven' };
  const loose = { id: 2, title: 'night sky', body: 'heaven is blue tonight' };
  const scoreOf = (documents: Record<string, unknown>[], q: string, id: number) => {
    const shard = new ShardIndex(config);
    documents.forEach((document, docId) => shard.upsert(docId, document));
    shard.prepareForSearch();
    return shard.search({ q, hitsWanted: 10, matchingStrategy: 'last' }).hits.find((found) => found.docId === id);
  };
  for (const q of ['sunflower', 'sunflower field', 'summer sunflower', 'sky', 'night sky', 'sunflower ']) {
    const alone = scoreOf([target, loose], q, 0);
    const withPair = scoreOf([target, loose, pair], q, 0);
    t.deepEqual(withPair, alone, `q=${q}`);
  }
  // The pair's document matches `sunflower` through the split (one typo) and `sky` through the synonym.
  t.truthy(scoreOf([target, pair], 'sunflower', 1));
  t.truthy(scoreOf([target, pair, loose], 'sky', 1));
});
