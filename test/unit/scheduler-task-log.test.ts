// Cluster mode's side of the scheduler (issue 23, src/cluster): tasks come from the task log with
// uid = sequence - 1, the applied sequence is stored in the task's transaction, a sequence applied
// again answers the stored task (idempotent), a gap is refused, and a local enqueue is refused.
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appliedLogSeq } from '../../src/scheduler/task-enqueue.js';
import { createHarness, documentsOf } from './scheduler-harness.js';

const AT = '2026-11-26T22:00:00.123456789Z';

test('tasks from the log: uid = sequence - 1, enqueuedAt as published, applied sequence stored with the task, replays ignored', async (t) => {
  const h = await createHarness({ clustered: true });
  const first = h.scheduler.enqueueFromLog({ type: 'indexCreation', indexUid: 'movies', primaryKey: 'id' }, 1, AT)!;
  t.is(first.uid, 0);
  t.is(first.enqueuedAt, AT);
  t.is(appliedLogSeq(h.storage), 1);
  writeFileSync(join(h.storage.updateFilesDir, 'log-2.ndjson'), '{"id":1,"title":"a"}\n{"id":2,"title":"b"}\n');
  const second = h.scheduler.enqueueFromLog({ type: 'documentAdditionOrUpdate', indexUid: 'movies', method: 'replace', updateFile: 'log-2.ndjson', documentCount: 2, primaryKey: null }, 2, AT)!;
  t.is(second.uid, 1);
  t.is(appliedLogSeq(h.storage), 2);
  // The same sequence again (a consumer recreated after a NATS server died): the stored task, nothing new.
  const again = h.scheduler.enqueueFromLog({ type: 'indexDeletion', indexUid: 'movies' }, 2, AT)!;
  t.is(again.uid, 1);
  t.is(again.type, 'documentAdditionOrUpdate');
  t.deepEqual(h.scheduler.enqueuedUids, [0, 1]);
  t.is(h.storage.meta.get('nextTaskUid'), 2);
  await h.run();
  t.is(h.task(1).status, 'succeeded', JSON.stringify(h.task(1).error));
  t.deepEqual(documentsOf(h.storage, 'movies'), [{ id: 1, title: 'a' }, { id: 2, title: 'b' }]);
  await h.close();
});

test('a gap in the log is refused, and so is a local enqueue in cluster mode', async (t) => {
  const h = await createHarness({ clustered: true });
  h.scheduler.enqueueFromLog({ type: 'indexCreation', indexUid: 'a', primaryKey: null }, 1, AT);
  const gap = t.throws(() => h.scheduler.enqueueFromLog({ type: 'indexCreation', indexUid: 'b', primaryKey: null }, 3, AT));
  t.regex(gap!.message, /sequence 3 does not follow/);
  t.is(appliedLogSeq(h.storage), 1);
  const local = t.throws(() => h.scheduler.enqueue({ type: 'indexCreation', indexUid: 'c', primaryKey: null }));
  t.regex(local!.message, /through the task log/);
  t.deepEqual(h.scheduler.enqueuedUids, [0]);
  await h.close();
});

test('after a restart the applied sequence is where the last enqueued task left it', async (t) => {
  const h = await createHarness({ clustered: true });
  for (let seq = 1; seq <= 3; seq++) h.scheduler.enqueueFromLog({ type: 'indexCreation', indexUid: `i${seq}`, primaryKey: null }, seq, AT);
  await h.restart({ clustered: true });
  t.is(appliedLogSeq(h.storage), 3);
  t.is(h.scheduler.enqueueFromLog({ type: 'indexCreation', indexUid: 'i3', primaryKey: null }, 3, AT)!.uid, 2);
  t.is(h.scheduler.enqueueFromLog({ type: 'indexCreation', indexUid: 'i4', primaryKey: null }, 4, AT)!.uid, 3);
  await h.close();
});
