// Sending ahead (plan-ahead.ts): the next batch's writes go to the shards before the batch before
// commits. The shards must never be stamped over uncommitted writes, and every way the next batch
// does not follow (a failure, a cancelation, a pause) must undo them.
import test, { type ExecutionContext } from 'ava';
import type { ShardCommand } from '../../src/scheduler/shards/shard-link.js';
import { createHarness, documentsOf, type Harness } from './scheduler-harness.js';

const oneTaskPerBatch = { limits: { maxTasks: 1, maxDocuments: 100_000 } };

/** External ids of a writeBatch's upserts. */
function upsertedIds(command: ShardCommand): string[] {
  if (command.kind !== 'writeBatch') return [];
  return command.ops.flatMap((op) => (op.kind === 'upsert' ? [String((JSON.parse(op.document) as { id: unknown }).id)] : []));
}

/**
 * Checks, as each command is sent, the stamp rule: when an IndexCommitted goes out, every document
 * written to the shards so far (and not reloaded since) is committed. Returns the violations.
 */
function watchStamps(h: Harness, indexUid: string): string[] {
  const violations: string[] = [];
  const written = new Map<number, string>();
  h.shards.onSend = ({ command }) => {
    if (command.kind === 'writeBatch') {
      for (const op of command.ops) if (op.kind === 'upsert') written.set(op.docId, String((JSON.parse(op.document) as { id: unknown }).id));
    } else if (command.kind === 'reloadDocuments') {
      for (const docId of command.docIds) written.delete(docId);
    } else if (command.kind === 'indexCommitted') {
      for (const [docId, id] of written) {
        if (h.storage.documents.get([indexUid, docId]) === undefined) violations.push(`stamp ${command.commitSeq} over uncommitted document ${id}`);
      }
      written.clear();
    }
  };
  return violations;
}

