import test from 'ava';
import {
  decodeQueryBatch, decodeQueryBatchResult, decodeSchedulerMessage, decodeShardAck, decodeShardCommand,
  encodeQueryBatch, encodeQueryBatchResult, encodeSchedulerMessage, encodeShardAck, encodeShardCommand,
  type SchedulerMessage, type ShardCommandMessage, type ShardQueryMessage,
} from '../../src/protocol/index.js';
import { ownersOfShard, shardsOwnedBy } from '../../src/protocol/placement.js';
import { facetQueryOf, facetQueryOption, SHARD_SEARCH_OPTION_NAMES, type ShardSearchOptions } from '../../src/protocol/messages.js';
import { encodeSearchOptions } from '../../src/protocol/query-codec.js';
import { ReusedBuilder } from '../../src/protocol/flatbuffer-io.js';
import { ShardCommandEncoder } from '../../src/protocol/shard-command-codec.js';

const query: ShardQueryMessage = {
  requestId: 7, indexUid: 'movies', shards: [0, 2], q: 'star wars', hitsWanted: 20, matchingStrategy: 'all',
  attributesToRetrieve: ['title', 'id'], exhaustiveCount: true, options: { facets: ['genre'] }, scoresWanted: true,
};

test('a query batch survives encoding', (t) => {
  const placeholder: ShardQueryMessage = { ...query, requestId: 8, q: null, attributesToRetrieve: null, options: {} };
  const empty: ShardQueryMessage = { ...query, requestId: 9, attributesToRetrieve: [] };
  const unscored: ShardQueryMessage = { ...query, requestId: 10, scoresWanted: false };
  t.deepEqual(decodeQueryBatch(encodeQueryBatch([query, placeholder, empty, unscored])), [query, placeholder, empty, unscored]);
});

test('a query carries its ShardSearchOptions, every field typed, and none of the front\'s own options', (t) => {
  const options: ShardSearchOptions = {
    filter: ['genre = drama', ['year > 2000', 'year < 1950']], sort: ['year:desc'], facets: ['genre'], distinct: 'saga',
    attributesToSearchOn: ['title'], rankingScoreThreshold: 0.5, retrieveVectors: true, attributesToHighlight: ['*'],
    attributesToCrop: ['overview:5'], cropLength: 7, cropMarker: '..', highlightPreTag: '<b>', highlightPostTag: '</b>',
    showMatchesPosition: true, showRankingScore: true, showRankingScoreDetails: false, documents: true,
    termDocCountsOnly: false, termDocCounts: [3, 0, 12], distinctFacets: [4, 9], facetStringsOnly: true, facetQuery: ['sci fi', true, 5, 9, false, ['scifi']], facetCut: [7, [['*', 'alpha'], ['genre', 'count']]], networked: true, countCap: 1000, shardFilter: [true, ['g1', 'g2'], ['g2']], rankingScoreValues: true, foreignFilter: 2, attributesToSearchOnChecked: true,
    splitChoices: [['carpet', 3], ['__proto__', 0]], splitChoicesFinal: true,
  };
  t.deepEqual(Object.keys(options).sort(), [...SHARD_SEARCH_OPTION_NAMES].sort(), 'the test sets every field');
  const [decoded] = decodeQueryBatch(encodeQueryBatch([{ ...query, options }]));
  t.deepEqual(decoded!.options, options);
  // What only the front reads (front/search/search-params.ts SearchOptions) stays there.
  const withFrontOnly = { ...options, showPerformanceDetails: true, hybrid: { embedder: 'x' }, vector: [1, 2], useNetwork: false } as ShardSearchOptions;
  t.deepEqual(decodeQueryBatch(encodeQueryBatch([{ ...query, options: withFrontOnly }]))[0]!.options, options);
  t.is(encodeSearchOptions({ showPerformanceDetails: true } as ShardSearchOptions), null, 'no shard field: no options text at all');
  t.deepEqual(decodeQueryBatch(encodeQueryBatch([{ ...query, options: { distinctFacets: 'mins' } }]))[0]!.options, { distinctFacets: 'mins' });
});

