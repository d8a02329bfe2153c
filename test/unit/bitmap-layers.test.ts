// The bitmap layer arithmetic of the ranking rules, held to its per-document definition on random
// sets: the typo rule's buckets (sum over terms of the best match's typos, 0 for an absent term),
// bestCostParts (each document under its lowest listed cost) and partsBySum (sums of those costs).
import test from 'ava';
import roaring from 'roaring';
import { TypoRule } from '../../src/ranking/rules/typo.js';
import { bestCostParts, bestCostPartsLazily, partsBySum, partsBySumLazily } from '../../src/ranking/scores/score-layers.js';
import { RankingMemos } from '../../src/ranking/ranking-memos.js';
import type { BitmapSource } from '../../src/ranking/scratch-bitmaps.js';
import type { SearchContext } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const DOCS = 400;

/** Documents 0..DOCS-1, each kept with probability `density` (sometimes ranges, so bitmaps hold run containers). */
function randomSet(random: () => number, density: number): RoaringBitmap32 {
  const set = new RoaringBitmap32();
  if (random() < 0.1) {
    const from = Math.floor(random() * DOCS);
    set.addRange(from, from + Math.floor(random() * (DOCS - from)));
    return set;
  }
  for (let docId = 0; docId < DOCS; docId++) if (random() < density) set.add(docId);
  return set;
}

/** Per term, for each document, the typos of its best match (-1: the term is absent). */
function randomTermTypos(random: () => number, terms: number): number[][] {
  return Array.from({ length: terms }, () => {
    const absent = random();
    const withTypos = random() * (1 - absent);
    return Array.from({ length: DOCS }, () => {
      const draw = random();
      if (draw < absent) return -1;
      if (draw < absent + withTypos) return random() < 0.5 ? 1 : 2;
      return 0;
    });
  });
}

function contextOf(typos: number[][]): SearchContext {
  const byTypo = typos.map((perDoc) => [0, 1, 2].map((k) => new RoaringBitmap32(perDoc.flatMap((t, docId) => (t === k ? [docId] : [])))));
  return {
    terms: typos.map((_, position) => ({ kind: 'word', word: `w${position}`, isPrefix: false, position }) as never),
    deadline: Number.MAX_SAFE_INTEGER,
    termDocs: (term) => RoaringBitmap32.orMany(byTypo[term]!),
    termDocsByTypo: (term) => byTypo[term]!,
    profile: () => { throw new Error('the typo rule reads no document'); },
    fieldWordCount: () => 0,
  };
}

test('typo buckets: each document by the sum of its terms\' best typos, a missing term costing 0', (t) => {
  const random = randomFrom(7);
  for (let round = 0; round < 200; round++) {
    const typos = randomTermTypos(random, 1 + Math.floor(random() * 4));
    const ctx = contextOf(typos);
    const universe = randomSet(random, 0.3 + random() * 0.7);
    const terms = typos.map((_, term) => term).filter(() => random() < 0.8);
    const rule = new TypoRule();
    rule.start(ctx, universe, terms);
    const buckets: [number, number[]][] = [];
    for (let bucket = rule.nextBucket(ctx, universe); bucket !== null; bucket = rule.nextBucket(ctx, universe)) {
      buckets.push([bucket.score!, bucket.candidates.toArray()]);
    }
    rule.end();
    const expected = new Map<number, number[]>();
    for (const docId of universe) {
      const score = terms.reduce((sum, term) => sum + Math.max(0, typos[term]![docId]!), 0);
      expected.set(score, [...(expected.get(score) ?? []), docId]);
    }
    t.deepEqual(buckets, [...expected].sort((a, b) => a[0] - b[0]), `round ${round}`);
    // The universe the caller handed in stays as it was.
    t.true(universe.size >= 0 && buckets.reduce((sum, [, docs]) => sum + docs.length, 0) === universe.size);
  }
});

