import test from 'ava';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { taskView } from '../../src/tasks/task-view.js';
import { createHarness, documentsOf } from './scheduler-harness.js';

test('enqueue assigns increasing uids, persists before answering, and keeps initial details', async (t) => {
  const h = await createHarness();
  const first = h.enqueue({ type: 'indexCreation', indexUid: 'movies', primaryKey: 'id' });
  const second = h.addDocuments('movies', [{ id: 1 }, { id: 2 }]);
  t.is(first.uid, 0);
  t.is(second.uid, 1);
  t.deepEqual(h.task(1).details, { receivedDocuments: 2, indexedDocuments: null });
  t.is(h.task(0).status, 'enqueued');
  t.is(h.storage.meta.get('nextTaskUid'), 2);
  t.deepEqual(h.scheduler.enqueuedUids, [0, 1]);
  await h.close();
});

test('index creation then documents: loadIndex to every worker, one writeBatch per shard, one commit', async (t) => {
  const h = await createHarness();
  h.enqueue({ type: 'indexCreation', indexUid: 'movies', primaryKey: null });
  h.addDocuments('movies', [{ id: 1, title: 'A', tags: ['x'] }, { id: 'b', title: 'B', meta: { year: 2000 } }]);
  await h.run();
  const creation = taskView(h.task(0));
  t.is(creation.status, 'succeeded');
  t.is(creation.batchUid, 0);
  t.deepEqual(creation.details, { primaryKey: null });
  t.regex(creation.duration!, /^PT\d+(\.\d+)?S$/);
  const addition = h.task(1);
  t.is(addition.status, 'succeeded', JSON.stringify(addition.error));
  t.deepEqual(addition.details, { receivedDocuments: 2, indexedDocuments: 2 });
  t.is(addition.batchUid, 1);
  const index = h.storage.indexes.get('movies')!;
  t.is(index.primaryKey, 'id');
  t.is(index.documentCount, 2);
  t.deepEqual(index.fieldDistribution, { id: 2, title: 2, tags: 1, meta: 1 });
  t.deepEqual(documentsOf(h.storage, 'movies'), [{ id: 1, title: 'A', tags: ['x'] }, { id: 'b', title: 'B', meta: { year: 2000 } }]);
  t.deepEqual(h.shards.kinds().filter((k) => k === 'loadIndex').length, 2);
  const writes = h.shards.sent.filter(({ command }) => command.kind === 'writeBatch');
  t.true(writes.length >= 1 && writes.length <= 2);
  for (const { worker, command } of writes) if (command.kind === 'writeBatch') t.is(worker, command.shard % 2);
  t.deepEqual(h.changes, [['movies'], ['movies']]);
  t.false(existsSync(join(h.storage.updateFilesDir, (addition.content as { updateFile: string }).updateFile)));
  await h.close();
});

test('additions create a missing index, replace and update merge, later duplicates win', async (t) => {
  const h = await createHarness();
  h.addDocuments('books', [{ id: 1, title: 'one', extra: true }, { id: 1, title: 'uno' }]);
  await h.run();
  t.deepEqual(documentsOf(h.storage, 'books'), [{ id: 1, title: 'uno' }]);
  h.addDocuments('books', [{ id: '1', author: 'me' }], { method: 'update' });
  await h.run();
  t.deepEqual(documentsOf(h.storage, 'books'), [{ id: '1', title: 'uno', author: 'me' }]);
  const index = h.storage.indexes.get('books')!;
  t.is(index.documentCount, 1);
  t.deepEqual(index.fieldDistribution, { id: 1, title: 1, author: 1 });
  await h.close();
});

test('autobatching: consecutive additions share a batch, each task keeps its own result', async (t) => {
  const h = await createHarness();
  h.addDocuments('a', [{ id: 1 }]);
  h.addDocuments('a', [{ id: 'bad id' }]);
  h.addDocuments('a', [{ id: 3 }]);
  await h.run();
  t.is(h.task(0).batchUid, 0);
  t.is(h.task(2).batchUid, 0);
  t.is(h.task(0).status, 'succeeded');
  t.is(h.task(1).status, 'failed');
  t.is(h.task(1).error!.code, 'invalid_document_id');
  t.is(h.task(1).error!.message, 'Document identifier `"bad id"` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.');
  t.deepEqual(h.task(1).details, { receivedDocuments: 1, indexedDocuments: 0 });
  t.is(h.task(2).status, 'succeeded');
  t.is(h.storage.indexes.get('a')!.documentCount, 2);
  await h.close();
});

