// unionOfMany must give what roaring's orMany gives, on both of its paths (dense unions are OR-ed
// one by one, sparse ones go to orMany), and leave its inputs alone.
import test from 'ava';
import roaring from 'roaring';
import { DENSE_UNION_MIN_LISTS, DENSE_UNION_SHARE, idSpanOf, unionOfMany } from '../../src/shard/words/bitmap-union.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

function lists(random: () => number, count: number, maxSize: number, span: number): roaring.RoaringBitmap32[] {
  return Array.from({ length: count }, () => new RoaringBitmap32(Array.from({ length: Math.floor(random() * maxSize) }, () => Math.floor(random() * span))));
}

for (const [label, count, maxSize] of [['dense: many lists covering the span', 800, 400], ['dense but few lists', 100, 3000], ['sparse: few small lists', 30, 20], ['two lists', 2, 5000], ['one list', 1, 100], ['none', 0, 0]] as const) {
  test(`unionOfMany equals orMany (${label})`, (t) => {
    const random = randomFrom(count + maxSize);
    const span = 200_000;
    const bitmaps = lists(random, count, maxSize, span);
    const sizes = bitmaps.map((bitmap) => bitmap.size);
    const union = unionOfMany(bitmaps, span);
    t.deepEqual(union.toArray(), RoaringBitmap32.orMany(bitmaps).toArray());
    t.deepEqual(bitmaps.map((bitmap) => bitmap.size), sizes, 'inputs unchanged');
    t.false(bitmaps.includes(union), 'a new bitmap');
    if (label.startsWith('dense')) t.true(sizes.reduce((sum, size) => sum + size, 0) >= span * DENSE_UNION_SHARE, 'dense');
    if (label.startsWith('dense: many')) t.true(count >= DENSE_UNION_MIN_LISTS, 'the one-by-one path was taken');
  });
}

test('idSpanOf is the largest document id + 1', (t) => {
  t.is(idSpanOf(new RoaringBitmap32()), 0);
  t.is(idSpanOf(new RoaringBitmap32([3, 99, 7])), 100);
});
