// The words rule's buckets (words.ts): each step's documents not handed out before, the last step
// everything left; the universe is never altered, and with one step it is the bucket itself.
import test from 'ava';
import roaring from 'roaring';
import { docsMatchingAll, WordsRule } from '../../src/ranking/rules/words.js';
import type { SearchContext } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

function contextOf(termDocs: roaring.RoaringBitmap32[]): SearchContext {
  return {
    terms: termDocs.map((_, position) => ({ kind: 'word', word: `w${position}`, isPrefix: false, position })),
    deadline: Number.MAX_SAFE_INTEGER,
    termDocs: (term: number) => termDocs[term]!,
  } as unknown as SearchContext;
}

/** What the rule should give: per step (terms dropped from the end), the documents with all of them not given before. */
function expectedBuckets(termDocs: roaring.RoaringBitmap32[], universe: roaring.RoaringBitmap32, narrowed: roaring.RoaringBitmap32): number[][] {
  const left = RoaringBitmap32.and(universe, narrowed);
  const buckets: number[][] = [];
  for (let kept = termDocs.length; kept >= 1 && !left.isEmpty; kept--) {
    const docs = kept === 1 ? left.clone() : termDocs.slice(0, kept).reduce((acc, list) => RoaringBitmap32.and(acc, list), left.clone());
    left.andNotInPlace(docs);
    if (!docs.isEmpty) buckets.push(docs.toArray());
  }
  return buckets;
}

test('buckets by terms kept, each document once, the universe unaltered, narrowed universes respected', (t) => {
  const random = randomFrom(21);
  for (let round = 0; round < 200; round++) {
    const termCount = 1 + Math.floor(random() * 4);
    const termDocs = Array.from({ length: termCount }, () => new RoaringBitmap32([...Array(200).keys()].filter(() => random() < 0.5)));
    const universe = termDocs[0]!.clone();
    const before = universe.toArray();
    // Now and then the bucket sort asks within a narrower universe than start's.
    const narrowed = round % 3 === 0 ? new RoaringBitmap32([...Array(200).keys()].filter(() => random() < 0.7)) : universe;
    const rule = new WordsRule('last');
    const ctx = contextOf(termDocs);
    rule.start(ctx, universe, [...Array(termCount).keys()]);
    const buckets: number[][] = [];
    for (let bucket = rule.nextBucket(ctx, narrowed); bucket !== null; bucket = rule.nextBucket(ctx, narrowed)) {
      buckets.push(bucket.candidates.toArray());
      if (termCount === 1 && narrowed === universe) t.is(bucket.candidates, universe, 'one step: the universe itself, no copy');
    }
    rule.end();
    t.deepEqual(buckets, expectedBuckets(termDocs, universe, narrowed), `round ${round}`);
    t.deepEqual(universe.toArray(), before, 'the universe is not altered');
  }
});

test('docsMatchingAll: every list\'s documents within `within` (also when it is one of the lists), as a new bitmap, the lists unaltered', (t) => {
  const random = randomFrom(33);
  for (let round = 0; round < 300; round++) {
    const distinct = Array.from({ length: 1 + Math.floor(random() * 4) }, () => new RoaringBitmap32([...Array(300).keys()].filter(() => random() < 0.2 + random() * 0.7)));
    // A term may repeat (the same list twice).
    const termDocs = Array.from({ length: 1 + Math.floor(random() * 4) }, () => distinct[Math.floor(random() * distinct.length)]!);
    const other = new RoaringBitmap32([...Array(300).keys()].filter(() => random() < 0.6));
    const within = [undefined, termDocs[0]!, termDocs[termDocs.length - 1]!, other][round % 4];
    const before = termDocs.map((docs) => docs.toArray());
    const expected = termDocs.reduce((acc, docs) => RoaringBitmap32.and(acc, docs), within ?? termDocs[0]!).toArray();
    const found = docsMatchingAll(contextOf(termDocs), [...termDocs.keys()], within);
    t.deepEqual(found.toArray(), expected, `round ${round}`);
    t.false(termDocs.includes(found) || found === within, 'a bitmap of its own');
    t.deepEqual(termDocs.map((docs) => docs.toArray()), before, 'the lists are not altered');
  }
});
