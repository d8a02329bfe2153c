// proximity's parts from pair lookups (proximity-parts.ts), held to the per-document definition on
// random pair costs: every pair adjacent first (score = pairs), then exactly one pair at cost 2, then
// the rest (each above both). The parts after the first are lazy: no cost-2 lookup until asked for.
import test from 'ava';
import roaring from 'roaring';
import { proximityParts } from '../../src/ranking/rules/proximity-parts.js';
import { restClasses } from '../../src/ranking/rules/proximity-rest-classes.js';
import { KNOWN_COST_MIN } from '../../src/ranking/rules/proximity.js';
import { CANNOT_TELL, type SearchContext } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

const DOCS = 500;

/** costs[docId][pair]: the pair's proximity cost (1..8) in the document; lookups answered from them, and logged. */
function contextOf(costs: number[][], termCount: number, lookups: number[]): SearchContext {
  return {
    terms: Array.from({ length: termCount }, (_, position) => ({ kind: 'word', word: `w${position}`, isPrefix: false, position }) as never),
    deadline: Number.MAX_SAFE_INTEGER,
    termDocs: () => new RoaringBitmap32(),
    termDocsByTypo: () => [],
    profile: () => { throw new Error('parts read no document'); },
    fieldWordCount: () => 0,
    accelerator: {
    ...CANNOT_TELL,
    termPairDocsWithin: (left, right, cost, universe) => {
      lookups.push(cost);
      return new RoaringBitmap32(universe.toArray().filter((docId) => costs[docId]![left]! <= cost && right === left + 1));
    },
    // One document in five has a rare word in every pair: only reading tells its costs.
    termPairDocsSettled: (left, right, cost, universe) => ({
      within: new RoaringBitmap32(universe.toArray().filter((docId) => docId % 5 !== 0 && costs[docId]![left]! <= cost && right === left + 1)),
      unsettled: new RoaringBitmap32(universe.toArray().filter((docId) => docId % 5 === 0)),
    }),
    },
  };
}

/** Each document's cost per pair of a query of `minTerms` to `minTerms` + 2 terms, mostly near or mostly far. */
function randomPairCosts(random: () => number, minTerms: number): { termCount: number; pairs: number; costs: number[][] } {
  const termCount = minTerms + Math.floor(random() * 3);
  const pairs = termCount - 1;
  const nearness = random();
  const costs = Array.from({ length: DOCS }, () => Array.from({ length: pairs }, () => (random() < nearness ? 1 + Math.floor(random() * 2) : 1 + Math.floor(random() * 8))));
  return { termCount, pairs, costs };
}

test('proximity parts: every pair adjacent, then exactly one pair at 2, then the rest; lazily', (t) => {
  const random = randomFrom(21);
  let lazyRounds = 0;
  for (let round = 0; round < 300; round++) {
    const { termCount, pairs, costs } = randomPairCosts(random, 2);
    const universe = new RoaringBitmap32(Array.from({ length: DOCS }, (_, docId) => docId).filter(() => random() < 0.6));
    const lookups: number[] = [];
    const terms = Array.from({ length: termCount }, (_, term) => term);
    const parts = proximityParts(contextOf(costs, termCount, lookups), universe, terms);
    const scoreOf = (docId: number) => costs[docId]!.reduce((sum, cost) => sum + cost, 0);
    const anyClose = universe.toArray().some((docId) => costs[docId]!.every((cost) => cost <= 2));
    if (!anyClose) {
      t.is(parts, null, `round ${round}: nothing within cost 2 splits nothing`);
      continue;
    }
    const expected = [pairs, pairs + 1, null]
      .map((score) => ({ score, docs: universe.toArray().filter((docId) => (score === null ? scoreOf(docId) > pairs + 1 : scoreOf(docId) === score)) }));
    const wanted = expected.filter((part) => part.docs.length > 0);
    // A lone part of unknown score is null, not a part.
    if (wanted.length === 1 && wanted[0]!.score === null) {
      t.is(parts, null, `round ${round}`);
      continue;
    }
    const iterator = parts![Symbol.iterator]();
    const first = iterator.next();
    if (expected[0]!.docs.length > 0) {
      t.false(lookups.includes(2), `round ${round}: no cost-2 lookup before the second part is asked for`);
      lazyRounds++;
    }
    const taken = first.done === true ? [] : [first.value, ...{ [Symbol.iterator]: () => iterator }];
    t.deepEqual(taken.map((part) => ({ score: part.score, docs: part.docs.toArray() })), wanted, `round ${round}`);
  }
  t.true(lazyRounds > 50);
});