test('primary key errors fail the task with Meilisearch messages', async (t) => {
  const h = await createHarness();
  h.addDocuments('p', [{ name: 'no key' }]);
  h.addDocuments('q', [{ id: 1, uuid: 'x' }]);
  h.addDocuments('r', [{ id: 1 }, { name: 'missing' }], { primaryKey: 'id' });
  await h.run();
  t.is(h.task(0).error!.code, 'index_primary_key_no_candidate_found');
  t.is(h.task(1).error!.message, "The primary key inference failed as the engine found 2 fields ending with `id` in their names: 'id' and 'uuid'. Please specify the primary key manually using the `primaryKey` query parameter.");
  t.is(h.task(2).error!.code, 'missing_document_id');
  t.is(h.task(2).error!.message, 'Document doesn\'t have a `id` attribute: `{"name":"missing"}`.');
  t.is(h.storage.indexes.get('r')!.documentCount, 0, 'nothing of a failed task is applied');
  h.addDocuments('r', [{ key: 1 }], { primaryKey: 'key' });
  await h.run();
  t.is(h.task(3).status, 'succeeded', 'the failed task did not set the primary key');
  h.addDocuments('r', [{ other: 1 }], { primaryKey: 'other' });
  await h.run();
  t.is(h.task(4).error!.code, 'index_primary_key_already_exists');
  await h.close();
});

test('document deletion by ids and clear', async (t) => {
  const h = await createHarness();
  h.addDocuments('d', [{ id: 1, a: 1 }, { id: 2, b: 2 }, { id: 3 }]);
  await h.run();
  h.enqueue({ type: 'documentDeletion', indexUid: 'd', ids: ['1', '42'] });
  await h.run();
  t.deepEqual(h.task(1).details, { providedIds: 2, deletedDocuments: 1, originalFilter: null });
  t.deepEqual(h.storage.indexes.get('d')!.fieldDistribution, { id: 2, b: 1 });
  t.is(h.storage.externalIds.get(['d', '1']), undefined);
  h.enqueue({ type: 'documentDeletion', indexUid: 'd', clear: true });
  await h.run();
  t.deepEqual(h.task(2).details, { deletedDocuments: 2 });
  t.deepEqual(documentsOf(h.storage, 'd'), []);
  t.is(h.storage.indexes.get('d')!.documentCount, 0);
  h.enqueue({ type: 'documentDeletion', indexUid: 'nope', ids: ['1'] });
  await h.run();
  t.is(h.task(3).error!.message, 'Index `nope` not found.');
  await h.close();
});

test('index update, deletion and their errors', async (t) => {
  const h = await createHarness();
  h.enqueue({ type: 'indexCreation', indexUid: 'i', primaryKey: null });
  h.enqueue({ type: 'indexCreation', indexUid: 'i', primaryKey: null });
  h.enqueue({ type: 'indexUpdate', indexUid: 'i', primaryKey: 'sku' });
  await h.run();
  t.is(h.task(1).error!.code, 'index_already_exists');
  t.is(h.task(1).error!.message, 'Index `i` already exists.');
  t.is(h.storage.indexes.get('i')!.primaryKey, 'sku');
  h.addDocuments('i', [{ sku: 'a' }]);
  h.enqueue({ type: 'indexUpdate', indexUid: 'i', primaryKey: 'other' });
  await h.run();
  t.is(h.task(4).error!.message, 'Index `i`: Index already has a primary key: `sku`.');
  h.shards.clear();
  h.enqueue({ type: 'indexDeletion', indexUid: 'i' });
  await h.run();
  t.deepEqual(h.task(5).details, { deletedDocuments: 1 });
  t.is(h.storage.indexes.get('i'), undefined);
  t.deepEqual(documentsOf(h.storage, 'i'), []);
  t.is(h.storage.externalIds.get(['i', 'a']), undefined);
  t.deepEqual(h.shards.kinds(), ['dropIndex', 'dropIndex']);
  h.enqueue({ type: 'indexDeletion', indexUid: 'i' });
  await h.run();
  t.is(h.task(6).error!.code, 'index_not_found');
  t.deepEqual(h.task(6).details, { deletedDocuments: 0 });
  await h.close();
});

