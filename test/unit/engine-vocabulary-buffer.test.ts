// The vocabulary buffers posting additions; reads, removals and flushes must see exactly what
// adding one by one gives.
import test from 'ava';
import roaring from 'roaring';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';

const { RoaringBitmap32 } = roaring;

test('buffered additions, removals and reads match a plain bitmap model', (t) => {
  const vocabulary = new Vocabulary();
  const model = new Map<number, Set<number>>();
  let state = 7;
  const next = (n: number) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n);
  for (let step = 0; step < 200_000; step++) {
    const word = `w${next(300)}`;
    const id = vocabulary.intern(word);
    if (!model.has(id)) model.set(id, new Set());
    const docId = next(5000);
    const action = next(100);
    if (action < 80) {
      vocabulary.addDocument(id, docId);
      model.get(id)!.add(docId);
    } else if (action < 95) {
      vocabulary.removeDocument(id, docId);
      model.get(id)!.delete(docId);
    } else if (action < 99) {
      t.deepEqual(vocabulary.docs(id).toArray(), [...model.get(id)!].sort((a, b) => a - b));
    } else vocabulary.flush();
  }
  for (const [id, docs] of model) t.deepEqual(vocabulary.docs(id).toArray(), [...docs].sort((a, b) => a - b));
  t.true(vocabulary.docsOfWord('w1') instanceof RoaringBitmap32);
});

test('a bulk of additions (sorted flush path) gives every word its documents', (t) => {
  const vocabulary = new Vocabulary();
  for (let docId = 0; docId < 20_000; docId++) {
    for (const word of ['all', `mod${docId % 7}`, 'all', `doc${docId}`]) vocabulary.addDocument(vocabulary.intern(word), docId);
  }
  t.is(vocabulary.docsOfWord('all').size, 20_000);
  t.is(vocabulary.docsOfWord('mod3').size, Math.ceil((20_000 - 3) / 7));
  t.deepEqual(vocabulary.docsOfWord('doc123').toArray(), [123]);
});