test('proximity rest classes: disjoint, the whole rest, ascending bounds no document scores under', (t) => {
  const random = randomFrom(77);
  let tight = 0;
  for (let round = 0; round < 200; round++) {
    const { termCount, pairs, costs } = randomPairCosts(random, 3);
    const scoreOf = (docId: number) => costs[docId]!.reduce((sum, cost) => sum + cost, 0);
    // The rest as proximityParts leaves it: documents scoring pairs + 2 or more.
    const rest = new RoaringBitmap32(Array.from({ length: DOCS }, (_, docId) => docId).filter((docId) => scoreOf(docId) >= pairs + 2 && random() < 0.7));
    const terms = Array.from({ length: termCount }, (_, term) => term);
    const classes = restClasses(contextOf(costs, termCount, []), terms, rest);
    const seen = new RoaringBitmap32();
    let previous = -Infinity;
    for (const { docIds, atLeast } of classes) {
      const docs = new RoaringBitmap32(docIds);
      t.true(atLeast >= previous, `round ${round}: ascending bounds`);
      previous = atLeast;
      t.true(seen.andCardinality(docs) === 0, `round ${round}: disjoint`);
      seen.orInPlace(docs);
      for (const docId of docs) t.true(scoreOf(docId) >= atLeast, `round ${round}: doc ${docId} scores ${scoreOf(docId)} < ${atLeast}`);
      if (docs.toArray().some((docId) => scoreOf(docId) === atLeast)) tight++;
    }
    t.true(seen.isEqual(rest), `round ${round}: the classes are the rest`);
  }
  // The bounds tell apart: some class above the floor pairs + 2.
  t.true(tight > 200);
});

// With rank postings that list every field rank, a pair whose terms share no rank in a document never
// stands in one field there: it costs 8 (FAR_PAIR_COST), and its class is bound by it, so the score
// chain leaves those documents unread once enough closer ones are found.
test('proximity rest classes: a pair in no common field rank is bound by the far cost', (t) => {
  const random = randomFrom(78);
  let farBound = 0;
  for (let round = 0; round < 120; round++) {
    const termCount = 2 + Math.floor(random() * 3);
    const pairs = termCount - 1;
    // ranks[docId][term]: the field ranks (0..2) holding the term in the document.
    const ranks = Array.from({ length: DOCS }, () => Array.from({ length: termCount }, () => [0, 1, 2].filter(() => random() < 0.4)));
    const costs = ranks.map((termRanks) => Array.from({ length: pairs }, (_, pair) => {
      const shared = termRanks[pair]!.some((rank) => termRanks[pair + 1]!.includes(rank));
      return shared ? 1 + Math.floor(random() * 8) : 8;
    }));
    const scoreOf = (docId: number) => costs[docId]!.reduce((sum, cost) => sum + cost, 0);
    const rest = new RoaringBitmap32(Array.from({ length: DOCS }, (_, docId) => docId).filter((docId) => scoreOf(docId) >= pairs + 2));
    const listed = round % 4 !== 3;
    const base = contextOf(costs, termCount, []);
    const ctx: SearchContext = {
      ...base,
      accelerator: {
        ...base.accelerator!,
        allFieldRanksListed: () => listed,
        termDocsByRank: (term) => [0, 1, 2].map((rank) => new RoaringBitmap32(ranks.flatMap((termRanks, docId) => (termRanks[term]!.includes(rank) ? [docId] : [])))),
      },
    };
    const terms = Array.from({ length: termCount }, (_, term) => term);
    const classes = restClasses(ctx, terms, rest);
    const seen = new RoaringBitmap32();
    for (const { docIds, atLeast } of classes) {
      const docs = new RoaringBitmap32(docIds);
      seen.orInPlace(docs);
      for (const docId of docs) t.true(scoreOf(docId) >= atLeast, `round ${round}: doc ${docId} scores ${scoreOf(docId)} < ${atLeast}`);
      if (atLeast >= pairs + 7) {
        t.true(listed, `round ${round}: no far bound when ranks past the lists may exist`);
        farBound += docs.size;
      }
    }
    t.true(seen.isEqual(rest), `round ${round}: the classes are the rest`);
  }
  t.true(farBound > 1000);
});

