// Replicas (src/protocol/placement.ts): with fewer shards than workers, each shard is held by several
// workers. The scheduler must send a shard's writes and rollbacks to EVERY owner and commit only when
// all of them acknowledged, or the replicas would answer differently.
import test from 'ava';
import { createHarness } from './scheduler-harness.js';

test('a replicated shard gets its write batch on every owner', async (t) => {
  const h = await createHarness({ workerCount: 3, shardsPerIndex: 1 });
  h.addDocuments('r', [{ id: 1 }, { id: 2 }]);
  await h.run();
  t.is(h.task(0).status, 'succeeded');
  const writes = h.shards.sent.filter(({ command }) => command.kind === 'writeBatch');
  t.deepEqual(writes.map(({ worker }) => worker), [0, 1, 2]);
  for (const { command } of writes) t.is(command.kind === 'writeBatch' ? command.ops.length : 0, 2);
  t.deepEqual(h.shards.sent.filter(({ command }) => command.kind === 'loadIndex').map(({ worker }) => worker), [0, 1, 2]);
  t.deepEqual([...new Set(h.shards.snapshotCommands.filter(({ command }) => command.kind === 'indexCommitted').map(({ worker }) => worker))], [0, 1, 2]);
  await h.close();
});

test('two shards over three workers: shard 0 on workers 0 and 2, shard 1 on worker 1', async (t) => {
  const h = await createHarness({ workerCount: 3, shardsPerIndex: 2 });
  h.addDocuments('r', Array.from({ length: 20 }, (_, id) => ({ id })));
  await h.run();
  const writes = h.shards.sent.filter(({ command }) => command.kind === 'writeBatch');
  const byShard = new Map<number, number[]>();
  for (const { worker, command } of writes) if (command.kind === 'writeBatch') byShard.set(command.shard, [...(byShard.get(command.shard) ?? []), worker]);
  t.deepEqual(byShard.get(0), [0, 2]);
  t.deepEqual(byShard.get(1), [1]);
  await h.close();
});

test('one replica refusing fails the batch, and every replica is rolled back', async (t) => {
  const h = await createHarness({ workerCount: 2, shardsPerIndex: 1 });
  h.addDocuments('r', [{ id: 1 }]);
  await h.run();
  h.shards.clear();
  h.shards.failWhen = ({ worker, command }) => command.kind === 'writeBatch' && worker === 1;
  h.addDocuments('r', [{ id: 2 }]);
  await h.run();
  t.is(h.task(1).status, 'failed');
  t.is(h.storage.externalIds.get(['r', '2']), undefined, 'nothing committed');
  t.deepEqual(h.shards.sent.filter(({ command }) => command.kind === 'reloadDocuments').map(({ worker }) => worker), [0, 1]);
  await h.close();
});

test('the commit waits for the slowest replica', async (t) => {
  const h = await createHarness({ workerCount: 2, shardsPerIndex: 1 });
  h.addDocuments('r', [{ id: 1 }]);
  await h.run();
  let release!: () => void;
  const slow = new Promise<void>((resolve) => { release = resolve; });
  const original = h.shards.send.bind(h.shards);
  h.shards.send = async (worker, command) => {
    await original(worker, command);
    if (command.kind === 'writeBatch' && worker === 1) await slow;
  };
  h.addDocuments('r', [{ id: 2 }]);
  h.scheduler.resume();
  for (let i = 0; i < 100 && !h.shards.sent.some(({ worker, command }) => worker === 1 && command.kind === 'writeBatch' && command.ops.length === 1 && command.ops[0]!.kind === 'upsert' && command.ops[0]!.document.includes('"id":2')); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(h.task(1).status, 'processing', 'worker 0 acked, worker 1 has not: not committed');
  t.is(h.storage.externalIds.get(['r', '2']), undefined);
  release();
  await h.scheduler.whenIdle();
  h.scheduler.pause();
  t.is(h.task(1).status, 'succeeded');
  await h.close();
});
