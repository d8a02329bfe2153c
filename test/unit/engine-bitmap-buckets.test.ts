// The bitmap buckets of attributeRank and wordPosition (rank/position postings, score-chain.ts) must
// give exactly the hits and scores of reading every document: randomized documents, settings and
// queries, compared against the reference path (bitmapBuckets: false).
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { IndexSettings } from '../../src/settings/index-settings.js';
import type { MatchingStrategyName } from '../../src/protocol/messages.js';
import { randomFrom } from './seeded-lcg.js';

const WORDS = ['alpha', 'alpine', 'alpaca', 'beta', 'better', 'bitter', 'gamma', 'gammon', 'delta', 'deltas', 'kappa',
  'lambda', 'lambada', 'mu', 'nu', 'pi', 'rho', 'sigma', 'tau', 'phi', 'omega', 'omicron'];
const FIELDS = ['title', 'subtitle', 'body', 'tags', 'notes', 'extra1', 'extra2', 'extra3', 'extra4', 'extra5', 'extra6',
  'extra7', 'extra8', 'extra9', 'extra10', 'extra11', 'extra12', 'extra13', 'extra14', 'extra15', 'extra16', 'extra17', 'extra18'];

/** One of 300 words each in a handful of documents; a prefix like "r1" matches a hundred of them. */
function rareWord(random: () => number): string {
  return `r${Math.floor(random() * 300)}`;
}

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  // Skewed word choice: many ties and repeated words; sometimes long fields (positions past the postings' limit).
  // Mostly common words (their lists are bitmaps), some rare ones (kept as small typed arrays).
  const word = () => (random() < 0.15 ? rareWord(random) : WORDS[Math.floor(WORDS.length * random() ** 2)]!);
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
  const document: Record<string, unknown> = { id };
  // Field order and count vary per document: with searchableAttributes ["*"] the rank is the field's place.
  const fieldCount = random() < 0.1 ? 20 : 1 + Math.floor(random() * 5);
  const shuffled = [...FIELDS].sort(() => random() - 0.5).slice(0, fieldCount);
  for (const field of shuffled) document[field] = random() < 0.15 ? [text(3), text(3)] : text(random() < 0.2 ? 40 : 6);
  if (random() < 0.05) document['title'] = pick(WORDS);
  return document;
}

function makeQuery(random: () => number): string {
  const word = () => (random() < 0.2 ? rareWord(random) : WORDS[Math.floor(random() * WORDS.length)]!);
  const count = 1 + Math.floor(random() * 3);
  const words = Array.from({ length: count }, word);
  const roll = random();
  if (roll < 0.15) words[words.length - 1] = words[words.length - 1]!.slice(0, 2); // short prefix
  else if (roll < 0.3) words[0] = `${words[0]!.slice(0, 2)}x${words[0]!.slice(3)}`; // typo
  else if (roll < 0.35) return `"${words.join(' ')}" ${word()}`; // phrase
  // A trailing space makes the last word a whole word (no prefix).
  return words.join(' ') + (random() < 0.5 ? ' ' : '');
}

const RULE_ORDERS: string[][] = [
  ['words', 'typo', 'proximity', 'attributeRank', 'sort', 'wordPosition', 'exactness'],
  ['words', 'typo', 'proximity', 'attribute', 'exactness'],
  ['attributeRank', 'wordPosition', 'words', 'exactness'],
  ['wordPosition', 'attributeRank', 'typo'],
  ['words', 'attributeRank', 'wordPosition'],
  ['exactness', 'wordPosition', 'words', 'attributeRank'],
  ['words', 'proximity', 'exactness', 'attributeRank'],
  ['proximity', 'typo', 'words', 'exactness'],
];

for (let round = 0; round < RULE_ORDERS.length * 2; round++) {
  test(`bitmap buckets order exactly as per-document scoring (round ${round})`, (t) => {
    const random = randomFrom(1000 + round);
    const settings: Partial<IndexSettings> = {
      rankingRules: RULE_ORDERS[round % RULE_ORDERS.length]!,
      ...(round % 2 === 1 ? { searchableAttributes: ['body', 'title', 'tags', 'subtitle', 'notes', 'extra1', 'extra2'] } : {}),
      ...(round === 2 ? { synonyms: { mu: ['nu pi'], rho: ['tau'] } } : {}),
    };
    const shard = new ShardIndex(compileIndexConfig(settings));
    const documentCount = 600;
    for (let docId = 0; docId < documentCount; docId++) shard.upsert(docId, makeDocument(random, docId));
    // Half the rounds build the postings in bulk, then writes drop some words' lists (rebuilt lazily).
    // (the pair tables and sole-word fields too, so the writes below go through their changed-documents path).
    if (round % 2 === 0) {
      shard.trim();
      shard.nearPairs.build();
      shard.soleWordFields.build();
      shard.fieldStartPairs.build();
    }
    for (let k = 0; k < 80; k++) {
      const docId = Math.floor(random() * documentCount);
      if (random() < 0.5) shard.delete(docId);
      else shard.upsert(docId, makeDocument(random, docId));
    }
    let compared = 0;
    for (let k = 0; k < 60; k++) {
      const q = makeQuery(random);
      const hitsWanted = 1 + Math.floor(random() * 40);
      const matchingStrategy: MatchingStrategyName = random() < 0.7 ? 'last' : 'all';
      const fast = shard.search({ q, hitsWanted, matchingStrategy });
      const reference = shard.search({ q, hitsWanted, matchingStrategy, bitmapBuckets: false });
      t.deepEqual(fast.hits, reference.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted} ${matchingStrategy}`);
      t.is(fast.candidates, reference.candidates);
      compared += fast.hits.length;
    }
    t.true(compared > 0);
  });
}

for (let round = 0; round < 4; round++) {
  test(`rank / position lists updated in place by writes between searches order exactly as per-document scoring (round ${round})`, (t) => {
    // Writes change the lists of the frequent words in place (token-key-postings.ts writeDocument):
    // searches between writes hold built lists, so every later write goes through that path.
    const random = randomFrom(2000 + round);
    const shard = new ShardIndex(compileIndexConfig({ rankingRules: RULE_ORDERS[round % RULE_ORDERS.length]! }));
    const documentCount = 500;
    for (let docId = 0; docId < documentCount; docId++) shard.upsert(docId, makeDocument(random, docId));
    shard.trim();
    let compared = 0;
    for (let step = 0; step < 30; step++) {
      for (let k = 0; k < 5; k++) {
        const docId = Math.floor(random() * (documentCount + 50));
        if (random() < 0.3) shard.delete(docId);
        else shard.upsert(docId, makeDocument(random, docId));
      }
      shard.flushWrites();
      for (let k = 0; k < 6; k++) {
        const q = makeQuery(random);
        const hitsWanted = 1 + Math.floor(random() * 40);
        const fast = shard.search({ q, hitsWanted, matchingStrategy: 'last' });
        const reference = shard.search({ q, hitsWanted, matchingStrategy: 'last', bitmapBuckets: false });
        t.deepEqual(fast.hits, reference.hits, `step ${step} q=${JSON.stringify(q)} hitsWanted=${hitsWanted}`);
        compared += fast.hits.length;
      }
    }
    t.true(compared > 100, `${compared} hits compared`);
  });
}
