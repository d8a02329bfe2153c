// The typo rule's buckets (typo.ts): a one-term universe that is the term's own documents hands out
// the term's typo classes as they are (no copy), the same buckets as the general layering.
import test from 'ava';
import roaring from 'roaring';
import { TypoRule } from '../../src/ranking/rules/typo.js';
import type { SearchContext } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

function bucketsOf(ctx: SearchContext, universe: roaring.RoaringBitmap32): { score: number; docs: number[]; bitmap: roaring.RoaringBitmap32 }[] {
  const rule = new TypoRule();
  rule.start(ctx, universe, [0]);
  const buckets: { score: number; docs: number[]; bitmap: roaring.RoaringBitmap32 }[] = [];
  for (let bucket = rule.nextBucket(ctx, universe); bucket !== null; bucket = rule.nextBucket(ctx, universe)) {
    buckets.push({ score: bucket.score, docs: bucket.candidates.toArray(), bitmap: bucket.candidates });
  }
  rule.end();
  return buckets;
}

test('one term over its own documents: its typo classes are the buckets, shared, as the general path gives them', (t) => {
  const random = randomFrom(9);
  for (let round = 0; round < 100; round++) {
    // Disjoint classes by typo count, some empty.
    const byTypo = [new RoaringBitmap32(), new RoaringBitmap32(), new RoaringBitmap32()];
    for (let docId = 0; docId < 300; docId++) {
      const roll = random();
      if (roll < 0.3) continue;
      byTypo[roll < 0.3 + 0.7 * random() * (round % 3 === 0 ? 0 : 1) ? 1 + Math.floor(random() * 2) : 0]!.add(docId);
    }
    const docs = RoaringBitmap32.orMany(byTypo);
    const ctx = {
      terms: [{ kind: 'word', word: 'w', isPrefix: false, position: 0 }],
      deadline: Number.MAX_SAFE_INTEGER,
      termDocs: () => docs,
      termDocsByTypo: () => byTypo,
      profile: () => { throw new Error('no document is read'); },
      fieldWordCount: () => 0,
    } as unknown as SearchContext;
    const own = bucketsOf(ctx, docs);
    const general = bucketsOf(ctx, docs.clone());
    t.deepEqual(own.map(({ score, docs }) => ({ score, docs })), general.map(({ score, docs }) => ({ score, docs })), `round ${round}`);
    for (const bucket of own) t.true(byTypo.includes(bucket.bitmap), 'the class itself, not a copy');
    t.true(docs.isEqual(RoaringBitmap32.orMany(byTypo)), 'nothing is altered');
  }
});

test('several terms: the universe is never altered, and the layers cover it once', (t) => {
  const random = randomFrom(17);
  for (let round = 0; round < 100; round++) {
    const termCount = 1 + Math.floor(random() * 3);
    const classes = Array.from({ length: termCount }, () => {
      const byTypo = [new RoaringBitmap32(), new RoaringBitmap32(), new RoaringBitmap32()];
      for (let docId = 0; docId < 200; docId++) {
        const roll = random();
        if (roll < 0.6) byTypo[0]!.add(docId);
        else if (roll < 0.8) byTypo[1]!.add(docId);
        else if (roll < 0.9 || round % 4 === 0) byTypo[2]!.add(docId);
      }
      return byTypo;
    });
    const ctx = {
      terms: classes.map((_, position) => ({ kind: 'word', word: `w${position}`, isPrefix: false, position })),
      deadline: Number.MAX_SAFE_INTEGER,
      termDocs: (term: number) => RoaringBitmap32.orMany(classes[term]!),
      termDocsByTypo: (term: number) => classes[term]!,
    } as unknown as SearchContext;
    const universe = new RoaringBitmap32([...Array(200).keys()].filter(() => random() < 0.8));
    const before = universe.toArray();
    const rule = new TypoRule();
    rule.start(ctx, universe, [...Array(termCount).keys()]);
    const seen: number[] = [];
    for (let bucket = rule.nextBucket(ctx, universe); bucket !== null; bucket = rule.nextBucket(ctx, universe)) {
      const expectedCost = (docId: number) => classes.reduce((sum, byTypo) => sum + (byTypo[1]!.has(docId) ? 1 : byTypo[2]!.has(docId) ? 2 : 0), 0);
      for (const docId of bucket.candidates) t.is(expectedCost(docId), bucket.score);
      seen.push(...bucket.candidates.toArray());
    }
    rule.end();
    t.deepEqual(universe.toArray(), before, `round ${round}: the universe is not altered`);
    t.deepEqual(seen.sort((a, b) => a - b), before);
  }
});
