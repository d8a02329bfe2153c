// Commit stamps for shard snapshots: a batch's commit stamps the index record with the batch uid in
// the same transaction, and the workers are told the stamp of the state their shards hold after a
// commit or a rollback (never before the commit, never for a deleted index).
import test from 'ava';
import { createHarness } from './scheduler-harness.js';

const announced = (h: Awaited<ReturnType<typeof createHarness>>) => h.shards.snapshotCommands.map(({ worker, command }) =>
  command.kind === 'indexCommitted' ? `${worker}:${command.indexUid}@${command.commitSeq}` : `${worker}:${command.kind}`);

test('a commit stamps the index with its batch uid and announces it to every worker', async (t) => {
  const h = await createHarness({ workerCount: 2 });
  h.addDocuments('a', [{ id: 1 }]);
  await h.run();
  const first = h.task(0).batchUid!;
  t.is(h.storage.indexes.get('a')!.commitSeq, first);
  t.deepEqual(announced(h), [`0:a@${first}`, `1:a@${first}`]);
  h.addDocuments('a', [{ id: 2 }]);
  await h.run();
  const second = h.task(1).batchUid!;
  t.true(second > first);
  t.is(h.storage.indexes.get('a')!.commitSeq, second);
  t.deepEqual(announced(h).slice(2), [`0:a@${second}`, `1:a@${second}`]);
  // A settings change is a commit too.
  h.enqueue({ type: 'settingsUpdate', indexUid: 'a', settings: { searchableAttributes: ['title'] }, isDeletion: false });
  await h.run();
  t.is(h.storage.indexes.get('a')!.commitSeq, h.task(2).batchUid!);
  await h.close();
});

test('a rolled-back batch announces the committed stamp again; a deleted index is not announced', async (t) => {
  const h = await createHarness({ workerCount: 2 });
  h.addDocuments('r', [{ id: 1 }]);
  await h.run();
  const committed = h.storage.indexes.get('r')!.commitSeq!;
  h.shards.snapshotCommands.length = 0;
  h.shards.failWhen = ({ command }) => command.kind === 'writeBatch';
  h.addDocuments('r', [{ id: 2 }]);
  await h.run();
  t.is(h.task(1).status, 'failed');
  t.is(h.storage.indexes.get('r')!.commitSeq, committed, 'a failed batch does not move the stamp');
  t.deepEqual(announced(h), [`0:r@${committed}`, `1:r@${committed}`]);
  h.shards.failWhen = null;
  h.shards.snapshotCommands.length = 0;
  h.enqueue({ type: 'indexDeletion', indexUid: 'r' });
  await h.run();
  t.deepEqual(announced(h), []);
  await h.close();
});
