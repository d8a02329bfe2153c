// PairTable: runs per key from a visitor, and long runs handed out as bitmaps holding the same documents.
import test from 'ava';
import roaring from 'roaring';
import { PairTable } from '../../src/shard/pair-table.js';

const { RoaringBitmap32 } = roaring;

test('docsOrBitmapOf gives the documents of docsOf, long runs as a kept bitmap', (t) => {
  // Key 3: 10,000 documents (every third, a repeat in each document); key 7: a few; key 5: none.
  const [table] = PairTable.buildMany(1, 10, (emit) => {
    for (let docId = 0; docId < 30_000; docId++) {
      if (docId % 3 === 0) {
        emit(0, 3, docId);
        emit(0, 3, docId);
      }
      if (docId % 5000 === 1) emit(0, 7, docId);
    }
  });
  const long = table!.docsOrBitmapOf(3);
  t.true(long instanceof RoaringBitmap32);
  t.deepEqual([...(long as roaring.RoaringBitmap32)], [...table!.docsOf(3)!]);
  t.is((long as roaring.RoaringBitmap32).size, 10_000);
  t.is(table!.docsOrBitmapOf(3), long, 'kept');
  const short = table!.docsOrBitmapOf(7);
  t.true(short instanceof Uint32Array);
  t.deepEqual([...(short as Uint32Array)], [1, 5001, 10001, 15001, 20001, 25001]);
  t.is(table!.docsOrBitmapOf(5), null);
  t.is(table!.docsOf(5), null);
});
