import test from 'ava';
import { createHarness, documentsOf } from './scheduler-harness.js';

// One task per batch, so a run of several tasks is several batches, each planned while the one
// before it is applied.
const oneTaskPerBatch = { limits: { maxTasks: 1, maxDocuments: 100_000 } };

/** Waits until the scheduler applies a batch (its writes held by the shards' gate). */
async function applying(h: Awaited<ReturnType<typeof createHarness>>): Promise<void> {
  for (let i = 0; i < 500 && h.scheduler.state !== 'applyingToShards'; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  // Planning ahead runs right after the writes are sent: let it finish.
  await new Promise((resolve) => setTimeout(resolve, 20));
}

test('the next batch is planned while the shards apply the current one, with the same results', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  h.addDocuments('p', [{ id: 1, title: 'one' }, { id: 2, title: 'two' }]);
  h.addDocuments('p', [{ id: 2, year: 2002 }, { id: 3, title: 'three' }], { method: 'update' });
  h.enqueue({ type: 'documentDeletion', indexUid: 'p', ids: ['1'] });
  h.addDocuments('p', [{ id: 4 }, { id: 'bad id' }]);
  h.addDocuments('p', [{ id: 5 }]);
  await h.run();
  t.is(h.scheduler.batchesPlannedAhead, 4, 'every batch after the first was planned ahead');
  t.deepEqual([0, 1, 2, 3, 4].map((uid) => h.task(uid).status), ['succeeded', 'succeeded', 'succeeded', 'failed', 'succeeded']);
  t.deepEqual([0, 1, 2, 3, 4].map((uid) => h.task(uid).batchUid), [0, 1, 2, 3, 4]);
  t.deepEqual(h.task(1).details, { receivedDocuments: 2, indexedDocuments: 2 });
  t.deepEqual(h.task(2).details, { providedIds: 1, deletedDocuments: 1, originalFilter: null });
  t.deepEqual(documentsOf(h.storage, 'p'), [{ id: 2, title: 'two', year: 2002 }, { id: 3, title: 'three' }, { id: 5 }]);
  const index = h.storage.indexes.get('p')!;
  t.is(index.documentCount, 3);
  t.deepEqual(index.fieldDistribution, { id: 3, title: 2, year: 1 });
  t.is(index.updatedAt, h.task(4).startedAt!, 'updatedAt is the start of the batch, not the time it was planned');
  t.is(h.storage.externalIds.get(['p', '1']), undefined);
  // Ids keep increasing across batches planned ahead: no id is handed out twice.
  const ids = [...h.storage.externalIds.getRange({ start: ['p', ''], end: ['p', '\uffff'] })].map(({ value }) => value);
  t.is(new Set(ids).size, ids.length);
  await h.close();
});

test('a document added by one batch and deleted by the next planned ahead is deleted on its shard', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  h.addDocuments('q', [{ id: 1 }]);
  h.enqueue({ type: 'documentDeletion', indexUid: 'q', ids: ['1'] });
  await h.run();
  t.is(h.scheduler.batchesPlannedAhead, 1);
  const writes = h.shards.sent.filter(({ command }) => command.kind === 'writeBatch').map(({ command }) => command.kind === 'writeBatch' ? command.ops.map((op) => op.kind) : []);
  t.deepEqual(writes, [['upsert'], ['delete']]);
  t.deepEqual(documentsOf(h.storage, 'q'), []);
  await h.close();
});

test('a failed batch discards the plan made over it: the next batch is planned again on what was committed', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  h.addDocuments('f', [{ id: 1 }]);
  await h.run();
  h.shards.failWhen = ({ command }) => command.kind === 'writeBatch' && command.ops.some((op) => op.kind === 'upsert' && op.document.includes('"id":2'));
  h.addDocuments('f', [{ id: 2 }]);
  h.addDocuments('f', [{ id: 3 }]);
  await h.run();
  t.is(h.task(1).status, 'failed');
  t.is(h.task(2).status, 'succeeded');
  t.is(h.scheduler.batchesPlannedAhead, 0);
  t.deepEqual(documentsOf(h.storage, 'f'), [{ id: 1 }, { id: 3 }]);
  t.is(h.storage.indexes.get('f')!.documentCount, 2);
  await h.close();
});

test('a cancelation enqueued while a batch is applied cancels the tasks planned ahead', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  const release = h.shards.holdAcks();
  h.addDocuments('c', [{ id: 1 }]);
  h.addDocuments('c', [{ id: 2 }]);
  h.scheduler.resume();
  await applying(h);
  t.is(h.scheduler.state, 'applyingToShards');
  h.enqueue({ type: 'taskCancelation', filter: { uids: '1' }, originalFilter: '?uids=1', matchedUids: [1] });
  release();
  await h.scheduler.whenIdle();
  t.is(h.task(0).status, 'succeeded');
  t.is(h.task(1).status, 'canceled');
  t.is(h.scheduler.batchesPlannedAhead, 0);
  t.deepEqual(documentsOf(h.storage, 'c'), [{ id: 1 }]);
  await h.close();
});

test('a plan made ahead for fewer tasks than the next batch takes covers a batch of its own tasks', async (t) => {
  const h = await createHarness({ limits: { maxTasks: 1000, maxDocuments: 2 } });
  h.enqueue({ type: 'indexCreation', indexUid: 'r', primaryKey: 'id' });
  await h.run(); // so the next batch has no loadIndex phase: its writes are sent (and the next planned) at once
  const release = h.shards.holdAcks();
  h.addDocuments('r', [{ id: 1 }, { id: 2 }]);
  h.addDocuments('r', [{ id: 3 }]);
  h.scheduler.resume();
  await applying(h);
  // Planned ahead: [task 1] alone. Task 2 arrives after; it would fit task 1's batch but waits.
  h.addDocuments('r', [{ id: 4 }]);
  release();
  await h.scheduler.whenIdle();
  h.scheduler.pause();
  t.is(h.scheduler.batchesPlannedAhead, 2);
  t.deepEqual([1, 2, 3].map((uid) => h.task(uid).batchUid), [1, 2, 3]);
  t.true([1, 2, 3].every((uid) => h.task(uid).status === 'succeeded'));
  t.is(h.storage.indexes.get('r')!.documentCount, 4);
  await h.close();
});
