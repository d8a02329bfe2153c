// The shard worker's text warm-up (src/shard/warm-up.ts TextWarmUp): started once per thread, only when
// one of its shards is large, and leaving the worker's indexes as they were.
import test from 'ava';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import { TextWarmUp } from '../../src/shard/warm-up.js';

test('the text warm-up starts once, when a shard first holds enough documents, runs to its end, and touches no real index', async (t) => {
  const engine = new ShardEngine(0, 1);
  const documents = (from: number, to: number) => Array.from({ length: to - from }, (_, k): [number, Record<string, unknown>] => [from + k, { id: from + k, title: `word${from + k} star` }]);
  engine.loadIndex('small', 1, null, documents(0, 10));
  const warmUp = new TextWarmUp(50, 200);
  let ended = 0;
  const done = new Promise<Error | null>((resolve) => {
    t.false(warmUp.maybeStart(engine, () => resolve(null)), 'not with 10 documents');
    engine.writeBatch('small', 0, documents(10, 50).map(([docId, document]) => ({ kind: 'upsert' as const, docId, document: JSON.stringify(document) })));
    t.true(warmUp.maybeStart(engine, (error) => {
      ended++;
      resolve(error);
    }), 'started with 50');
    t.false(warmUp.maybeStart(engine, () => ended++), 'once');
  });
  t.is(await done, null);
  t.is(ended, 1);
  t.deepEqual(engine.indexUids(), ['small']);
  t.is(engine.search({ indexUid: 'small', shards: [0], q: 'star', hitsWanted: 100, matchingStrategy: 'last' }).hits.length, 50);
});
