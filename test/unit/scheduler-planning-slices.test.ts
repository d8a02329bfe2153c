import test from 'ava';
import { planBatch } from '../../src/scheduler/batching/batch-planner.js';
import { createHarness } from './scheduler-harness.js';

function context(h: Awaited<ReturnType<typeof createHarness>>, pauses: number[]) {
  return {
    storage: h.storage, shardsPerIndex: 2, now: '2026-01-01T00:00:00Z', isEnqueued: () => true,
    slicing: { sliceSize: 2, pause: async () => { pauses.push(pauses.length); } },
  };
}

test('a large addition is planned slice by slice, pausing between slices, with the result of one pass', async (t) => {
  const h = await createHarness();
  const task = h.addDocuments('s', [{ id: 1, a: 1 }, { id: 2 }, { id: 1, b: 2 }, { id: 3 }, { id: 4 }]);
  const pauses: number[] = [];
  const plan = await planBatch({ kind: 'index', indexUid: 's', tasks: [task] }, context(h, pauses));
  t.is(pauses.length, 2, 'a pause after each full slice of 2 of the 5 lines (each parsed and applied in turn)');
  t.deepEqual(plan.results.get(task.uid), { status: 'succeeded', details: { receivedDocuments: 5, indexedDocuments: 5 }, error: null });
  const stage = plan.index!.stage;
  t.is(stage.record!.documentCount, 4);
  t.deepEqual(stage.record!.fieldDistribution, { id: 4, b: 1 });
  t.is(stage.document(stage.docIdOf('1')!), '{"id":1,"b":2}', 'a later duplicate in a later slice replaces the earlier one');
  await h.close();
});

test('a bad id in a later slice fails the task whole: nothing of its earlier slices is kept', async (t) => {
  const h = await createHarness();
  const task = h.addDocuments('s', [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 'bad id' }]);
  const plan = await planBatch({ kind: 'index', indexUid: 's', tasks: [task] }, context(h, []));
  const result = plan.results.get(task.uid)!;
  t.is(result.status, 'failed');
  t.is(result.error!.code, 'invalid_document_id');
  t.is(plan.index!.stage.documents.size, 0);
  t.is(plan.index!.stage.record!.documentCount, 0);
  await h.close();
});

test('a slice is applied before the next one is parsed (its parsed documents are not all held at once)', async (t) => {
  const h = await createHarness();
  const task = h.addDocuments('s', [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }]);
  const stagedAtPause: number[] = [];
  let stage: { documents: Map<number, string | null> } | null = null;
  const pause = async () => { stagedAtPause.push(stage?.documents.size ?? -1); };
  const { StagedIndex } = await import('../../src/scheduler/batching/staged-index.js');
  const { applyUpdateFile } = await import('../../src/scheduler/operations/document-operations.js');
  const { ensureIndex } = await import('../../src/scheduler/operations/index-operations.js');
  const staged = StagedIndex.fromStorage(h.storage, 's');
  ensureIndex(staged, 2, '2026-01-01T00:00:00Z');
  stage = staged;
  if (task.content.type !== 'documentAdditionOrUpdate') return t.fail();
  t.is(await applyUpdateFile(staged, task.content, h.storage.updateFilesDir, { sliceSize: 2, pause }), 5);
  t.deepEqual(stagedAtPause, [2, 4], 'each pause comes after its slice was applied');
  t.is(staged.documents.size, 5);
  await h.close();
});
