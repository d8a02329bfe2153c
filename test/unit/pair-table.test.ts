// PairTable: runs per key from a visitor, and long runs handed out as bitmaps holding the same documents.
import test from 'ava';
import roaring from 'roaring';
import { PairTable, type PairSink } from '../../src/shard/pairs/pair-table.js';
import { finishSteps } from '../../src/shard/sliced-jobs.js';

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

/** Seeded whole numbers below n (an LCG from `seed * multiplier`). */
function intsFrom(seed: number, multiplier: number): (n: number) => number {
  let state = seed * multiplier >>> 0;
  return (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 2 ** 32) * n);
  };
}

test('randomized: a visitor handing a document\'s occurrences at once (PairSink) builds the tables of one emitting them one by one', (t) => {
  for (let seed = 1; seed <= 20; seed++) {
    const random = intsFrom(seed, 2654435761);
    const keySpaces = [1 + random(50), 1 + random(50), 1 + random(20)];
    const tagged = [false, random(2) === 1, true];
    // Documents ascending, each with 0-40 occurrences (repeats within a document included, in a row as the contract asks), tags small.
    const documents: [number, [number, number, number][]][] = [];
    for (let docId = random(5); docId < 400; docId += 1 + random(4)) {
      documents.push([docId, Array.from({ length: random(41) }, () => {
        const table = random(3);
        return [table, random(keySpaces[table]!), tagged[table] ? random(4) : 0] as [number, number, number];
      }).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])]);
    }
    const oneByOne = finishSteps(PairTable.buildManySteps(3, keySpaces, function* (sink) {
      for (const [docId, occurrences] of documents) {
        for (const [table, key, tag] of occurrences) {
          const entries = sink.reserve(1);
          entries.set([table, key, tag]);
          sink.end(docId, 3);
        }
      }
    }, tagged));
    const atOnce = finishSteps(PairTable.buildManySteps(3, keySpaces, function* (sink) {
      for (const [docId, occurrences] of documents) {
        const entries = sink.reserve(occurrences.length);
        occurrences.forEach((occurrence, k) => entries.set(occurrence, 3 * k));
        sink.end(docId, 3 * occurrences.length);
        yield;
      }
    }, tagged));
    t.deepEqual(atOnce.map((table) => table.state), oneByOne.map((table) => table.state), `seed ${seed}`);
    // And the documents of each key are those it was given, each once per tag (by tag, then document).
    for (let table = 0; table < 3; table++) {
      for (let key = 0; key < keySpaces[table]!; key++) {
        const expected = [...new Set(documents.flatMap(([docId, occurrences]) => occurrences.filter(([tb, k]) => tb === table && k === key)
          .map(([, , tag]) => `${tag}:${docId}`)))].map((pair) => pair.split(':').map(Number) as [number, number])
          .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        const found = atOnce[table]!.docsOf(key);
        t.deepEqual([...(found ?? [])], expected.map(([, docId]) => docId), `seed ${seed} table ${table} key ${key}`);
      }
    }
  }
});

test('randomized: a replayed fill (pass 1 recorded) builds the tables of a second visit, leaving out the documents it no longer emits', (t) => {
  for (let seed = 1; seed <= 20; seed++) {
    const random = intsFrom(seed, 2246822519);
    const keySpaces = [1 + random(60), 1 + random(60), 1 + random(30), 1 + random(5)];
    const tagged = [false, random(2) === 1, true, true];
    const documents: [number, [number, number, number][]][] = [];
    for (let docId = random(5); docId < 3000; docId += 1 + random(4)) {
      documents.push([docId, Array.from({ length: random(4) === 0 ? random(301) : random(20) }, () => {
        const table = random(4);
        return [table, random(keySpaces[table]!), tagged[table] ? random(70000) % 65536 : 0] as [number, number, number];
      }).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])]);
    }
    // Documents "written" between the passes: the second visit leaves them out, as the replay's keep does.
    const dropped = new Set(documents.filter(() => random(5) === 0).map(([docId]) => docId));
    const visitor = (calls: { count: number }) => function* (sink: PairSink) {
      const second = calls.count++ > 0;
      for (const [docId, occurrences] of documents) {
        if (second && dropped.has(docId)) continue;
        const entries = sink.reserve(occurrences.length);
        occurrences.forEach((occurrence, k) => entries.set(occurrence, 3 * k));
        sink.end(docId, 3 * occurrences.length);
        if (docId % 7 === 0) yield;
      }
    };
    const twice = { count: 0 };
    const visited = finishSteps(PairTable.buildManySteps(4, keySpaces, visitor(twice), tagged));
    const once = { count: 0 };
    const replayed = finishSteps(PairTable.buildManySteps(4, keySpaces, visitor(once), tagged, { keep: (docId) => !dropped.has(docId) }));
    t.is(twice.count, 2);
    t.is(once.count, 1, 'the documents are visited once');
    t.deepEqual(replayed.map((table) => table.state), visited.map((table) => table.state), `seed ${seed}`);
    // Past its bound the recording is dropped: the fill visits again, and the tables are the same.
    const bounded = { count: 0 };
    const revisited = finishSteps(PairTable.buildManySteps(4, keySpaces, visitor(bounded), tagged, { keep: (docId) => !dropped.has(docId), maxBytes: 1024 }));
    t.is(bounded.count, 2, 'over its bound: visited again');
    t.deepEqual(revisited.map((table) => table.state), visited.map((table) => table.state), `seed ${seed}, bounded`);
  }
});
