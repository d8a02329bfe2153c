import test from 'ava';
import { StagedIndex } from '../../src/scheduler/batching/staged-index.js';
import type { IndexRecord } from '../../src/storage/records.js';

/** A stand-in for the committed LMDB state: documents and external ids of one index. */
function committed(documents: Record<number, string>, externalIds: Record<string, number>) {
  const key = (k: unknown) => String((k as unknown[])[1]);
  return {
    documents: {
      get: (k: unknown) => documents[Number(key(k))],
      doesExist: (k: unknown) => documents[Number(key(k))] !== undefined,
    },
    externalIds: { get: (k: unknown) => externalIds[key(k)] },
  } as unknown as ConstructorParameters<typeof StagedIndex>[0];
}

const record = { uid: 'i' } as unknown as IndexRecord;

test('absorb keeps the later task\'s writes, whichever of the two holds more', (t) => {
  const stage = new StagedIndex(committed({}, {}), 'i', record);
  const first = stage.fork();
  for (let i = 0; i < 5; i++) first.putDocument(`d${i}`, i, `v1-${i}`);
  stage.absorb(first);
  const small = stage.fork(); // smaller than the stage: copied into it
  small.putDocument('d1', 1, 'v2-1');
  small.deleteDocument('d2', 2);
  stage.absorb(small);
  const large = stage.fork(); // larger than the stage: the stage's entries are copied into it
  for (let i = 3; i < 12; i++) large.putDocument(`d${i}`, i, `v3-${i}`);
  stage.absorb(large);
  t.deepEqual([...Array(12).keys()].map((i) => stage.document(i) ?? null),
    ['v1-0', 'v2-1', null, ...[...Array(9).keys()].map((i) => `v3-${i + 3}`)]);
  t.is(stage.docIdOf('d2'), undefined);
  t.is(stage.docIdOf('d11'), 11);
  t.is(stage.documents.size, 12);
});

test('a stage over another reads through it until detached, then reads the commit', (t) => {
  const storage = committed({ 1: 'committed-1' }, { a: 1 });
  const previous = new StagedIndex(storage, 'i', record);
  previous.putDocument('b', 2, 'staged-2');
  const next = previous.fork();
  t.true(next.existedBefore(1));
  t.true(next.existedBefore(2), 'written by the batch before: exists for this one');
  t.is(next.docIdOf('b'), 2);
  next.detachFromCommittedParent();
  t.false(next.existedBefore(2), 'detached: only the (stand-in) commit is read');
  t.is(next.docIdOf('b'), undefined);
  t.is(next.docIdOf('a'), 1);
});