test('batches encoded one after another in one reused builder decode whole; index names and shard lists written once are shared', (t) => {
  const builder = new ReusedBuilder(64, 4096);
  const batch = (n: number, base: number): ShardQueryMessage[] => Array.from({ length: n }, (_, k) => ({
    ...query, requestId: base + k, q: `q${k}`, indexUid: k % 3 === 2 ? 'books' : 'movies', shards: k % 4 === 3 ? [1] : [0, 2],
    options: k % 2 === 0 ? {} : { filter: null, showPerformanceDetails: true } as ShardSearchOptions,
  }));
  const expected = (queries: ShardQueryMessage[]) => queries.map((q) => ({ ...q, options: Object.keys(q.options).length === 0 ? {} : { filter: null } }));
  const first = batch(9, 100);
  t.deepEqual(decodeQueryBatch(encodeQueryBatch(first, builder)), expected(first));
  // Past keepBytes (a long query), then a small batch again: nothing of the earlier messages shows.
  const long = [{ ...query, requestId: 1, q: 'x'.repeat(10_000), options: {} }];
  t.deepEqual(decodeQueryBatch(encodeQueryBatch(long, builder)), long);
  const second = batch(5, 200);
  t.deepEqual(decodeQueryBatch(encodeQueryBatch(second, builder)), expected(second));
  const same = batch(16, 300).map((q) => ({ ...q, indexUid: 'movies', shards: [0, 2] }));
  const distinct = same.map((q, k) => ({ ...q, indexUid: `movie${k.toString(16)}`, shards: [0, k] }));
  t.true(encodeQueryBatch(same).byteLength <= encodeQueryBatch(distinct).byteLength - 15 * (12 + 8), 'one index name and one shard list for the batch');
  const results = [{ requestId: 1, error: null, candidates: 2, hits: [{ docId: 1, score: [], document: null }], extras: null, searchMs: 0.5 }];
  const resultBuilder = new ReusedBuilder(64, 4096);
  t.deepEqual(decodeQueryBatchResult(encodeQueryBatchResult([{ ...results[0]!, hits: [{ docId: 2, score: [1], document: 'y'.repeat(8000) }] }], resultBuilder))[0]!.hits[0]!.document, 'y'.repeat(8000));
  t.deepEqual(decodeQueryBatchResult(encodeQueryBatchResult(results, resultBuilder)), results);
});

test('query results survive encoding, errors and documents left to the front (null) included', (t) => {
  const results = [
    { requestId: 1, error: null, candidates: 3, hits: [{ docId: 4, score: [0, 1.5], document: '{"id":1}' }, { docId: 5, score: [1], document: null }, { docId: 6, score: [2], document: '' }, { docId: 7, score: [], document: null }], extras: null, searchMs: 0.25 },
    { requestId: 2, error: { code: 'index_not_found', message: 'Index `x` not found.', type: 'internal' as const, link: '' }, candidates: 0, hits: [], extras: { termDocCounts: [1, 0] }, searchMs: 3.5 },
    { requestId: 3, error: null, candidates: 2, hits: [{ docId: 9, score: [3], document: '{"id":9}' }, { docId: 10, score: [], document: null }], extras: null, searchMs: 0 },
  ];
  const decoded = decodeQueryBatchResult(encodeQueryBatchResult(results));
  t.deepEqual(decoded[0], results[0]);
  t.is(decoded[1]!.error!.code, 'index_not_found');
  t.deepEqual(decoded[1]!.extras, { termDocCounts: [1, 0] });
  t.is(decoded[1]!.searchMs, 3.5, "the worker's time on the search (front/search/search-time.ts)");
  t.deepEqual(decoded[2], results[2], 'hits of a later result decode whole, not as views of earlier ones');
});

