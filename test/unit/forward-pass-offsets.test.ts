// ForwardIndex.offsetsOfAll / PassOffsets: a full build's passes read every document's arena offset
// in order from one memo instead of a hash lookup each; the memo must never outlive a write.
import test from 'ava';
import { ForwardIndex, PassOffsets, tokenCountAt } from '../../src/shard/documents/forward-index.js';
import { randomFrom } from './seeded-lcg.js';

function tokens(random: () => number, count: number): { fieldRanks: number[]; wordIds: number[]; fields: number[]; positions: number[] } {
  return {
    fieldRanks: [0],
    wordIds: Array.from({ length: count }, () => Math.floor(random() * 1000)),
    fields: Array.from({ length: count }, () => 0),
    positions: Array.from({ length: count }, (_, k) => k),
  };
}

const held = (ids: Set<number>) => Uint32Array.from([...ids].sort((a, b) => a - b));

test('offsetsOfAll gives every document\'s offset in order, the same array until a write, null for a set that is not every document', (t) => {
  const random = randomFrom(7);
  const forward = new ForwardIndex();
  const ids = new Set<number>();
  for (let k = 0; k < 3000; k++) {
    const docId = Math.floor(random() * 100_000);
    ids.add(docId);
    forward.put(docId, tokens(random, 1 + Math.floor(random() * 8)));
  }
  const documents = held(ids);
  const offsets = forward.offsetsOfAll(documents)!;
  t.deepEqual([...offsets], [...documents].map((docId) => forward.offsetOf(docId)));
  t.is(forward.offsetsOfAll(Uint32Array.from(documents)), offsets, 'memoized (an equal array)');
  t.is(forward.offsetsOfAll(documents.subarray(1)), null, 'not every document');
  const other = Uint32Array.from(documents);
  other[0] = 100_001;
  t.is(forward.offsetsOfAll(other), null, 'not the documents held');
  forward.put(documents[5]!, tokens(random, 3));
  const after = forward.offsetsOfAll(documents)!;
  t.not(after, offsets, 'a write drops the memo');
  t.is(after[5], forward.offsetOf(documents[5]!));
});

test('a pass whose steps have writes between them (a compaction moving every document) reads the offsets as they are now', (t) => {
  const random = randomFrom(8);
  const forward = new ForwardIndex();
  const ids = new Set<number>();
  // Large documents: removing half of them passes the compaction threshold (1 << 20 words of garbage).
  for (let docId = 0; docId < 1200; docId++) {
    ids.add(docId);
    forward.put(docId, tokens(random, 1000));
  }
  const documents = held(ids);
  const pass = new PassOffsets(forward, documents);
  t.is(pass.at(900), forward.offsetOf(900));
  const before = pass.at(1100);
  for (let docId = 0; docId < 1200; docId += 2) forward.remove(docId);
  t.not(forward.offsetOf(1101), pass.at(1101), 'moved by the compaction (the test needs one)');
  pass.resume();
  for (let index = 0; index < documents.length; index++) t.is(pass.at(index), forward.offsetOf(documents[index]!));
  t.is(pass.at(1100), -1, 'removed');
  t.true(before >= 0);
  t.is(tokenCountAt(forward.arena, pass.at(1101)), 1000);
});