test('settings updates merge, batch together, reload the shards with the new settings', async (t) => {
  const h = await createHarness();
  h.enqueue({ type: 'settingsUpdate', indexUid: 's', settings: { sortableAttributes: ['b', 'a', 'b'], displayedAttributes: ['title', '*'] }, isDeletion: false });
  h.enqueue({ type: 'settingsUpdate', indexUid: 's', settings: { typoTolerance: { enabled: false }, rankingRules: null }, isDeletion: false });
  await h.run();
  t.is(h.task(0).batchUid, h.task(1).batchUid);
  t.deepEqual(h.task(0).details, { displayedAttributes: ['*'], sortableAttributes: ['a', 'b'] });
  t.deepEqual(h.task(1).details, { rankingRules: null, typoTolerance: { enabled: false } });
  const settings = h.storage.indexes.get('s')!.settings;
  t.deepEqual(settings.sortableAttributes, ['a', 'b']);
  t.deepEqual(settings.displayedAttributes, ['*']);
  t.false(settings.typoTolerance.enabled);
  t.deepEqual(settings.typoTolerance.minWordSizeForTypos, { oneTypo: 5, twoTypos: 9 });
  const loads = h.shards.sent.filter(({ command }) => command.kind === 'loadIndex');
  t.is(loads.length, 2);
  h.shards.clear();
  h.enqueue({ type: 'settingsUpdate', indexUid: 's', settings: { typoTolerance: { minWordSizeForTypos: { oneTypo: 10 } } }, isDeletion: false });
  await h.run();
  t.is(h.task(2).error!.code, 'invalid_settings_typo_tolerance');
  t.deepEqual(h.shards.kinds(), [], 'a failed settings task leaves the shards alone');
  await h.close();
});

test('a shard failure rolls the shards back and fails every task of the batch, nothing committed', async (t) => {
  const h = await createHarness();
  h.addDocuments('f', [{ id: 1 }]);
  await h.run();
  h.shards.clear();
  h.shards.failWhen = ({ command }) => command.kind === 'writeBatch';
  h.addDocuments('f', [{ id: 2 }]);
  h.addDocuments('f', [{ id: 3 }]);
  await h.run();
  t.is(h.task(1).status, 'failed');
  t.is(h.task(2).status, 'failed');
  t.is(h.task(1).error!.code, 'internal');
  t.deepEqual(h.task(2).details, { receivedDocuments: 1, indexedDocuments: 0 });
  t.is(h.storage.indexes.get('f')!.documentCount, 1);
  t.is(h.storage.externalIds.get(['f', '2']), undefined);
  t.true(h.shards.kinds().includes('reloadDocuments'));
  await h.close();
});

test('a failed batch on a new index drops it from the shards', async (t) => {
  const h = await createHarness();
  h.shards.failWhen = ({ command }) => command.kind === 'writeBatch';
  h.addDocuments('n', [{ id: 1 }]);
  await h.run();
  t.is(h.task(0).status, 'failed');
  t.is(h.storage.indexes.get('n'), undefined);
  t.deepEqual(h.shards.kinds().slice(-2), ['dropIndex', 'dropIndex']);
  await h.close();
});

test('task cancelation: newest first, cancels matched enqueued tasks only', async (t) => {
  const h = await createHarness();
  h.addDocuments('c', [{ id: 1 }]);
  await h.run();
  h.addDocuments('c', [{ id: 2 }]);
  h.enqueue({ type: 'indexCreation', indexUid: 'other', primaryKey: null });
  const cancel = h.enqueue({ type: 'taskCancelation', filter: { indexUids: 'c' }, originalFilter: '?indexUids=c', matchedUids: [] });
  t.deepEqual(cancel.details, { matchedTasks: 2, canceledTasks: null, originalFilter: '?indexUids=c' });
  t.is(cancel.indexUid, null);
  await h.run();
  t.is(h.task(cancel.uid).batchUid, 1, 'the cancelation runs before older tasks');
  t.deepEqual(h.task(cancel.uid).details, { matchedTasks: 2, canceledTasks: 1, originalFilter: '?indexUids=c' });
  const canceled = h.task(1);
  t.is(canceled.status, 'canceled');
  t.is(canceled.canceledBy, cancel.uid);
  t.deepEqual(canceled.details, { receivedDocuments: 1, indexedDocuments: 0 });
  t.truthy(canceled.finishedAt);
  t.is(h.task(0).status, 'succeeded', 'finished tasks are untouched');
  t.is(h.task(2).status, 'succeeded');
  t.is(h.storage.indexes.get('c')!.documentCount, 1);
  await h.close();
});