test('documents written through a reused builder\'s bytes decode as written: any text, any length, one batch after another', (t) => {
  const reused = new ReusedBuilder(1024, 64 * 1024);
  const texts = ['{"id":1}', '', '{"name":"Grüße 東京 😀"}', 'x'.repeat(5000), 'é'.repeat(9000), 'a'.repeat(30_000), '{"b":"\u2028"}', 'z'.repeat(3)];
  for (let round = 0; round < 3; round++) {
    const results = texts.map((text, k) => ({
      requestId: round * 100 + k, error: null, candidates: 1, hits: [{ docId: k, score: [k], document: text }, { docId: 99, score: [1], document: texts[(k + round) % texts.length]! }], extras: null, searchMs: 0,
    }));
    t.deepEqual(decodeQueryBatchResult(encodeQueryBatchResult(results, reused)), results, `round ${round}`);
  }
});

test('hits that are doc ids alone travel as one id vector and decode whole', (t) => {
  const bare = { requestId: 4, error: null, candidates: 9, hits: [{ docId: 8, score: [], document: null }, { docId: 3, score: [], document: null }], extras: null, searchMs: 0.5 };
  const none = { requestId: 5, error: null, candidates: 0, hits: [], extras: null, searchMs: 0 };
  const mixed = { requestId: 6, error: null, candidates: 2, hits: [{ docId: 1, score: [], document: null }, { docId: 2, score: [], document: '{"id":2}' }], extras: null, searchMs: 1.75 };
  const decoded = decodeQueryBatchResult(encodeQueryBatchResult([bare, none, mixed]));
  t.deepEqual(decoded, [bare, none, mixed]);
  const tableSize = encodeQueryBatchResult([{ ...bare, hits: [...bare.hits, { docId: 9, score: [1], document: null }] }]).byteLength;
  t.true(encodeQueryBatchResult([bare]).byteLength < tableSize - 16, 'the id vector is smaller than a table per hit');
});

/** A decoded command as plain data: a write batch's upserts decode their document when read. */
function plainCommand(command: ShardCommandMessage): ShardCommandMessage {
  if (command.kind !== 'writeBatch') return command;
  return { ...command, ops: command.ops.map((op) => (op.kind === 'upsert' ? { kind: op.kind, docId: op.docId, document: op.document } : op)) };
}

test('every shard command survives encoding', (t) => {
  const commands: ShardCommandMessage[] = [
    { kind: 'writeBatch', commandId: 1, indexUid: 'a', shard: 3, ops: [{ kind: 'upsert', docId: 9, document: '{"x":1}' }, { kind: 'delete', docId: 2 }] },
    { kind: 'reloadDocuments', commandId: 2, indexUid: 'a', shard: 1, docIds: [1, 2, 3] },
    { kind: 'loadIndex', commandId: 3, indexUid: 'a', shardCount: 4, settings: { searchableAttributes: ['*'] }, keepShards: false },
    { kind: 'loadIndex', commandId: 5, indexUid: 'b', shardCount: 1, settings: { faceting: { maxValuesPerFacet: 3 } }, keepShards: true },
    { kind: 'dropIndex', commandId: 4, indexUid: 'a' },
    { kind: 'indexCommitted', commandId: 6, indexUid: 'a', commitSeq: 4_000_000_000 },
    { kind: 'saveSnapshots', commandId: 7, prepareSearch: false },
    { kind: 'saveSnapshots', commandId: 8, prepareSearch: true },
    { kind: 'saveSnapshots', commandId: 9, prepareSearch: false, untilSaved: true },
    { kind: 'prepareSearch', commandId: 10, indexUid: 'a' },
  ];
  for (const command of commands) t.deepEqual(plainCommand(decodeShardCommand(encodeShardCommand(command))), command);
  t.deepEqual(decodeShardAck(encodeShardAck({ commandId: 5, error: null })), { commandId: 5, error: null });
});

