// exactness's split of the documents without a field starting with the query, per term, by whether
// they hold the term exactly (exactness-parts.ts splitByExactDocs): the bitmap itself when one side is all of it.
import test from 'ava';
import roaring from 'roaring';
import { splitByExactDocs } from '../../src/ranking/exactness-parts.js';

const { RoaringBitmap32 } = roaring;

test('splitByExactDocs: with and without the exact term, the documents themselves when one side is all of them', (t) => {
  const rest = new RoaringBitmap32([1, 2, 3, 10, 20]);
  const within = splitByExactDocs(rest, new RoaringBitmap32([0, 1, 2, 3, 10, 20, 30]));
  t.is(within[0], rest);
  t.true(within[1].isEmpty);
  const apart = splitByExactDocs(rest, new RoaringBitmap32([4, 5, 30]));
  t.true(apart[0].isEmpty);
  t.is(apart[1], rest);
  const both = splitByExactDocs(rest, new RoaringBitmap32([2, 10, 30]));
  t.deepEqual(both.map((docs) => docs.toArray()), [[2, 10], [1, 3, 20]]);
  t.deepEqual(rest.toArray(), [1, 2, 3, 10, 20]);
});
