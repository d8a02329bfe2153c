import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeStorage, openStorage } from '../../src/storage/environment.js';
import { listTasks, matchTasks, parseTaskQuery } from '../../src/tasks/task-query.js';
import type { TaskRecord } from '../../src/tasks/task-record.js';

function task(uid: number, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    uid, batchUid: uid, indexUid: uid % 2 === 0 ? 'even' : 'odd', status: 'succeeded', type: 'indexCreation', canceledBy: null,
    details: { primaryKey: null }, error: null,
    enqueuedAt: `2024-01-${String(1 + uid).padStart(2, '0')}T12:00:00.000000Z`,
    startedAt: `2024-01-${String(1 + uid).padStart(2, '0')}T12:00:01.000000Z`,
    finishedAt: `2024-01-${String(1 + uid).padStart(2, '0')}T12:00:02.000000Z`,
    content: { type: 'indexCreation', indexUid: 'x', primaryKey: null },
    ...extra,
  };
}

async function withTasks(count: number, run: (storage: ReturnType<typeof openStorage>) => void | Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'skein-tasks-'));
  const storage = openStorage(dir);
  storage.root.transactionSync(() => {
    for (let uid = 0; uid < count; uid++) storage.tasks.put(uid, task(uid, uid === 7 ? { status: 'enqueued', batchUid: null, startedAt: null, finishedAt: null } : {}));
  });
  try {
    await run(storage);
  } finally {
    await closeStorage(storage);
    rmSync(dir, { recursive: true, force: true });
  }
}

const list = (storage: ReturnType<typeof openStorage>, query: string) => listTasks(storage, parseTaskQuery(new URLSearchParams(query), 'list'));

test('newest first, pages with from/next, total ignores pagination', async (t) => {
  await withTasks(10, (storage) => {
    const first = list(storage, 'limit=3');
    t.deepEqual(first.results.map((r) => r.uid), [9, 8, 7]);
    t.is(first.total, 10);
    t.is(first.from, 9);
    t.is(first.next, 6);
    const last = list(storage, 'limit=3&from=2');
    t.deepEqual(last.results.map((r) => r.uid), [2, 1, 0]);
    t.is(last.next, null);
    t.is(last.total, 10);
  });
});

test('reverse lists oldest first from `from` upward', async (t) => {
  await withTasks(5, (storage) => {
    const page = list(storage, 'reverse=true&limit=2&from=1');
    t.deepEqual(page.results.map((r) => r.uid), [1, 2]);
    t.is(page.next, 3);
  });
});

test('filters combine with AND; dates are exclusive; empty page has from null', async (t) => {
  await withTasks(10, (storage) => {
    t.deepEqual(list(storage, 'indexUids=even&uids=1,2,4').results.map((r) => r.uid), [4, 2]);
    t.deepEqual(list(storage, 'statuses=enqueued').results.map((r) => r.uid), [7]);
    t.deepEqual(list(storage, 'afterEnqueuedAt=2024-01-08&beforeEnqueuedAt=2024-01-10').results.map((r) => r.uid), [8]);
    t.deepEqual(list(storage, 'afterEnqueuedAt=2024-01-09T12:00:00Z').results.map((r) => r.uid), [9]);
    t.deepEqual(list(storage, 'beforeStartedAt=2024-01-03').results.map((r) => r.uid), [1, 0]);
    const none = list(storage, 'uids=99');
    t.deepEqual(none, { results: [], total: 0, limit: 20, from: null, next: null });
  });
});

test('matchTasks: ascending uids below a bound', async (t) => {
  await withTasks(6, (storage) => {
    const { filter } = parseTaskQuery(new URLSearchParams('statuses=*'), 'cancel');
    t.deepEqual(matchTasks(storage, filter, 4), [0, 1, 2, 3]);
    t.deepEqual(matchTasks(storage, filter), [0, 1, 2, 3, 4, 5]);
  });
});