test('task deletion removes matched finished tasks only; uids are never reused', async (t) => {
  const h = await createHarness();
  h.enqueue({ type: 'indexCreation', indexUid: 'x', primaryKey: null });
  await h.run();
  h.enqueue({ type: 'indexCreation', indexUid: 'y', primaryKey: null });
  const deletion = h.enqueue({ type: 'taskDeletion', filter: { uids: '0,1,5' }, originalFilter: '?uids=0,1,5', matchedUids: [] });
  t.deepEqual(deletion.details, { matchedTasks: 2, deletedTasks: null, originalFilter: '?uids=0,1,5' });
  await h.run();
  t.is(h.storage.tasks.get(0), undefined);
  t.deepEqual(h.task(deletion.uid).details, { matchedTasks: 2, deletedTasks: 1, originalFilter: '?uids=0,1,5' });
  t.is(h.task(1).status, 'succeeded', 'task 1 was enqueued when the deletion ran');
  const next = h.enqueue({ type: 'indexDeletion', indexUid: 'x' });
  t.is(next.uid, 3);
  await h.close();
});

test('recovery: processing tasks go back to enqueued and are redone; uids continue', async (t) => {
  const h = await createHarness();
  h.addDocuments('r', [{ id: 1 }]);
  h.addDocuments('r', [{ id: 2 }]);
  // Simulate a crash after markingProcessing: the tasks are persisted as processing.
  h.storage.root.transactionSync(() => {
    for (const uid of [0, 1]) h.storage.tasks.put(uid, { ...h.task(uid), status: 'processing', batchUid: 0, startedAt: h.task(uid).enqueuedAt });
    h.storage.meta.put('nextBatchUid', 1);
  });
  await h.restart();
  t.deepEqual(h.scheduler.enqueuedUids, [0, 1]);
  t.is(h.task(0).status, 'enqueued');
  t.is(h.task(0).batchUid, null);
  await h.run();
  t.is(h.task(0).status, 'succeeded');
  t.is(h.task(0).batchUid, 1);
  t.is(h.storage.indexes.get('r')!.documentCount, 2);
  t.is(h.enqueue({ type: 'indexDeletion', indexUid: 'r' }).uid, 2);
  await h.close();
});

test('start returns every stored index uid and sends nothing to the shards', async (t) => {
  const h = await createHarness();
  h.enqueue({ type: 'indexCreation', indexUid: 'one', primaryKey: null });
  h.enqueue({ type: 'indexCreation', indexUid: 'two', primaryKey: null });
  await h.run();
  h.shards.clear();
  await h.scheduler.whenIdle();
  const { Scheduler } = await import('../../src/scheduler/state-machine.js');
  const again = new Scheduler({ storage: h.storage, shards: h.shards, shardsPerIndex: 4, onIndexesChanged: () => {} });
  again.pause();
  t.deepEqual(await again.start(), ['one', 'two']);
  t.deepEqual(h.shards.kinds(), []);
  await h.close();
});

test('a cancelation enqueued mid-batch interrupts it; its tasks end canceled, nothing applied', async (t) => {
  const h = await createHarness();
  const release = h.shards.holdAcks();
  h.addDocuments('m', [{ id: 1 }]);
  h.scheduler.resume();
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(h.scheduler.state, 'applyingToShards');
  const cancel = h.enqueue({ type: 'taskCancelation', filter: { statuses: 'processing' }, originalFilter: '?statuses=processing', matchedUids: [] });
  release();
  await h.scheduler.whenIdle();
  t.is(h.task(0).status, 'canceled');
  t.is(h.task(0).canceledBy, cancel.uid);
  t.deepEqual(h.task(cancel.uid).details, { matchedTasks: 1, canceledTasks: 1, originalFilter: '?statuses=processing' });
  t.is(h.storage.indexes.get('m'), undefined);
  t.true(h.shards.kinds().includes('dropIndex'), 'the shards were rolled back');
  await h.close();
});

test('an empty addition succeeds with zero documents and stores a given primary key', async (t) => {
  const h = await createHarness();
  h.addDocuments('e', []);
  h.addDocuments('e', [], { primaryKey: 'kefkef' });
  h.addDocuments('e', [{ kefkef: 1 }]);
  await h.run();
  t.deepEqual(h.task(0).details, { receivedDocuments: 0, indexedDocuments: 0 });
  t.is(h.task(0).status, 'succeeded');
  t.is(h.task(1).status, 'succeeded');
  t.is(h.task(2).status, 'succeeded');
  t.is(h.storage.indexes.get('e')!.primaryKey, 'kefkef');
  await h.close();
});
