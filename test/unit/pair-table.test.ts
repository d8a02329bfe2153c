// PairTable: runs per key from a visitor, and long runs handed out as bitmaps holding the same documents.
import test from 'ava';
import roaring from 'roaring';
import { PairTable } from '../../src/shard/pairs/pair-table.js';

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

test('a tagged table keeps each document once per key and tag, its runs by tag then document, and slices a range of tags', (t) => {
  // Key 2: document d with tags d % 3 and (d % 3) + 1 (each emitted twice in a row); key 4: tag 7 only; untagged table 1 alike.
  const tables = PairTable.buildMany(2, 8, (emit) => {
    for (let docId = 0; docId < 300; docId++) {
      for (const table of [0, 1]) {
        for (const tag of [docId % 3, docId % 3, (docId % 3) + 1]) emit(table, 2, docId, tag);
        if (docId % 50 === 0) emit(table, 4, docId, 7);
      }
    }
  }, [true, false]);
  const [tagged, untagged] = tables as [PairTable, PairTable];
  // By tag, then document.
  const expected = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, k) => first + k)
    .flatMap((tag) => Array.from({ length: 300 }, (_, docId) => docId).filter((docId) => docId % 3 === tag || (docId % 3) + 1 === tag));
  for (const [first, last] of [[0, 0], [1, 1], [3, 3], [0, 3], [1, 2], [2, 3]] as const) {
    t.deepEqual([...(tagged.docsTaggedWithin(2, first, last) ?? [])], expected(first, last), `tags ${first}..${last}`);
  }
  t.is(tagged.docsTaggedWithin(2, 4, 6), null);
  t.deepEqual([...tagged.docsTaggedWithin(4, 7, 7)!], [0, 50, 100, 150, 200, 250]);
  t.is(tagged.docsTaggedWithin(4, 0, 6), null);
  t.is(tagged.docsTaggedWithin(5, 0, 255), null);
  t.deepEqual([...tagged.docsOf(2)!], expected(0, 255), 'the whole run: every tag');
  // Untagged: each document once, as tag 0.
  t.deepEqual([...untagged.docsOf(2)!], Array.from({ length: 300 }, (_, docId) => docId));
  t.deepEqual([...untagged.docsTaggedWithin(2, 0, 0)!], Array.from({ length: 300 }, (_, docId) => docId));
  t.is(untagged.docsTaggedWithin(2, 1, 3), null);
});
