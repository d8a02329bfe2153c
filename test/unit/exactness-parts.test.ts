// exactness's split of the documents without a field starting with the query, per term, by whether
// they hold the term exactly (exactness-parts.ts splitByExactDocs): the bitmap itself when one side is all of it.
import test from 'ava';
import roaring from 'roaring';
import { exactnessParts, splitByExactDocs } from '../../src/ranking/rules/exactness-parts.js';
import { NO_EXACT_FIELD, STATE_SPAN } from '../../src/ranking/rules/exactness.js';
import { NO_DOCUMENTS } from '../../src/ranking/scores/score-layers.js';
import { ScratchBitmaps } from '../../src/ranking/scratch-bitmaps.js';
import { CANNOT_TELL, type SearchContext } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

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

test('exactnessParts when no document may start with the query: parts by inexact terms, the universe left as it was', (t) => {
  const random = randomFrom(41);
  for (let round = 0; round < 200; round++) {
    const termCount = 1 + Math.floor(random() * 3);
    const universe = new RoaringBitmap32();
    for (let docId = 0; docId < 300; docId++) if (random() < 0.6) universe.add(docId);
    if (universe.isEmpty) continue;
    const exact = Array.from({ length: termCount }, () => {
      const docs = new RoaringBitmap32();
      const density = random();
      for (let docId = 0; docId < 300; docId++) if (random() < density) docs.add(docId);
      return docs;
    });
    const ctx = {
      terms: exact.map((_, position) => ({ kind: 'word', word: `w${position}`, isPrefix: false, position })),
      deadline: Infinity,
      scratchBitmaps: new ScratchBitmaps(),
      termDocs: () => universe,
      termDocsByTypo: () => [universe],
      accelerator: {
        ...CANNOT_TELL,
        termExactDocs: (term: number) => exact[term]!,
        // No document holds the first term exactly at its query position: none may start with the query.
        termExactDocsAtPosition: (term: number) => (term === 0 ? NO_DOCUMENTS : exact[term]!),
        termExactSoleFieldDocs: () => NO_DOCUMENTS,
      },
      profile: () => { throw new Error('no document is read'); },
      fieldWordCount: () => 0,
    } as unknown as SearchContext;
    const before = universe.toArray();
    const terms = exact.map((_, term) => term);
    const parts = [...exactnessParts(ctx, universe, terms)!];
    const expected = new Map<number, number[]>();
    for (const docId of before) {
      const score = NO_EXACT_FIELD * STATE_SPAN + exact.filter((docs) => !docs.has(docId)).length;
      expected.set(score, [...(expected.get(score) ?? []), docId]);
    }
    t.deepEqual(parts.map((part) => [part.score, part.docs.toArray()]), [...expected].sort((a, b) => a[0] - b[0]), `round ${round}`);
    t.deepEqual(universe.toArray(), before, `round ${round}: the universe is read only`);
  }
});

test('exactnessParts: the rest (no field starting with the query) is cut only once a part after those starting with it is asked for', (t) => {
  const universe = new RoaringBitmap32([1, 2, 3, 4, 5, 6, 7, 8]);
  const exact = new RoaringBitmap32([1, 2, 3, 5, 8]);
  const atStart = new RoaringBitmap32([1, 2, 3]);
  let made = 0;
  const scratch = new ScratchBitmaps();
  const counting = new Proxy(scratch, {
    get: (target, name) => {
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? (...args: unknown[]) => (made++, value.apply(target, args)) : value;
    },
  });
  const ctx = {
    terms: [{ kind: 'word', word: 'w', isPrefix: false, position: 0 }],
    deadline: Infinity,
    scratchBitmaps: counting,
    termDocs: () => universe,
    termDocsByTypo: () => [universe],
    accelerator: {
      ...CANNOT_TELL,
      termExactDocs: () => exact,
      termExactDocsAtPosition: () => atStart,
      // Documents 1 and 2 have a field made of the word alone; 3 a field starting with it.
      termExactSoleFieldDocs: () => scratch.fromIds([1, 2]),
    },
    profile: () => { throw new Error('no document is read'); },
    fieldWordCount: () => 0,
  } as unknown as SearchContext;
  const iterator = exactnessParts(ctx, universe, [0])![Symbol.iterator]();
  t.deepEqual(iterator.next().value?.docs.toArray(), [1, 2]);
  t.deepEqual(iterator.next().value?.docs.toArray(), [3]);
  const before = made;
  // The rest: exact 5 and 8 (one inexact term less), then 4, 6, 7.
  t.deepEqual([iterator.next().value, iterator.next().value].map((part) => [part!.score, part!.docs.toArray()]),
    [[NO_EXACT_FIELD * STATE_SPAN, [5, 8]], [NO_EXACT_FIELD * STATE_SPAN + 1, [4, 6, 7]]]);
  t.true(made > before, 'the rest is cut when asked for');
  t.true(iterator.next().done);
});
