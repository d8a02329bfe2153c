import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import { decodeQueryBatch, encodeQueryBatchResult } from '../../src/protocol/query-codec.js';
import type { ShardQueryMessage } from '../../src/protocol/messages.js';
import { MAX_BATCHES_IN_FLIGHT, MAX_QUERIES_PER_BATCH, SearchDispatcher, shardQuery, type ShardQuery } from '../../src/front/search/search-dispatcher.js';
import { AFFINITY_SLACK, chooseReplica, queryAffinity } from '../../src/front/search/replica-choice.js';

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
  const results = await Promise.all([dispatcher.search(query('a'), 3), dispatcher.search(query('b'), 3), dispatcher.search(query('c'), 2)]);
  t.is(batches[0]!.length, 1);
  t.is(batches[0]![0]!.length, 3);
  t.is(batches[1]!.length, 1);
  t.is(batches[1]![0]!.length, 3);
  t.deepEqual(batches[0]![0]![0]!.shards, [0, 2]);
  t.deepEqual(batches[1]![0]![0]!.shards, [1]);
  t.deepEqual(results.map((perWorker) => perWorker.reduce((sum, r) => sum + r.candidates, 0)), [3, 3, 2]);
});

test('queries queue while a worker has MAX_BATCHES_IN_FLIGHT batches and go out as the next single batch, before the answers are delivered', async (t) => {
  t.is(MAX_BATCHES_IN_FLIGHT, 2);
  const batches: ShardQueryMessage[][][] = [];
  const events: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const worker = fakeWorker(0, batches, gate);
  const dispatcher = new SearchDispatcher([async (buffer: ArrayBuffer) => {
    events.push(`sent ${decodeQueryBatch(buffer).map((q) => q.q).join(',')}`);
    return worker(buffer);
  }], 100);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const first = dispatcher.search(query('a'), 1).then(() => events.push('delivered a'));
  await turn();
  const second = [dispatcher.search(query('b'), 1), dispatcher.search(query('c'), 1)];
  await turn();
  const third = dispatcher.search(query('d'), 1);
  await turn();
  await turn();
  t.deepEqual(batches[0]!.map((batch) => batch.map((q) => q.q)), [['a'], ['b', 'c']], 'the second batch goes out while the first is worked on');
  t.is(dispatcher.queuedCount, 1, 'a third waits');
  open();
  await Promise.all([first, ...second, third]);
  t.deepEqual(batches[0]!.map((batch) => batch.map((q) => q.q)), [['a'], ['b', 'c'], ['d']]);
  t.true(events.indexOf('sent d') < events.indexOf('delivered a'), 'the next batch is sent before the answers are delivered');
});

test('the queue bound counts the batches waiting in a worker port behind the one it works on', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches, gate)], 2);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const worked = dispatcher.search(query('a'), 1);
  await turn();
  const waiting = [dispatcher.search(query('b'), 1), dispatcher.search(query('c'), 1)];
  await turn();
  t.is(dispatcher.queuedCount, 0, 'both sent');
  const refused = await t.throwsAsync(dispatcher.search(query('d'), 1), { instanceOf: SkeinError });
  t.is(refused?.code, 'too_many_search_requests');
  t.is(refused?.message, 'Too many search requests running at the same time: 2. Retry after 10s.');
  open();
  await Promise.all([worked, ...waiting]);
  await t.notThrowsAsync(dispatcher.search(query('e'), 1), 'room again once answered');
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

/** Query texts whose own replica (of two) is `worker`. */
function textsPreferring(worker: number, count: number): string[] {
  const texts: string[] = [];
  for (let k = 0; texts.length < count; k++) if (queryAffinity(`q${k}`) % 2 === worker) texts.push(`q${k}`);
  return texts;
}

