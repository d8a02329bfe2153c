// What searches learn of a pair's proximity costs past the pair tables (src/shard/pairs/pair-cost-memo.ts):
// the costs proximity read, from KNOWN_COST_MIN on. Later searches of the pair bound proximity's rest classes by them and read fewer
// documents, with the hits of reading every document; a write drops what was learned.
import test from 'ava';
import { costNote, withNotedCosts } from '../../src/shard/pairs/pair-cost-memo.js';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { KNOWN_COST_MIN } from '../../src/ranking/rules/proximity.js';
import { randomFrom } from './seeded-lcg.js';

test('noted costs merge into the known ones: ascending, each document once, the same object when nothing is new', (t) => {
  const random = randomFrom(5);
  let known = withNotedCosts(undefined, [costNote(9, 5), costNote(2, 8), costNote(9, 5)]);
  t.deepEqual([...known.docIds], [2, 9]);
  t.deepEqual([...known.costs], [8, 5]);
  const expected = new Map<number, number>([[2, 8], [9, 5]]);
  for (let round = 0; round < 200; round++) {
    const notes = Array.from({ length: Math.floor(random() * 12) }, () => {
      const docId = Math.floor(random() * 300);
      // A document's cost is the same whenever it is read.
      const isNew = !expected.has(docId);
      const cost = expected.get(docId) ?? KNOWN_COST_MIN + Math.floor(random() * 5);
      expected.set(docId, cost);
      return { note: costNote(docId, cost), isNew };
    });
    const merged = withNotedCosts(known, notes.map(({ note }) => note));
    t.is(merged === known, !notes.some(({ isNew }) => isNew), `round ${round}: a copy only with something new`);
    const ids = [...expected.keys()].sort((a, b) => a - b);
    t.deepEqual([...merged.docIds], ids, `round ${round}`);
    t.deepEqual([...merged.costs], ids.map((docId) => expected.get(docId)!), `round ${round}`);
    known = merged;
  }
});

const FILLER = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** alpha, then beta `first` positions on, then gamma `second` positions after beta, filler between. */
function spaced(first: number, second: number): string {
  const words = ['alpha'];
  for (let k = 1; k < first; k++) words.push(FILLER[k]!);
  words.push('beta');
  for (let k = 1; k < second; k++) words.push(FILLER[k]!);
  words.push('gamma');
  return words.join(' ');
}

/** Documents where every pair of "alpha beta gamma" is 3 or more apart: the class read whole when the lead score is 6. */
function spacedShard(): { shard: ShardIndex; reads: () => number } {
  const random = randomFrom(8);
  const shard = new ShardIndex(compileIndexConfig({ searchableAttributes: ['body'] }));
  for (let docId = 0; docId < 600; docId++) {
    // Doc 0 and a few others have both pairs at 3 (score 6); most have a pair further.
    const tight = docId === 0 || random() < 0.02;
    shard.upsert(docId, { id: docId, body: tight ? spaced(3, 3) : spaced(3 + Math.floor(random() * 6), 3 + Math.floor(random() * 6)) });
  }
  // Two documents closer (proximity splits from the pair tables only when some are within 2), fewer than the hits wanted.
  shard.upsert(600, { id: 600, body: spaced(1, 1) });
  shard.upsert(601, { id: 601, body: spaced(1, 2) });
  shard.trim();
  shard.nearPairs.build();
  shard.soleWordFields.build();
  shard.fieldStartPairs.build();
  let count = 0;
  const forward = shard.forward;
  const offsetOf = forward.offsetOf.bind(forward);
  forward.offsetOf = (docId: number) => {
    count++;
    return offsetOf(docId);
  };
  return { shard, reads: () => count };
}

test('a repeated search reads fewer documents of the rest classes, with the hits of reading every document', (t) => {
  const { shard, reads } = spacedShard();
  const request = { q: 'alpha beta gamma', hitsWanted: 5, matchingStrategy: 'last' as const };
  const reference = shard.search({ ...request, bitmapBuckets: false });
  const readsPerPass: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const before = reads();
    const found = shard.search(request);
    readsPerPass.push(reads() - before);
    t.deepEqual(found.hits, reference.hits, `pass ${pass}`);
    t.is(found.candidates, reference.candidates);
  }
  t.true(reference.hits.some((hit) => hit.docId === 0));
  // The first search reads the class of every pair at 3 or more whole; the next ones its documents known at 3 only.
  t.true(readsPerPass[1]! * 4 < readsPerPass[0]!, `reads per pass ${readsPerPass.join(', ')}`);
  t.true(readsPerPass[2]! <= readsPerPass[1]!);
});

test('a write drops what was learned: a document rewritten closer is found again', (t) => {
  const { shard } = spacedShard();
  const request = { q: 'alpha beta gamma', hitsWanted: 5, matchingStrategy: 'last' as const };
  // Doc 1 learned far (both pairs at 9), then rewritten with both pairs at 3: among the first hits (ties fall to the lower id).
  shard.upsert(1, { id: 1, body: spaced(9, 9) });
  for (let pass = 0; pass < 2; pass++) shard.search(request);
  t.false(shard.search(request).hits.some((hit) => hit.docId === 1));
  shard.upsert(1, { id: 1, body: spaced(3, 3) });
  for (let pass = 0; pass < 2; pass++) {
    const found = shard.search(request);
    t.deepEqual(found.hits, shard.search({ ...request, bitmapBuckets: false }).hits, `pass ${pass}`);
    t.true(found.hits.some((hit) => hit.docId === 1), `pass ${pass}`);
  }
});
