// wordPosition's per-cost unions of a term's position lists (word-position-parts.ts costUnions): the
// lists themselves where a cost is one position, unions where it is two, kept per query position.
import test from 'ava';
import roaring from 'roaring';
import { costUnions } from '../../src/ranking/rules/word-position-parts.js';
import { positionCost } from '../../src/ranking/rules/word-position.js';
import { RankingMemos } from '../../src/ranking/ranking-memos.js';
import { allLists } from '../../src/ranking/keyed-lists.js';

const { RoaringBitmap32 } = roaring;
/** The memo a shard would own (ShardCaches.rankingMemos), one for this file's tests. */
const memo = new RankingMemos().costUnions;

/** Documents holding the term at position 0..3 (what termDocsByPosition hands out). */
function positionLists(): roaring.RoaringBitmap32[] {
  return [new RoaringBitmap32([1, 2, 3]), new RoaringBitmap32([4, 5]), new RoaringBitmap32([6, 7, 2]), new RoaringBitmap32([8, 9])];
}

/** The reference: for each cost up to certainCosts, the union of the positions at that cost. */
function expected(byPosition: roaring.RoaringBitmap32[], queryPosition: number, certainCosts: number): number[][] {
  return Array.from({ length: certainCosts + 1 }, (_, cost) => {
    const docs = new Set<number>();
    byPosition.forEach((list, position) => {
      if (positionCost(Math.abs(position - queryPosition)) === cost) for (const docId of list) docs.add(docId);
    });
    return [...docs].sort((a, b) => a - b);
  });
}

test('a cost of one position is that position list itself, not a copy', (t) => {
  const byPosition = positionLists();
  const unions = costUnions(byPosition, 0, 1, memo);
  t.is(unions.length, 2);
  t.is(unions.at(0), byPosition[0]);
  t.is(unions.at(1), byPosition[1]);
});

test('a cost of two positions is their union, the lists left as they were', (t) => {
  const byPosition = positionLists();
  const unions = costUnions(byPosition, 1, 1, memo);
  t.is(unions.at(0), byPosition[1]);
  t.deepEqual(unions.at(1)!.toArray(), [1, 2, 3, 6, 7]);
  t.deepEqual(byPosition[0]!.toArray(), [1, 2, 3]);
  t.deepEqual(byPosition[2]!.toArray(), [2, 6, 7]);
});

test('the unions are kept per lists and query position', (t) => {
  const byPosition = positionLists();
  const first = costUnions(byPosition, 2, 1, memo);
  t.is(costUnions(byPosition, 2, 1, memo), first);
  // Other query positions of the same lists get their own unions.
  for (const [queryPosition, certainCosts] of [[0, 1], [1, 1], [2, 1], [3, 0]] as const) {
    t.deepEqual(allLists(costUnions(byPosition, queryPosition, certainCosts, memo)).map((docs) => docs.toArray()), expected(byPosition, queryPosition, certainCosts), `query position ${queryPosition}`);
  }
  // Other lists (another term, or the same term after a write) are not served the first lists' unions.
  const others = positionLists().map((list) => RoaringBitmap32.or(list, new RoaringBitmap32([100])));
  t.deepEqual(allLists(costUnions(others, 2, 1, memo)).map((docs) => docs.toArray()), expected(others, 2, 1));
});
