// The per-search pool of bitmaps (src/ranking/scratch-bitmaps.ts): its operations equal roaring's,
// released bitmaps are cleared and reused, and a search gives the thread's pool back at its end,
// even when it throws (src/shard/search/shard-search.ts, search/thread-scratch.ts).
import test from 'ava';
import roaring from 'roaring';
import { OWNED_BITMAPS, ScratchBitmaps, type BitmapSource } from '../../src/ranking/scratch-bitmaps.js';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { threadScratchState } from '../../src/shard/search/thread-scratch.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Sparse, dense (bitset containers) or ranges (run containers), sometimes empty, over two 65,536-id chunks. */
function randomSet(random: () => number): RoaringBitmap32 {
  const set = new RoaringBitmap32();
  const shape = random();
  if (shape < 0.1) return set;
  if (shape < 0.3) {
    const from = Math.floor(random() * 100_000);
    set.addRange(from, from + Math.floor(random() * 30_000));
    return set;
  }
  const count = shape < 0.6 ? 50 : 9000;
  for (let k = 0; k < count; k++) set.add(Math.floor(random() * 131_072));
  return set;
}

function checkSource(t: import('ava').ExecutionContext, bitmaps: BitmapSource, round: number): void {
  const random = randomFrom(round);
  const a = randomSet(random);
  const b = randomSet(random);
  const aBefore = a.toArray();
  const bBefore = b.toArray();
  const results: [string, RoaringBitmap32, RoaringBitmap32][] = [
    ['and', bitmaps.and(a, b), RoaringBitmap32.and(a, b)],
    ['and (swapped)', bitmaps.and(b, a), RoaringBitmap32.and(a, b)],
    ['andNot', bitmaps.andNot(a, b), RoaringBitmap32.andNot(a, b)],
    ['or', bitmaps.or(a, b), RoaringBitmap32.or(a, b)],
    ['copy', bitmaps.copy(a), a],
    ['fromIds', bitmaps.fromIds(b.toUint32Array()), b],
    ['empty', bitmaps.empty(), new RoaringBitmap32()],
  ];
  for (const [what, made, expected] of results) {
    t.deepEqual(made.toArray(), expected.toArray(), `${what}, round ${round}`);
    // A result is the caller's own: never one of the arguments.
    t.true(made !== a && made !== b, `${what} handed out an argument`);
  }
  t.deepEqual(a.toArray(), aBefore);
  t.deepEqual(b.toArray(), bBefore);
  // Every result is mutable and independent of the others and of the arguments (none lent twice).
  t.is(new Set(results.map(([, made]) => made)).size, results.length);
  results.forEach(([, made], index) => made.add(200_000 + index));
  results.forEach(([what, made], index) => t.is(made.maximum(), 200_000 + index, what));
  t.deepEqual(a.toArray(), aBefore);
  t.deepEqual(b.toArray(), bBefore);
}

test('scratch bitmaps: and / andNot / or / copy / fromIds / empty equal roaring\'s, arguments untouched', (t) => {
  const scratch = new ScratchBitmaps();
  for (let round = 0; round < 60; round++) {
    checkSource(t, scratch, round);
    scratch.releaseAll();
  }
});

test('owned bitmaps: the same operations', (t) => {
  for (let round = 0; round < 20; round++) checkSource(t, OWNED_BITMAPS, round);
});

test('scratch bitmaps: releaseAll clears every lent bitmap and the next search reuses them', (t) => {
  const scratch = new ScratchBitmaps();
  const lent = [scratch.copy(RoaringBitmap32.fromRange(0, 5000)), scratch.fromIds([1, 2, 3]), scratch.empty()];
  lent[2]!.add(7);
  t.is(scratch.lentCount, 3);
  scratch.releaseAll();
  t.is(scratch.lentCount, 0);
  t.is(scratch.freeCount, 3);
  for (const bitmap of lent) t.true(bitmap.isEmpty, 'a released bitmap is cleared');
  const again = [scratch.empty(), scratch.and(RoaringBitmap32.fromRange(0, 10), RoaringBitmap32.fromRange(5, 20)), scratch.empty()];
  t.is(scratch.freeCount, 0);
  for (const bitmap of again) t.true(lent.includes(bitmap), 'a released bitmap is lent again');
  t.deepEqual(again[1]!.toArray(), [5, 6, 7, 8, 9]);
  t.true(again[0]!.isEmpty && again[2]!.isEmpty);
});

function searchableShard(documents = 400): ShardIndex {
  const random = randomFrom(42);
  const words = ['red', 'green', 'blue', 'bright', 'dark', 'light', 'shade', 'tone'];
  const shard = new ShardIndex(compileIndexConfig({}));
  for (let docId = 0; docId < documents; docId++) {
    const text = () => Array.from({ length: 1 + Math.floor(random() * 6) }, () => words[Math.floor(random() * words.length)]!).join(' ');
    shard.upsert(docId, { id: docId, title: text(), body: text() });
  }
  return shard;
}

test('a search gives the thread\'s scratch bitmaps back at its end, cleared, even when it throws', (t) => {
  const shard = searchableShard();
  const request = { q: 'bright red shade', hitsWanted: 5, matchingStrategy: 'last' as const };
  const first = shard.search(request);
  t.true(first.hits.length > 0);
  t.is(threadScratchState().searchesHolding, 0);
  const kept = threadScratchState().freeBitmaps;
  t.true(kept > 0, 'the search used scratch bitmaps and gave them back');
  // A failure after the rules made their buckets (the distinct keys are read once the hits are ranked).
  t.throws(() => shard.search({ ...request, distinct: { keyOf: () => { throw new Error('planted'); }, count: () => { throw new Error('not reached'); } } }), { message: 'planted' });
  t.is(threadScratchState().searchesHolding, 0);
  t.true(threadScratchState().freeBitmaps >= kept);
  // The next searches answer as before (nothing of an earlier search left in the reused bitmaps).
  t.deepEqual(shard.search(request).hits, first.hits);
  t.deepEqual(shard.search(request).candidates, first.candidates);
});

test('no scratch bitmap outlives its search: searches repeated (memos, caches warm) answer as reading every document', (t) => {
  // Large enough that the rules split from bitmaps (pair tables, rank / position postings, sole-word
  // fields) and keep what they gathered for the next searches (pair memos, derivations).
  const shard = searchableShard(3000);
  shard.trim();
  shard.nearPairs.build();
  shard.soleWordFields.build();
  const queries = ['bright red shade', 'dark tone', 'red', 'light gre', 'shade bright dark tone', 'blue lig', 'gren dark'];
  for (let pass = 0; pass < 3; pass++) {
    for (const q of queries) {
      const request = { q, hitsWanted: 30, matchingStrategy: 'last' as const };
      const fast = shard.search(request);
      const reference = shard.search({ ...request, bitmapBuckets: false });
      t.deepEqual(fast.hits, reference.hits, `pass ${pass}, q=${q}`);
      t.is(fast.candidates, reference.candidates);
    }
  }
});