test('a replicated shard is searched by one replica per query, the same text by the same replica', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches), fakeWorker(1, batches)], 100);
  const texts = [...textsPreferring(0, 2), ...textsPreferring(1, 2)];
  const results = await Promise.all(texts.map((q) => dispatcher.search(query(q), 1)));
  // Each search gets exactly one answer (one replica), with the whole shard.
  t.deepEqual(results.map((perWorker) => perWorker.length), [1, 1, 1, 1]);
  t.is(batches[0]!.length, 1, 'still one batch per worker per turn');
  t.is(batches[1]!.length, 1);
  t.deepEqual(batches[0]![0]!.map((sent) => sent.q), texts.slice(0, 2));
  t.deepEqual(batches[1]![0]!.map((sent) => sent.q), texts.slice(2));
  for (const batch of [batches[0]![0]!, batches[1]![0]!]) for (const sent of batch) t.deepEqual(sent.shards, [0]);
  // Again, one by one: each text goes back to its replica.
  for (const q of texts) await dispatcher.search(query(q), 1);
  t.deepEqual(batches[0]!.slice(1).flat().map((sent) => sent.q), texts.slice(0, 2));
  t.deepEqual(batches[1]!.slice(1).flat().map((sent) => sent.q), texts.slice(2));
});

test('a query goes to another replica when its own has over AFFINITY_SLACK more queries queued and in flight', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches, gate), fakeWorker(1, batches)], 100);
  const texts = textsPreferring(0, AFFINITY_SLACK + 4);
  // Worker 0 stays busy (gated) with its batch.
  const searches = texts.map((q) => dispatcher.search(query(q), 1));
  await new Promise((resolve) => setImmediate(resolve));
  // In one turn: worker 0 takes texts until it holds AFFINITY_SLACK more than worker 1, then the gap
  // decides each next one (worker 1, worker 0, worker 1).
  const slack = AFFINITY_SLACK;
  t.deepEqual(batches[1]!.flat().map((sent) => sent.q), [texts[slack + 1], texts[slack + 3]]);
  t.deepEqual(batches[0]!.flat().map((sent) => sent.q), [...texts.slice(0, slack + 1), texts[slack + 2]]);
  open();
  await Promise.all(searches);
  t.is(batches[0]!.flat().length + batches[1]!.flat().length, texts.length);
});

test('chooseReplica: the own replica within the slack, else the least busy', (t) => {
  const loads = [0, 0, 0];
  const loadOf = (worker: number) => loads[worker]!;
  t.is(chooseReplica([0, 1, 2], loadOf, 4), 1);
  loads[1] = AFFINITY_SLACK;
  t.is(chooseReplica([0, 1, 2], loadOf, 4), 1);
  loads[1] = AFFINITY_SLACK + 1;
  loads[2] = 1;
  t.is(chooseReplica([0, 1, 2], loadOf, 4), 0);
  t.is(chooseReplica([3, 5], () => 0, 7), 5);
  t.is(queryAffinity('same'), queryAffinity('same'));
  // Texts spread evenly over two replicas, even texts differing only by their last character's parity.
  const parities = Array.from({ length: 1000 }, (_, k) => queryAffinity(`word${k}`) % 2);
  const ones = parities.filter((parity) => parity === 1).length;
  t.true(ones > 400 && ones < 600, `${ones} of 1000`);
  t.not(queryAffinity('amber') % 2 === queryAffinity('amber ') % 2 && queryAffinity('amber') % 2 === queryAffinity('amber  ') % 2
    && queryAffinity('amber') % 2 === queryAffinity('amber   ') % 2, true, 'appended spaces change the preferred replica');
});

test('a long queue goes out in batches of MAX_QUERIES_PER_BATCH, the next one as soon as one is answered', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const dispatcher = new SearchDispatcher([fakeWorker(0, batches, gate)], 1000);
  const total = MAX_QUERIES_PER_BATCH * 2 + 5;
  const searches = Array.from({ length: total }, (_, i) => dispatcher.search(query(`q${i}`), 1));
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(batches[0]!.map((batch) => batch.length), [MAX_QUERIES_PER_BATCH, MAX_QUERIES_PER_BATCH], 'both batches in flight are full');
  t.is(dispatcher.queuedCount, 5);
  open();
  await Promise.all(searches);
  t.deepEqual(batches[0]!.map((batch) => batch.length), [MAX_QUERIES_PER_BATCH, MAX_QUERIES_PER_BATCH, 5]);
  t.deepEqual(batches[0]!.flat().map((q) => q.q), Array.from({ length: total }, (_, i) => `q${i}`), 'in arrival order');
});

