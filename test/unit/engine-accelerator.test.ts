// Each method of the search accelerator (ranking/search-context.ts SearchAccelerator) is held to the
// plain definition on its own: on randomized shards and queries, the search with that one method
// answering "cannot tell" (withCannotTell), with every method answering, and with none (the reference
// path, bitmapBuckets: false) give the same hits, scores and counts. The accelerated searches also
// count each method's answers other than "cannot tell", so a method the data never exercised fails.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { ACCELERATOR_METHODS, withCannotTell, type AcceleratorMethod, type SearchAccelerator } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

// Frequent words (pair tables hold pairs of words in >= 64 documents), a few rare ones, prefixes.
const WORDS = ['alpha', 'alpine', 'beta', 'better', 'gamma', 'delta', 'kappa', 'lambda', 'sigma', 'omega', 'omicron', 'tau'];
const FIELDS = ['title', 'subtitle', 'body', 'tags'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.1 ? `r${Math.floor(random() * 200)}` : WORDS[Math.floor(WORDS.length * random() ** 1.5)]!);
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
  const document: Record<string, unknown> = { id };
  for (const field of FIELDS) if (random() < 0.8) document[field] = text(field === 'body' ? 14 : 3);
  // Long bodies of frequent words: three of them are seldom near each other (proximity's rest, read by class).
  if (random() < 0.5) document['body'] = Array.from({ length: 40 }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  // Short fields: one word alone, or two (sole-word fields, field-start pairs).
  if (random() < 0.25) document['title'] = WORDS[Math.floor(random() * 4)]!;
  else if (random() < 0.2) document['title'] = `${WORDS[Math.floor(random() * 4)]!} ${WORDS[Math.floor(random() * 4)]!}`;
  return document;
}

function makeQuery(random: () => number): string {
  // Three frequent words: proximity's rest past the near buckets is large, and read by class (termPairDocsSettled).
  if (random() < 0.25) return Array.from({ length: 3 }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ') + ' ';
  const word = () => (random() < 0.1 ? `r${Math.floor(random() * 200)}` : WORDS[Math.floor(WORDS.length * random() ** 1.5)]!);
  const count = 1 + Math.floor(random() * 3);
  const words = Array.from({ length: count }, word);
  const roll = random();
  if (roll < 0.15) words[words.length - 1] = words[words.length - 1]!.slice(0, 2);
  else if (roll < 0.25) words[0] = `${words[0]!.slice(0, 2)}x${words[0]!.slice(3)}`;
  else if (roll < 0.3) return `"${words.join(' ')}" ${word()}`;
  return words.join(' ') + (random() < 0.5 ? ' ' : '');
}

const RULE_ORDERS: string[][] = [
  ['words', 'typo', 'proximity', 'attributeRank', 'sort', 'wordPosition', 'exactness'],
  ['proximity', 'exactness', 'words', 'attributeRank'],
  ['exactness', 'wordPosition', 'proximity', 'typo'],
  ['attributeRank', 'proximity', 'wordPosition', 'exactness'],
];

/** Counts the answers other than "cannot tell" of each method of `accelerator`. */
function counting(accelerator: SearchAccelerator, told: Map<AcceleratorMethod, number>): SearchAccelerator {
  const out: Record<string, unknown> = {};
  for (const name of ACCELERATOR_METHODS) {
    const method = (accelerator[name] as (...args: unknown[]) => unknown).bind(accelerator);
    out[name] = (...args: unknown[]) => {
      const answer = method(...args);
      if (name === 'notePairCost' || (answer !== null && answer !== false)) told.set(name, (told.get(name) ?? 0) + 1);
      return answer;
    };
  }
  return out as unknown as SearchAccelerator;
}

const told = new Map<AcceleratorMethod, number>();

for (let round = 0; round < RULE_ORDERS.length * 2; round++) {
  test.serial(`each accelerator method alone answering "cannot tell" gives the reference path's hits (round ${round})`, (t) => {
    const random = randomFrom(7000 + round);
    const shard = new ShardIndex(compileIndexConfig({
      rankingRules: RULE_ORDERS[round % RULE_ORDERS.length]!,
      ...(round % 2 === 1 ? { searchableAttributes: ['title', 'body', 'tags', 'subtitle'] } : {}),
    }));
    const documentCount = 700;
    for (let docId = 0; docId < documentCount; docId++) shard.upsert(docId, makeDocument(random, docId));
    // Even rounds build everything; odd ones leave the postings stale (postingsStale answers true until a split builds them).
    if (round % 2 === 0) shard.prepareForSearch();
    for (let k = 0; k < 40; k++) {
      const docId = Math.floor(random() * documentCount);
      if (random() < 0.4) shard.delete(docId);
      else shard.upsert(docId, makeDocument(random, docId));
    }
    let compared = 0;
    for (let k = 0; k < 40; k++) {
      const q = makeQuery(random);
      // Sometimes many hits (deep buckets), mostly a few (a large rest is read by class only for a few).
      const hitsWanted = random() < 0.2 ? 100 + Math.floor(random() * 300) : 1 + Math.floor(random() * 30);
      const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
      const reference = shard.search({ q, hitsWanted, matchingStrategy, bitmapBuckets: false });
      // Twice: the second search finds the pair costs the first noted (termPairKnownCosts).
      for (let pass = 0; pass < 2; pass++) {
        const all = shard.search({ q, hitsWanted, matchingStrategy, wrapAccelerator: (accelerator) => counting(accelerator, told) });
        t.deepEqual(all.hits, reference.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted} ${matchingStrategy}`);
        t.is(all.candidates, reference.candidates);
      }
      for (const method of ACCELERATOR_METHODS) {
        const without = shard.search({ q, hitsWanted, matchingStrategy, wrapAccelerator: (accelerator) => withCannotTell(accelerator, [method]) });
        t.deepEqual(without.hits, reference.hits, `${method} off: q=${JSON.stringify(q)} hitsWanted=${hitsWanted} ${matchingStrategy}`);
        t.is(without.candidates, reference.candidates, `${method} off`);
      }
      compared += reference.hits.length;
    }
    t.true(compared > 0);
  });
}

// Serial, after the rounds: their counts are complete.
test.serial('every accelerator method answered something other than "cannot tell" in the rounds above', (t) => {
  for (const method of ACCELERATOR_METHODS) t.true((told.get(method) ?? 0) > 0, `${method} never told`);
});
