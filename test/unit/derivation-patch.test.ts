// Cached derivations brought up to date after writes (src/shard/derivation-patch.ts) instead of derived
// again: after random upserts, rewrites and deletions, a patched term's documents, typo levels and
// rank / position unions must be exactly those of a fresh index holding the same documents.
import test from 'ava';
import type roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { TermDerivations } from '../../src/shard/words/derivations.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument } from './shard-twins.js';

/** Single-word queries and the derivation key the search gives them (last word: a prefix; typos from 5 letters). */
const TERMS: [q: string, isPrefix: boolean, budget: number][] = [['r', true, 0], ['r1', true, 0], ['s', true, 0], ['strik', true, 1], ['galaxy', true, 1], ['r12', true, 0], ['empir', true, 1]];

function freshIndex(documents: ReadonlyMap<number, Record<string, unknown>>): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig({}));
  for (const docId of [...documents.keys()].sort((a, b) => a - b)) shard.upsert(docId, documents.get(docId)!);
  shard.flushWrites();
  return shard;
}

const ids = (docs: roaring.RoaringBitmap32 | undefined) => (docs === undefined ? [] : docs.toArray());

/** [key] as ids for every key below `limit` (the search's memos are padded, the postings' unions cut). */
function byKey(lists: readonly roaring.RoaringBitmap32[], limit: number): number[][] {
  return Array.from({ length: limit }, (_, key) => ids(lists[key]));
}

function compare(t: import('ava').ExecutionContext, subject: ShardIndex, reference: ShardIndex, actual: TermDerivations, expected: TermDerivations, label: string): number {
  t.deepEqual(ids(actual.docs), ids(expected.docs), `${label} docs`);
  t.deepEqual(actual.docsByTypo.map(ids), expected.docsByTypo.map(ids), `${label} by typo`);
  const words = expected.words.map((word) => word.wordId);
  let memos = 0;
  if (actual.docsByRank !== undefined) {
    memos++;
    t.deepEqual(byKey(actual.docsByRank, subject.rankPostings.limit), byKey(reference.rankPostings.unionByKey(words), reference.rankPostings.limit), `${label} by rank`);
  }
  if (actual.docsByPosition !== undefined) {
    memos++;
    t.deepEqual(byKey(actual.docsByPosition, subject.positionPostings.limit), byKey(reference.positionPostings.unionByKey(words), reference.positionPostings.limit), `${label} by position`);
  }
  return memos;
}

for (let round = 0; round < 4; round++) {
  test(`patched derivations equal a fresh index's after random writes (round ${round})`, (t) => {
    const random = randomFrom(900 + round);
    const documents = new Map<number, Record<string, unknown>>();
    const subject = new ShardIndex(compileIndexConfig({}));
    const documentCount = 600;
    for (let docId = 0; docId < documentCount; docId++) {
      const document = makeDocument(random, docId, 200);
      documents.set(docId, document);
      subject.upsert(docId, document);
    }
    subject.flushWrites();
    if (round % 2 === 0) subject.prepareForSearch();
    let patched = 0;
    let memos = 0;
    for (let step = 0; step < 30; step++) {
      // Searches first: the terms' derivations cached with their rank / position memos.
      for (const [q] of TERMS) subject.search({ q, hitsWanted: 1 + Math.floor(random() * 20), matchingStrategy: 'last' });
      const writes = 1 + Math.floor(random() * 6);
      for (let k = 0; k < writes; k++) {
        const docId = Math.floor(random() * (documentCount + 60));
        if (random() < 0.25) {
          subject.delete(docId);
          documents.delete(docId);
        } else {
          const document = makeDocument(random, docId, 200);
          subject.upsert(docId, document);
          documents.set(docId, document);
        }
      }
      if (random() < 0.5) subject.flushWrites();
      const reference = freshIndex(documents);
      for (const [q, isPrefix, budget] of TERMS) {
        const actual = subject.derive(q, isPrefix, budget, [], false);
        if (actual.wordLevels !== undefined) patched++;
        memos += compare(t, subject, reference, actual, reference.derive(q, isPrefix, budget, [], false), `step ${step} ${q}`);
      }
    }
    t.true(patched > 50, `${patched} patched`);
    t.true(memos > 50, `${memos} memos compared`);
  });
}

test('a patch keeps what depends on the words alone and replaces the bitmaps it changes, never a word\'s own list', (t) => {
  const shard = new ShardIndex(compileIndexConfig({}));
  const titles = ['star wars', 'stark tower', 'starling bird', 'stardust memories', 'start here', 'start again', 'dark side'];
  titles.forEach((title, docId) => shard.upsert(docId, { id: docId, title }));
  shard.flushWrites();
  const before = shard.derive('star', true, 0, [], false);
  t.is(before.words.length, 5);
  // Known words only (a new word starting with star would change the walk), none losing its last document.
  shard.upsert(7, { id: 7, title: 'stark wars' });
  shard.upsert(8, { id: 8, title: 'starling star' });
  shard.delete(4);
  const after = shard.derive('star', true, 0, [], false);
  t.not(after, before);
  t.is(after.words, before.words, 'the walk held: the same words');
  t.deepEqual(after.docs.toArray(), [0, 1, 2, 3, 5, 7, 8]);
  t.deepEqual(before.docs.toArray(), [0, 1, 2, 3, 4, 5], 'the old object is left as it was');
  t.deepEqual(shard.vocabulary.docs(shard.vocabulary.idOf('star')!).toArray(), [0, 8], 'no posting list written through a memo');
  t.not(after.wordLevels, undefined, 'patched, not derived again');
});
