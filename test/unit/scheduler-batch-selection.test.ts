import test from 'ava';
import { selectBatch } from '../../src/scheduler/batching/batch-selection.js';
import type { TaskContent, TaskRecord } from '../../src/tasks/task-record.js';

let nextUid = 0;
function task(content: TaskContent): TaskRecord {
  return {
    uid: nextUid++, batchUid: null, indexUid: 'indexUid' in content ? content.indexUid : null, status: 'enqueued', type: content.type,
    canceledBy: null, details: null, error: null, enqueuedAt: '', startedAt: null, finishedAt: null, content,
  };
}
const add = (indexUid: string, method: 'replace' | 'update' = 'replace', primaryKey: string | null = null, documentCount = 1) =>
  task({ type: 'documentAdditionOrUpdate', indexUid, method, updateFile: 'f', documentCount, primaryKey });
const uids = (tasks: TaskRecord[] | undefined) => tasks?.map((t) => t.uid);

test('nothing enqueued: no batch', (t) => {
  t.is(selectBatch([]), null);
});

test('the latest cancelation goes first and alone', (t) => {
  const queue = [add('a'), task({ type: 'taskCancelation', filter: {}, originalFilter: '', matchedUids: [] }), task({ type: 'taskCancelation', filter: {}, originalFilter: '', matchedUids: [] }), task({ type: 'taskDeletion', filter: {}, originalFilter: '', matchedUids: [] })];
  const batch = selectBatch(queue)!;
  t.is(batch.kind, 'taskCancelation');
  t.deepEqual(uids(batch.tasks), [queue[2].uid]);
});

test('task deletions are batched together before index work', (t) => {
  const queue = [add('a'), task({ type: 'taskDeletion', filter: {}, originalFilter: '', matchedUids: [] }), add('a'), task({ type: 'taskDeletion', filter: {}, originalFilter: '', matchedUids: [] })];
  const batch = selectBatch(queue)!;
  t.is(batch.kind, 'taskDeletion');
  t.deepEqual(uids(batch.tasks), [queue[1].uid, queue[3].uid]);
});

test('additions of the oldest task index merge, skipping other indexes, until an incompatible task', (t) => {
  const queue = [add('a'), add('b'), add('a'), task({ type: 'documentDeletion', indexUid: 'a', ids: ['1'] }), add('a', 'update'), add('a')];
  const batch = selectBatch(queue)!;
  t.is(batch.kind, 'index');
  t.deepEqual(uids(batch.tasks), [queue[0].uid, queue[2].uid, queue[3].uid]);
});

test('primary keys: a contradicting key stops the batch, a missing one joins', (t) => {
  const queue = [add('a', 'replace', 'id'), add('a', 'replace', null), add('a', 'replace', 'sku'), add('a')];
  t.deepEqual(uids(selectBatch(queue)!.tasks), [queue[0].uid, queue[1].uid]);
});

test('settings updates merge; index creation, deletion and clear go alone', (t) => {
  const settings = () => task({ type: 'settingsUpdate', indexUid: 'a', settings: {}, isDeletion: false });
  const queue = [settings(), settings(), add('a'), settings()];
  t.deepEqual(uids(selectBatch(queue)!.tasks), [queue[0].uid, queue[1].uid]);
  const creation = [task({ type: 'indexCreation', indexUid: 'a', primaryKey: null }), add('a')];
  t.deepEqual(uids(selectBatch(creation)!.tasks), [creation[0].uid]);
  const clear = [task({ type: 'documentDeletion', indexUid: 'a', clear: true }), add('a')];
  t.deepEqual(uids(selectBatch(clear)!.tasks), [clear[0].uid]);
});

test('limits: task count and document count', (t) => {
  const queue = [add('a', 'replace', null, 10), add('a', 'replace', null, 10), add('a', 'replace', null, 10)];
  t.is(selectBatch(queue, { maxTasks: 2, maxDocuments: 100 })!.tasks.length, 2);
  t.is(selectBatch(queue, { maxTasks: 10, maxDocuments: 25 })!.tasks.length, 2);
  t.is(selectBatch(queue, { maxTasks: 10, maxDocuments: 5 })!.tasks.length, 1, 'the first task always goes');
});

const swap = (...pairs: [string, string][]) => task({ type: 'indexSwap', swaps: pairs.map((indexes) => ({ indexes, rename: false })) });

test('a swap or rename is batched alone, and additions after a swap of their index are not moved before it', (t) => {
  const queue = [add('a'), add('c'), swap(['a', 'b']), add('a'), add('c')];
  const first = selectBatch(queue)!;
  t.is(first.kind, 'index');
  t.deepEqual(uids(first.tasks), [queue[0].uid], 'the addition after the swap of `a` waits for it');
  const second = selectBatch(queue.slice(1))!;
  t.deepEqual(uids(second.tasks), [queue[1].uid, queue[4].uid], 'a swap of other indexes does not stop `c`');
  const third = selectBatch(queue.slice(2))!;
  t.is(third.kind, 'indexSwap');
  t.deepEqual(uids(third.tasks), [queue[2].uid]);
  const rename = task({ type: 'indexUpdate', indexUid: 'x', primaryKey: null, newIndexUid: 'y' });
  const renameFirst = selectBatch([rename, add('x')])!;
  t.is(renameFirst.kind, 'indexSwap');
  t.is(selectBatch([add('y'), rename, add('y')])!.tasks.length, 1, 'additions to the new name wait for the rename');
});

test('a topology change runs after every task before it and alone; additions after it are not batched with those before it', (t) => {
  const change = () => task({ type: 'networkTopologyChange', previous: { g1: ['n1'] }, next: { g1: ['n1'], g2: ['n2'] } });
  const queue = [add('a'), change(), add('a'), add('b')];
  const first = selectBatch(queue)!;
  t.is(first.kind, 'index');
  t.deepEqual(uids(first.tasks), [queue[0].uid]);
  const second = selectBatch(queue.slice(1))!;
  t.is(second.kind, 'networkTopologyChange');
  t.deepEqual(uids(second.tasks), [queue[1].uid]);
  t.deepEqual(uids(selectBatch(queue.slice(2))!.tasks), [queue[2].uid]);
});