test('scheduler messages survive encoding', (t) => {
  const enqueue = { kind: 'enqueueTask' as const, requestId: 3, content: { type: 'indexCreation', indexUid: 'a', primaryKey: null } };
  t.deepEqual(decodeSchedulerMessage(encodeSchedulerMessage(enqueue)), enqueue);
  const changed = { kind: 'indexesChanged' as const, indexUids: ['a', 'b'] };
  t.deepEqual(decodeSchedulerMessage(encodeSchedulerMessage(changed)), changed);
  for (const message of [{ kind: 'prepareShutdown' as const, requestId: 8 }, { kind: 'shutdownPrepared' as const, requestId: 8 }]) {
    t.deepEqual(decodeSchedulerMessage(encodeSchedulerMessage(message)), message);
  }
  const features: SchedulerMessage[] = [
    { kind: 'updateFeatures', requestId: 9, patch: { metrics: true, network: false } },
    { kind: 'featuresUpdated', requestId: 9, error: null, features: { metrics: true, network: false } },
    { kind: 'featuresUpdated', requestId: 10, error: { code: 'internal', message: 'disk full', type: 'internal', link: '' }, features: null },
  ];
  for (const message of features) t.deepEqual(decodeSchedulerMessage(encodeSchedulerMessage(message)), message);
});

test('placement spreads shards over workers and agrees with ownership', (t) => {
  t.deepEqual(shardsOwnedBy(0, 5, 2), [0, 2, 4]);
  t.deepEqual(shardsOwnedBy(1, 5, 2), [1, 3]);
  for (let shard = 0; shard < 5; shard++) t.deepEqual(ownersOfShard(shard, 5, 2), [shard % 2]);
});

test('a decoded write batch reads each document from the message, as often as asked', (t) => {
  // Short and long documents (past the encoder's first scratch buffer), multi-byte characters among them.
  const ops = Array.from({ length: 50 }, (_, docId) => ({ kind: 'upsert' as const, docId,
    document: JSON.stringify({ id: docId, text: docId % 10 === 9 ? 'é東😀x'.repeat(docId * 500) : 'é'.repeat(docId) }) }));
  // The scheduler's encoder (one reused UTF-8 buffer, grown past its first size) and the one-off function agree.
  const encoder = new ShardCommandEncoder();
  for (const encode of [encodeShardCommand, (command: ShardCommandMessage) => encoder.encode(command), (command: ShardCommandMessage) => encoder.encode(command)]) {
    const decoded = decodeShardCommand(encode({ kind: 'writeBatch', commandId: 1, indexUid: 'a', shard: 0, ops }));
    if (decoded.kind !== 'writeBatch') return t.fail();
    for (const at of [49, 0, 17, 17, 39, 9]) t.deepEqual(plainCommand({ ...decoded, ops: [decoded.ops[at]!] }), { ...decoded, ops: [ops[at]!] });
    // A short document after the long ones reads only its own bytes from the reused buffer.
    const small = decodeShardCommand(encode({ kind: 'writeBatch', commandId: 2, indexUid: 'a', shard: 0, ops: [ops[2]!] }));
    t.deepEqual(plainCommand(small), { kind: 'writeBatch', commandId: 2, indexUid: 'a', shard: 0, ops: [ops[2]!] });
  }
});

test('facet search\'s facetQuery crosses as a tuple and comes back as the same query and typo rules', (t) => {
  const typos = { enabled: false, oneTypo: 3, twoTypos: 7, disabledOnFacet: true, exactWords: ['scifi', 'noir'] };
  const option = facetQueryOption('sci fi', typos);
  const decoded = decodeQueryBatch(encodeQueryBatch([{ ...query, options: { facetQuery: option } }]))[0]!.options!.facetQuery!;
  t.deepEqual(facetQueryOf(decoded), { query: 'sci fi', typos });
});