// Costs from KNOWN_COST_MIN on that earlier searches read (SearchContext.termPairKnownCosts) bound their
// documents exactly, over what the pair lookups and the rank postings tell. Classes stay disjoint, the
// whole rest, never above a score.
test('proximity rest classes: known costs bound documents by their exact cost', (t) => {
  const random = randomFrom(79);
  let exact = 0;
  for (let round = 0; round < 150; round++) {
    const termCount = 2 + Math.floor(random() * 3);
    const pairs = termCount - 1;
    // ranks[docId][term]: the field ranks (0..2) holding the term; a pair in no common rank costs 8.
    const ranks = Array.from({ length: DOCS }, () => Array.from({ length: termCount }, () => [0, 1, 2].filter(() => random() < 0.5)));
    const nearness = random();
    const costs = ranks.map((termRanks) => Array.from({ length: pairs }, (_, pair) => {
      const shared = termRanks[pair]!.some((rank) => termRanks[pair + 1]!.includes(rank));
      return !shared ? 8 : random() < nearness ? 1 + Math.floor(random() * 2) : 1 + Math.floor(random() * 8);
    }));
    const scoreOf = (docId: number) => costs[docId]!.reduce((sum, cost) => sum + cost, 0);
    const rest = new RoaringBitmap32(Array.from({ length: DOCS }, (_, docId) => docId).filter((docId) => scoreOf(docId) >= pairs + 2));
    const knownShare = random();
    const known = Array.from({ length: pairs }, (_, pair) => {
      const docIds = Array.from({ length: DOCS }, (_, docId) => docId).filter((docId) => costs[docId]![pair]! >= KNOWN_COST_MIN && random() < knownShare);
      return { docIds: Uint32Array.from(docIds), costs: Uint8Array.from(docIds.map((docId) => costs[docId]![pair]!)) };
    });
    const base = contextOf(costs, termCount, []);
    const ctx: SearchContext = {
      ...base,
      accelerator: {
        ...base.accelerator!,
        allFieldRanksListed: () => true,
        termDocsByRank: (term) => [0, 1, 2].map((rank) => new RoaringBitmap32(ranks.flatMap((termRanks, docId) => (termRanks[term]!.includes(rank) ? [docId] : [])))),
        termPairKnownCosts: (left) => known[left]!,
      },
    };
    const terms = Array.from({ length: termCount }, (_, term) => term);
    const classes = restClasses(ctx, terms, rest);
    const seen = new RoaringBitmap32();
    let previous = -Infinity;
    for (const { docIds, atLeast } of classes) {
      t.true(atLeast > previous, `round ${round}: ascending bounds`);
      previous = atLeast;
      t.deepEqual([...docIds], [...docIds].sort((a, b) => a - b), `round ${round}: ascending ids`);
      const docs = new RoaringBitmap32(docIds);
      t.true(seen.andCardinality(docs) === 0, `round ${round}: disjoint`);
      seen.orInPlace(docs);
      for (const docId of docIds) {
        t.true(scoreOf(docId) >= atLeast, `round ${round}: doc ${docId} scores ${scoreOf(docId)} < ${atLeast}`);
        // Only a known cost bounds a pair at 4 to 7 exactly (lookups stop at 3, far is 8).
        if (scoreOf(docId) === atLeast && costs[docId]!.some((cost) => cost >= KNOWN_COST_MIN && cost < 8)) exact++;
      }
    }
    t.true(seen.isEqual(rest), `round ${round}: the classes are the rest`);
  }
  t.true(exact > 1000, `${exact} documents bound exactly through known costs`);
});

// The bounds by document carry a stamp per pair (nothing cleared between pairs) that wraps after
// thousands of pairs: the classes stay the same call after call across the wrap.
test('proximity rest classes: the same classes call after call (past the pair stamps wrapping)', (t) => {
  const random = randomFrom(80);
  const { termCount, costs } = randomPairCosts(random, 4);
  const pairs = termCount - 1;
  const scoreOf = (docId: number) => costs[docId]!.reduce((sum, cost) => sum + cost, 0);
  const rest = new RoaringBitmap32(Array.from({ length: DOCS }, (_, docId) => docId).filter((docId) => scoreOf(docId) >= pairs + 2));
  const terms = Array.from({ length: termCount }, (_, term) => term);
  const ctx = contextOf(costs, termCount, []);
  const first = restClasses(ctx, terms, rest).map(({ docIds, atLeast }) => ({ docIds: [...docIds], atLeast }));
  t.true(first.length > 1);
  for (let call = 0; call < 2000; call++) {
    const classes = restClasses(ctx, terms, rest).map(({ docIds, atLeast }) => ({ docIds: [...docIds], atLeast }));
    if (call % 97 === 0 || call > 1990) t.deepEqual(classes, first, `call ${call}`);
  }
});