test('scores are wanted only when hits of several workers are merged', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  const single = new SearchDispatcher([fakeWorker(0, batches)], 100);
  await single.search(query('a'), 3);
  t.false(batches[0]![0]![0]!.scoresWanted, 'one worker owns every shard');
  const pair = new SearchDispatcher([fakeWorker(0, batches), fakeWorker(1, batches)], 100);
  await Promise.all([pair.search(query('b'), 1), pair.search(query('c'), 2)]);
  t.deepEqual(batches[0]![0]!.map((q) => [q.q, q.scoresWanted]), [['b', false], ['c', true]]);
  t.deepEqual(batches[1]![0]!.map((q) => [q.q, q.scoresWanted]), [['c', true]]);
});

test('a batch answered without some of its searches fails them (internal) rather than leaving them pending', async (t) => {
  const batches: ShardQueryMessage[][][] = [];
  const answersFirstOnly = async (buffer: ArrayBuffer) => {
    const [first] = decodeQueryBatch(buffer);
    return encodeQueryBatchResult([{ requestId: first!.requestId, error: null, candidates: 1, hits: [], extras: null }]);
  };
  // Worker 1 answers everything, worker 0 only the first query of its batch: the second search, spread
  // over both workers, must fail once worker 0's answer is in, not wait for ever.
  const dispatcher = new SearchDispatcher([answersFirstOnly, fakeWorker(1, batches)], 100);
  const [kept, dropped] = await Promise.allSettled([dispatcher.search(query('a'), 2), dispatcher.search(query('b'), 2)]);
  t.is(kept.status, 'fulfilled');
  t.is(dropped.status, 'rejected');
  t.is(((dropped as PromiseRejectedResult).reason as SkeinError).code, 'internal');
});

test('shardQuery copies every field of the search and adds the routing ones', (t) => {
  const search = query('dune');
  t.deepEqual(shardQuery(search, 7, [1, 3], true), { ...search, requestId: 7, shards: [1, 3], scoresWanted: true });
});

test('results a worker sends ahead of its batch answer (a long search\'s batch-mates) are delivered at once, and not failed when the answer leaves them out', async (t) => {
  // Worker 0 holds 'slow' and 'quick' in one batch: it sends quick's result ahead, then slow's much later.
  let release!: () => void;
  const slowDone = new Promise<void>((resolve) => { release = resolve; });
  const answerOf = (q: ShardQueryMessage) => ({ requestId: q.requestId, error: null, candidates: 1, hits: q.shards.map((shard) => ({ docId: shard, score: [0], document: '{}' })), extras: null });
  const partialWorker = async (buffer: ArrayBuffer, onPartial?: (answer: ArrayBuffer) => void) => {
    const queries = decodeQueryBatch(buffer);
    const ahead = queries.filter((q) => q.q !== 'slow');
    onPartial?.(encodeQueryBatchResult(ahead.map(answerOf)));
    await slowDone;
    return encodeQueryBatchResult(queries.filter((q) => q.q === 'slow').map(answerOf));
  };
  const batches: ShardQueryMessage[][][] = [];
  const dispatcher = new SearchDispatcher([partialWorker, fakeWorker(1, batches)], 100);
  const order: string[] = [];
  // Two shards, one per worker: each search waits for both workers' parts.
  const quick = dispatcher.search(query('quick'), 2).then((results) => { order.push('quick'); return results; });
  const slow = dispatcher.search(query('slow'), 2).then((results) => { order.push('slow'); return results; });
  const quickResults = await quick;
  t.deepEqual(order, ['quick']);
  t.is(quickResults.length, 2);
  release();
  await slow;
  t.deepEqual(order, ['quick', 'slow']);
});