test('bestCostParts: each document of the universe under its lowest cost, none elsewhere', (t) => {
  const random = randomFrom(11);
  for (let round = 0; round < 300; round++) {
    const universe = randomSet(random, random());
    const before = universe.toArray();
    const byCost = Array.from({ length: Math.floor(random() * 16) }, () => (random() < 0.3 ? new RoaringBitmap32() : randomSet(random, random() * 0.6)));
    const parts = bestCostParts(universe, byCost);
    t.is(parts.length, byCost.length);
    parts.forEach((part, cost) => {
      const expected = universe.toArray().filter((docId) => byCost.findIndex((docs) => docs.has(docId)) === cost);
      t.deepEqual(part.toArray(), expected, `round ${round} cost ${cost}`);
    });
    t.deepEqual(universe.toArray(), before);
  }
});

test('partsBySum: one part per certain sum, then the rest, as summing each document\'s costs', (t) => {
  const random = randomFrom(13);
  for (let round = 0; round < 300; round++) {
    const universe = randomSet(random, 0.2 + random() * 0.8);
    const terms = 1 + Math.floor(random() * 3);
    const costs = Array.from({ length: terms }, () => bestCostParts(universe,
      Array.from({ length: 1 + Math.floor(random() * 5) }, () => (random() < 0.2 ? universe.clone() : randomSet(random, random())))));
    const maxSum = Math.floor(random() * 8);
    const parts = partsBySum(universe, costs, maxSum);
    const expected = new Map<number | null, number[]>();
    for (const docId of universe) {
      let sum: number | null = 0;
      for (const termCosts of costs) {
        const cost = termCosts.findIndex((docs) => docs.has(docId));
        sum = cost < 0 || sum === null ? null : sum + cost;
      }
      if (sum !== null && sum > maxSum) sum = null;
      expected.set(sum, [...(expected.get(sum) ?? []), docId]);
    }
    const ordered = [...expected].sort((a, b) => (a[0] ?? Infinity) - (b[0] ?? Infinity));
    t.deepEqual(parts.map((part) => [part.score, part.docs.toArray()]), ordered, `round ${round}`);
  }
});

test('bestCostPartsLazily: the parts of partsBySum over one term, each cut only when asked for', (t) => {
  const random = randomFrom(17);
  for (let round = 0; round < 300; round++) {
    const universe = randomSet(random, 0.05 + random() * 0.95);
    if (universe.isEmpty) continue;
    const byCost = Array.from({ length: 1 + Math.floor(random() * 12) }, () => (random() < 0.3 ? new RoaringBitmap32() : randomSet(random, random())));
    const eager = partsBySum(universe, [bestCostParts(universe, byCost)], byCost.length - 1);
    const lazy = [...bestCostPartsLazily(universe, byCost)];
    t.deepEqual(lazy.map((part) => [part.score, part.docs.toArray()]), eager.map((part) => [part.score, part.docs.toArray()]), `round ${round}`);
    // Taking only the first part leaves the others uncomputed: a generator, nothing done before next().
    const iterator = bestCostPartsLazily(universe, byCost);
    t.deepEqual(iterator.next().value?.docs.toArray(), eager[0]?.docs.toArray());
  }
});

test('bestCostPartsLazily with lists likely within the universe: the same parts, a first list within it handed out as is', (t) => {
  const random = randomFrom(29);
  let asIs = 0;
  let cut = 0;
  for (let round = 0; round < 300; round++) {
    const universe = randomSet(random, 0.05 + random() * 0.95);
    if (universe.isEmpty) continue;
    // Mostly lists within the universe (a term's rank lists in its own documents), sometimes not (a multi-word synonym's words).
    const within = random() < 0.7;
    const byCost = Array.from({ length: 1 + Math.floor(random() * 12) }, () => {
      if (random() < 0.3) return new RoaringBitmap32();
      const list = randomSet(random, random());
      return within ? RoaringBitmap32.and(list, universe) : list;
    });
    const eager = partsBySum(universe, [bestCostParts(universe, byCost)], byCost.length - 1);
    const lazy = [...bestCostPartsLazily(universe, byCost, new RankingMemos().within)];
    t.deepEqual(lazy.map((part) => [part.score, part.docs.toArray()]), eager.map((part) => [part.score, part.docs.toArray()]), `round ${round}`);
    const first = byCost.find((list) => !list.isEmpty && !RoaringBitmap32.and(list, universe).isEmpty);
    if (first === undefined) continue;
    if (first.isSubset(universe)) {
      t.is(lazy[0]!.docs, first, `round ${round}: the list itself`);
      asIs++;
    } else cut++;
  }
  t.true(asIs > 50 && cut > 20, `${asIs} handed out as is, ${cut} cut`);
});

