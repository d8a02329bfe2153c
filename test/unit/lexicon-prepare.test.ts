// Issue 19's first window: the pre-commit build (ShardIndex.prepareSteps) also makes what the lexicon's
// walks build on first use (sorted lists, NearPrefixFilter, packed lists and their tail order, word ids:
// Lexicon.prepareSteps), which the first search after a bulk load paid before its answer. Checked: the
// first search then builds none of it; and words written between the steps (unsorted pending words)
// leave no memo out of step with its list (answers as a twin's that never prepared).
import test from 'ava';
import type { ShardIndex } from '../../src/shard/shard-index.js';
import { packedWords } from '../../src/shard/words/fuzzy-walk.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, sameAnswers, twins } from './shard-twins.js';

/** The lexicon's lists and, for each, its memos as they are now (undefined: not built). */
function lexiconState(shard: ShardIndex) {
  const lexicon = shard.vocabulary.lexicon;
  return lexicon.lists().map((list) => ({ list, packed: lexicon.memos.packed.get(list), ids: lexicon.memos.ids.get(list) }));
}

test('after a pre-commit build the first typo and prefix searches build nothing of the lexicon', (t) => {
  const { subject } = twins(3000, 19, 800);
  subject.prepareForSearch();
  const lexicon = subject.vocabulary.lexicon;
  const before = lexiconState(subject);
  const filter = lexicon.nearPrefixFilter();
  for (const state of before) {
    t.not(state.packed, undefined, 'packed list');
    t.is(state.packed?.starts.length, state.list.length + 1);
    t.not(state.packed?.tailOrder, undefined, 'tail order');
    t.is(state.ids?.length, state.list.length, 'word ids');
  }
  for (const q of ['r12', 'stsr', 'galxy far', 'jed', 'r3']) subject.search({ q, hitsWanted: 10, matchingStrategy: 'last' });
  const after = lexiconState(subject);
  t.is(after.length, before.length);
  after.forEach((state, k) => {
    t.is(state.list, before[k]!.list, 'the same sorted list');
    t.is(state.packed, before[k]!.packed, 'the same packed list');
    t.is(state.ids, before[k]!.ids, 'the same word ids');
  });
  t.is(lexicon.nearPrefixFilter(), filter, 'the same filter');
});

for (const seed of [1, 2, 3]) {
  test(`words written between the lexicon's preparation steps leave every memo in step with its list (seed ${seed})`, (t) => {
    const random = randomFrom(500 + seed);
    const { subject, reference } = twins(800, seed, 300);
    let docId = 800;
    const steps = subject.vocabulary.lexicon.prepareSteps((word) => subject.vocabulary.idOf(word));
    while (!steps.next().done) {
      // New rare words (pending, unsorted) between two steps, in both shards.
      for (let k = 0; k < 3; k++) {
        const document = makeDocument(random, docId, 5000);
        subject.upsert(docId, document);
        reference.upsert(docId, document);
        docId++;
      }
      subject.flushWrites();
      reference.flushWrites();
    }
    for (const { list, packed, ids } of lexiconState(subject)) {
      if (packed !== undefined && packed.starts.length === list.length + 1) {
        const fresh = packedWords(list);
        t.deepEqual([...packed.codes], [...fresh.codes], 'a packed memo of its length holds its words in order');
      }
      if (ids !== undefined && ids.length === list.length) t.deepEqual([...ids], list.map((word) => subject.vocabulary.idOf(word) ?? -1));
    }
    sameAnswers(t, subject, reference, random, 60);
  });
}
