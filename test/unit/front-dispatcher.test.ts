import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import { decodeQueryBatch, encodeQueryBatchResult } from '../../src/protocol/query-codec.js';
import type { ShardQueryMessage } from '../../src/protocol/messages.js';
import { SearchDispatcher, type ShardQuery } from '../../src/front/search-dispatcher.js';

const query = (q: string): ShardQuery => ({
  indexUid: 'movies', q, hitsWanted: 10, matchingStrategy: 'last', attributesToRetrieve: null, exhaustiveCount: false, options: {},
});

/** A fake worker that records the batches it receives and answers each query with one hit per shard. */
function fakeWorker(worker: number, batches: ShardQueryMessage[][][], gate?: Promise<void>) {
  batches[worker] = [];
  return async (buffer: ArrayBuffer) => {
    const queries = decodeQueryBatch(buffer);
    batches[worker]!.push(queries);
    if (gate) await gate;
    return encodeQueryBatchResult(queries.map((q) => ({
      requestId: q.requestId,
      error: q.q === 'fail' ? { code: 'invalid_search_filter', message: 'bad', type: 'invalid_request', link: '' } : null,
      candidates: q.shards.length,
      hits: q.shards.map((shard) => ({ docId: shard, score: [0], document: `{"shard":${shard}}` })),
      extras: null,
    })));
  };
}

test('one batch per worker per event-loop turn, shards grouped by owner', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches), fakeWorker(1, batches)], 100);
  const results = await Promise.all([dispatcher.search(query('a'), 3), dispatcher.search(query('b'), 3), dispatcher.search(query('c'), 1)]);
  t.is(batches[0]!.length, 1);
  t.is(batches[0]![0]!.length, 3);
  t.is(batches[1]!.length, 1);
  t.is(batches[1]![0]!.length, 2);
  t.deepEqual(batches[0]![0]![0]!.shards, [0, 2]);
  t.deepEqual(batches[1]![0]![0]!.shards, [1]);
  t.deepEqual(results.map((perWorker) => perWorker.reduce((sum, r) => sum + r.candidates, 0)), [3, 3, 1]);
});

test('queries queue while a worker is busy and go out as the next single batch', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches, gate)], 100);
  const first = dispatcher.search(query('a'), 1);
  await new Promise((resolve) => setImmediate(resolve));
  const later = [dispatcher.search(query('b'), 1), dispatcher.search(query('c'), 1)];
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  t.is(batches[0]!.length, 1, 'nothing more is sent while a batch is in flight');
  t.is(dispatcher.queuedCount, 2);
  open();
  await Promise.all([first, ...later]);
  t.is(batches[0]!.length, 2);
  t.deepEqual(batches[0]![1]!.map((q) => q.q), ['b', 'c']);
});

test('a shard error rejects the search; a full queue answers too_many_search_requests', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches)], 1);
  const failing = dispatcher.search(query('fail'), 1);
  const overflow = dispatcher.search(query('x'), 1);
  const error = await t.throwsAsync(failing, { instanceOf: SkeinError });
  t.is(error?.code, 'invalid_search_filter');
  const busy = await t.throwsAsync(overflow, { instanceOf: SkeinError });
  t.is(busy?.code, 'too_many_search_requests');
  t.is(busy?.status, 503);
});