test('bestCostPartsLazily with lists likely within: the subset answer remembered per (list, universe) is never reused for another universe', (t) => {
  const random = randomFrom(31);
  const memo = new RankingMemos().within;
  for (let round = 0; round < 200; round++) {
    const universe = randomSet(random, 0.2 + random() * 0.8);
    if (universe.isEmpty) continue;
    const first = RoaringBitmap32.and(randomSet(random, 0.5), universe);
    if (first.size < 2) continue;
    const byCost = [first, randomSet(random, random())];
    // Asked twice with its universe (within: the list as is, both times) ...
    for (let ask = 0; ask < 2; ask++) t.is(bestCostPartsLazily(universe, byCost, memo).next().value?.docs, first, `round ${round}`);
    // ... then with a smaller universe the same list is not within: its part is cut, never the list itself.
    const smaller = universe.clone();
    smaller.remove(first.minimum());
    const part = bestCostPartsLazily(smaller, byCost, memo).next().value!;
    t.not(part.docs, first, `round ${round}`);
    t.deepEqual(part.docs.toArray(), RoaringBitmap32.and(first, smaller).toArray(), `round ${round}`);
    // And with the first universe again, the list as is once more.
    t.is(bestCostPartsLazily(universe, byCost, memo).next().value?.docs, first, `round ${round}`);
  }
});

test('partsBySumLazily: the parts of partsBySum over the terms\' best costs, the first made from only what it needs', (t) => {
  const random = randomFrom(37);
  let firstCheaper = 0;
  for (let round = 0; round < 400; round++) {
    const universe = randomSet(random, 0.05 + random() * 0.95);
    const before = universe.toArray();
    const terms = Math.floor(random() * 4);
    const lists = Array.from({ length: terms }, () =>
      Array.from({ length: 1 + Math.floor(random() * 6) }, () => (random() < 0.25 ? new RoaringBitmap32() : randomSet(random, random() * 0.7))));
    const maxSum = Math.floor(random() * 8);
    const eager = terms === 0 ? (universe.isEmpty ? [] : [{ docs: universe, score: 0 }])
      : partsBySum(universe, lists.map((byCost) => bestCostParts(universe, byCost)), maxSum);
    const lazy = [...partsBySumLazily(universe, lists, maxSum)];
    t.deepEqual(lazy.map((part) => [part.score, part.docs.toArray()]), eager.map((part) => [part.score, part.docs.toArray()]), `round ${round}`);
    t.deepEqual(universe.toArray(), before, `round ${round}: the universe is read only`);
    // The first part alone makes fewer bitmaps than all of them (when there are several).
    const madeFor = (take: number): number => {
      let made = 0;
      const counting: BitmapSource = {
        empty: () => (made++, new RoaringBitmap32()),
        and: (a, b) => (made++, RoaringBitmap32.and(a, b)),
        andNot: (a, b) => (made++, RoaringBitmap32.andNot(a, b)),
        or: (a, b) => (made++, RoaringBitmap32.or(a, b)),
        copy: (a) => (made++, a.clone()),
        fromIds: (ids) => (made++, new RoaringBitmap32(ids as number[])),
      };
      const iterator = partsBySumLazily(universe, lists, maxSum, counting);
      for (let k = 0; k < take; k++) iterator.next();
      return made;
    };
    if (eager.length > 2 && madeFor(1) < madeFor(eager.length + 1)) firstCheaper++;
  }
  t.true(firstCheaper > 50, `${firstCheaper} rounds where the first part made fewer bitmaps`);
});