async function applying(h: Harness): Promise<void> {
  for (let i = 0; i < 500 && h.scheduler.state !== 'applyingToShards'; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * An index with two one-document batches (tasks 1 and 2) sent to the shards, whose acks are held:
 * task 1's batch is applying and task 2's was sent ahead. Returns what releases the acks.
 */
async function twoBatchesSentAhead(t: ExecutionContext, h: Harness, indexUid: string): Promise<() => void> {
  h.enqueue({ type: 'indexCreation', indexUid, primaryKey: 'id' });
  await h.run(); // so the next batch has no loadIndex phase: its writes are sent (and the next planned) at once
  h.shards.clear();
  const release = h.shards.holdAcks();
  h.addDocuments(indexUid, [{ id: 1 }]);
  h.addDocuments(indexUid, [{ id: 2 }]);
  h.scheduler.resume();
  await applying(h);
  t.deepEqual(h.shards.sent.map(({ command }) => upsertedIds(command).join()), ['1', '2'], 'both batches sent');
  return release;
}

test('the next batch is sent while the one before is not committed; no stamp covers uncommitted writes', async (t) => {
  const h = await createHarness({ ...oneTaskPerBatch, workerCount: 2 });
  const violations = watchStamps(h, 's');
  const onSend = h.shards.onSend!;
  const statusOfPreviousAtSend: string[] = [];
  h.shards.onSend = (sent) => {
    onSend(sent);
    const ids = upsertedIds(sent.command);
    if (ids.length > 0 && ids[0] !== '1') statusOfPreviousAtSend.push(h.task(Number(ids[0]) - 2).status);
  };
  for (let id = 1; id <= 4; id++) h.addDocuments('s', [{ id, title: `doc ${id}` }]);
  await h.run();
  t.deepEqual([0, 1, 2, 3].map((uid) => h.task(uid).status), ['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  t.is(h.scheduler.batchesPlannedAhead, 3);
  t.deepEqual(statusOfPreviousAtSend, ['processing', 'processing', 'processing'], 'each batch was sent before the one before committed');
  t.deepEqual(violations, []);
  const stamps = h.shards.snapshotCommands.filter(({ command }) => command.kind === 'indexCommitted');
  t.true(stamps.length > 0);
  t.deepEqual(stamps.at(-1)!.command, { kind: 'indexCommitted', indexUid: 's', commitSeq: h.task(3).batchUid! }, 'the last commit is announced');
  t.is(documentsOf(h.storage, 's').length, 4);
  await h.close();
});

test('a commit failing after the next batch was sent ahead undoes both in the shards; the next batch is redone', async (t) => {
  let commits = 0;
  const h = await createHarness({
    ...oneTaskPerBatch,
    failurePoint: (point) => {
      if (point === 'beforeCommit' && ++commits === 2) throw new Error('disk full');
    },
  });
  const violations = watchStamps(h, 'f');
  for (let id = 1; id <= 3; id++) h.addDocuments('f', [{ id }]);
  await h.run();
  t.deepEqual([0, 1, 2].map((uid) => h.task(uid).status), ['succeeded', 'failed', 'succeeded']);
  t.deepEqual(documentsOf(h.storage, 'f'), [{ id: 1 }, { id: 3 }]);
  const kinds = h.shards.sent.map(({ command }) => (command.kind === 'writeBatch' ? `write ${upsertedIds(command).join()}` : command.kind));
  // Doc 3 was sent ahead during batch 1; its reload comes before batch 1's own (both read LMDB), then it is sent again.
  const firstWrite3 = kinds.indexOf('write 3');
  const reloads = h.shards.sent.flatMap(({ command }, at) => (command.kind === 'reloadDocuments' ? [{ at, docIds: command.docIds }] : []));
  const sentAheadOps = h.shards.sent[firstWrite3]!.command;
  t.true(firstWrite3 >= 0 && firstWrite3 < kinds.indexOf('reloadDocuments'));
  t.true(reloads.length >= 2);
  t.deepEqual(reloads[0]!.docIds, sentAheadOps.kind === 'writeBatch' ? sentAheadOps.ops.map((op) => op.docId) : [], 'the writes sent ahead are undone first');
  t.true(kinds.lastIndexOf('write 3') > reloads.at(-1)!.at, 'the batch sent ahead is sent again when it runs');
  t.deepEqual(violations, []);
  t.is(h.storage.indexes.get('f')!.documentCount, 2);
  await h.close();
});

test('writes sent ahead for tasks a cancelation takes first are undone before the cancelation runs', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  const violations = watchStamps(h, 'c');
  const release = await twoBatchesSentAhead(t, h, 'c');
  h.enqueue({ type: 'taskCancelation', filter: { uids: '2' }, originalFilter: '?uids=2', matchedUids: [2] });
  release();
  await h.scheduler.whenIdle();
  t.is(h.task(1).status, 'succeeded');
  t.is(h.task(2).status, 'canceled');
  const last = h.shards.sent.at(-1)!.command;
  t.is(last.kind, 'reloadDocuments');
  t.deepEqual(violations, []);
  t.deepEqual(documentsOf(h.storage, 'c'), [{ id: 1 }]);
  await h.close();
});

test('pausing with writes sent ahead undoes them; the tasks stay enqueued and run on resume', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  const violations = watchStamps(h, 'p');
  const release = await twoBatchesSentAhead(t, h, 'p');
  h.scheduler.pause();
  release();
  await h.scheduler.whenIdle();
  t.is(h.task(1).status, 'succeeded');
  t.is(h.task(2).status, 'enqueued');
  t.is(h.shards.sent.at(-1)!.command.kind, 'reloadDocuments');
  t.deepEqual(violations, []);
  await h.run();
  t.is(h.task(2).status, 'succeeded');
  t.deepEqual(documentsOf(h.storage, 'p'), [{ id: 1 }, { id: 2 }]);
  t.deepEqual(violations, []);
  await h.close();
});

test('a task enqueued while a batch is applied (none was when its writes were sent) is planned and sent before that batch commits', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  const violations = watchStamps(h, 'l');
  h.enqueue({ type: 'indexCreation', indexUid: 'l', primaryKey: 'id' });
  await h.run();
  h.shards.clear();
  const release = h.shards.holdAcks();
  h.addDocuments('l', [{ id: 1 }]);
  h.scheduler.resume();
  await applying(h);
  t.deepEqual(h.shards.sent.map(({ command }) => upsertedIds(command).join()), ['1'], 'nothing else enqueued yet');
  h.addDocuments('l', [{ id: 2 }]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.deepEqual(h.shards.sent.map(({ command }) => upsertedIds(command).join()), ['1', '2'], 'the late task was sent ahead');
  t.is(h.task(1).status, 'processing', 'before the batch it was planned over committed');
  t.is(h.task(2).status, 'enqueued');
  release();
  await h.scheduler.whenIdle();
  h.scheduler.pause();
  t.is(h.scheduler.batchesPlannedAhead, 1);
  t.deepEqual([1, 2].map((uid) => h.task(uid).status), ['succeeded', 'succeeded']);
  t.deepEqual(documentsOf(h.storage, 'l'), [{ id: 1 }, { id: 2 }]);
  t.deepEqual(violations, []);
  await h.close();
});

test('a batch applied with nothing enqueued stops waiting for tasks once the shards acknowledge', async (t) => {
  const h = await createHarness(oneTaskPerBatch);
  h.addDocuments('w', [{ id: 1 }]);
  await h.run();
  t.is(h.task(0).status, 'succeeded');
  t.is(h.scheduler.state, 'idle');
  h.addDocuments('w', [{ id: 2 }]);
  await h.run();
  t.is(h.scheduler.batchesPlannedAhead, 0, 'a task enqueued after the commit is a batch of its own');
  t.deepEqual(documentsOf(h.storage, 'w'), [{ id: 1 }, { id: 2 }]);
  await h.close();
});
