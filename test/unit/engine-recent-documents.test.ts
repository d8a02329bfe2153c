// Documents of the latest two write batches stay readable from the worker (recentDocument): with the
// next batch sent ahead, a batch is applied before the one before it is committed to LMDB.
import test from 'ava';
import { ShardEngine } from '../../src/shard/shard-engine.js';

const upsert = (docId: number, title: string) => ({ kind: 'upsert' as const, docId, document: JSON.stringify({ id: docId, title }) });

test('the last two write batches are readable; the third back and rolled-back ones are not', (t) => {
  const engine = new ShardEngine(0, 1);
  engine.writeBatch('r', 0, [upsert(1, 'one')]);
  engine.writeBatch('r', 0, [upsert(2, 'two')]);
  t.is(engine.recentDocument('r', 1), JSON.stringify({ id: 1, title: 'one' }), 'the batch before the latest');
  t.is(engine.recentDocument('r', 2), JSON.stringify({ id: 2, title: 'two' }));
  engine.writeBatch('r', 0, [upsert(3, 'three')]);
  t.is(engine.recentDocument('r', 1), undefined, 'committed by now: read from LMDB');
  t.truthy(engine.recentDocument('r', 2));
  engine.reloadDocuments('r', 0, [3], { get: () => undefined });
  t.is(engine.recentDocument('r', 2), undefined);
  t.is(engine.recentDocument('r', 3), undefined);
});
