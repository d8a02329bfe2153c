// Query batches (front -> shard worker) and their results (shard worker -> front).
// Cost: one flatbuffer per worker per event-loop turn, whatever the number of queries in it.
import * as flatbuffers from 'flatbuffers';
import * as fb from './generated/protocol_generated.js';
import { byteBufferOf, finishToTransferable, readError, readStrings, writeError, writeStrings, type ReusedBuilder } from './flatbuffer-io.js';
import { SHARD_SEARCH_OPTION_NAMES, type MatchingStrategyName, type ShardExtras, type ShardQueryMessage, type ShardQueryResultMessage,
  type ShardSearchOptions, type HitMessage } from './messages.js';

const STRATEGY_TO_FB: Record<MatchingStrategyName, fb.MatchingStrategy> = {
  last: fb.MatchingStrategy.Last,
  all: fb.MatchingStrategy.All,
  frequency: fb.MatchingStrategy.Frequency,
};
const STRATEGY_FROM_FB: MatchingStrategyName[] = ['last', 'all', 'frequency'];

/** `reused`: the caller's builder (ReusedBuilder), else a new one. */
export function encodeQueryBatch(queries: ShardQueryMessage[], reused?: ReusedBuilder): ArrayBuffer {
  const builder = reused?.take() ?? new flatbuffers.Builder(256 * queries.length + 64);
  // A batch's queries mostly name one index and one shard list: each written once and shared.
  let lastUid: string | null = null;
  let lastUidOffset = 0;
  let lastShards: number[] | null = null;
  let lastShardsOffset = 0;
  const offsets = queries.map((query) => {
    if (query.indexUid !== lastUid) {
      lastUid = query.indexUid;
      lastUidOffset = builder.createString(query.indexUid);
    }
    const indexUid = lastUidOffset;
    if (lastShards === null || !sameShards(lastShards, query.shards)) {
      lastShards = query.shards;
      lastShardsOffset = fb.ShardQuery.createShardsVector(builder, query.shards);
    }
    const shards = lastShardsOffset;
    const q = query.q === null ? 0 : builder.createString(query.q);
    const attributes = query.attributesToRetrieve === null
      ? 0
      : fb.ShardQuery.createAttributesToRetrieveVector(builder, writeStrings(builder, query.attributesToRetrieve));
    const optionsJson = encodeSearchOptions(query.options);
    const options = optionsJson === null ? 0 : builder.createString(optionsJson);
    return fb.ShardQuery.createShardQuery(builder, query.requestId, indexUid, shards, q, query.hitsWanted,
      STRATEGY_TO_FB[query.matchingStrategy], attributes, query.exhaustiveCount, options, query.scoresWanted);
  });
  const vector = fb.QueryBatch.createQueriesVector(builder, offsets);
  return finishToTransferable(builder, fb.QueryBatch.createQueryBatch(builder, vector));
}

function sameShards(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

export function decodeQueryBatch(message: ArrayBuffer | Uint8Array): ShardQueryMessage[] {
  const batch = fb.QueryBatch.getRootAsQueryBatch(byteBufferOf(message));
  const out: ShardQueryMessage[] = [];
  for (let i = 0; i < batch.queriesLength(); i++) {
    const query = batch.queries(i)!;
    const optionsJson = query.optionsJson();
    out.push({
      requestId: query.requestId(),
      indexUid: query.indexUid() ?? '',
      shards: Array.from(query.shardsArray() ?? []),
      q: query.q(),
      hitsWanted: query.hitsWanted(),
      matchingStrategy: STRATEGY_FROM_FB[query.matchingStrategy()] ?? 'last',
      attributesToRetrieve: query.attributesToRetrieveLength() === 0 && !hasAttributes(query)
        ? null
        : readStrings(query.attributesToRetrieveLength(), (j) => query.attributesToRetrieve(j)),
      exhaustiveCount: query.exhaustiveCount(),
      options: optionsJson ? decodeSearchOptions(optionsJson) : {},
      scoresWanted: query.scoresWanted(),
    });
  }
  return out;
}

/**
 * The JSON text of the options' ShardSearchOptions fields alone (the front's own options stay in the
 * front); null when there is none. (The replacer list filters object keys at every depth: no field
 * of ShardSearchOptions holds an object.)
 */
export function encodeSearchOptions(options: ShardSearchOptions): string | null {
  // Most searches carry none (a plain `q`): a look at each name costs a tenth of the stringify, whose
  // replacer list V8 turns into a set of keys on every call (6% of the front's time per search).
  if (!hasShardOption(options)) return null;
  const json = JSON.stringify(options, SHARD_SEARCH_OPTION_NAMES as string[]);
  return json === '{}' ? null : json;
}

/** Whether JSON.stringify would write a field of ShardSearchOptions (an undefined one is left out). */
function hasShardOption(options: ShardSearchOptions): boolean {
  const fields = options as Record<string, unknown>;
  for (const name in fields) if (fields[name] !== undefined && SHARD_OPTION_NAME_SET.has(name)) return true;
  return false;
}

const SHARD_OPTION_NAME_SET: ReadonlySet<string> = new Set(SHARD_SEARCH_OPTION_NAMES);

/** The worker's one decoding of a search's options: the text encodeSearchOptions wrote from a validated ShardSearchOptions. */
function decodeSearchOptions(json: string): ShardSearchOptions {
  return JSON.parse(json) as ShardSearchOptions;
}

// An empty list (retrieve nothing) and an absent list (retrieve everything) differ.
function hasAttributes(query: fb.ShardQuery): boolean {
  // flatbuffers returns 0 length for both; the vtable offset tells them apart.
  return (query as unknown as { bb: flatbuffers.ByteBuffer; bb_pos: number }).bb.__offset(
    (query as unknown as { bb_pos: number }).bb_pos, 16) !== 0;
}

/** `reused`: the caller's builder (ReusedBuilder), else a new one. */
export function encodeQueryBatchResult(results: ShardQueryResultMessage[], reused?: ReusedBuilder): ArrayBuffer {
  const builder = reused?.take() ?? new flatbuffers.Builder(1024 * results.length + 64);
  const offsets = results.map((result) => {
    const error = writeError(builder, result.error);
    const bare = result.hits.every(isBareHit);
    const hits = bare ? 0 : fb.ShardQueryResult.createHitsVector(builder, result.hits.map((hit) => {
      const score = hit.score.length === 0 ? 0 : fb.Hit.createScoreVector(builder, hit.score);
      // An absent string is the stored document as it is (HitMessage.document null).
      const document = hit.document === null ? 0 : reused === undefined ? builder.createString(hit.document) : reused.createString(builder, hit.document);
      return fb.Hit.createHit(builder, hit.docId, score, document);
    }));
    const bareDocIds = bare && result.hits.length > 0 ? fb.ShardQueryResult.createBareHitDocIdsVector(builder, result.hits.map((hit) => hit.docId)) : 0;
    const extras = result.extras === null ? 0 : builder.createString(JSON.stringify(result.extras));
    fb.ShardQueryResult.startShardQueryResult(builder);
    fb.ShardQueryResult.addRequestId(builder, result.requestId);
    if (error) fb.ShardQueryResult.addError(builder, error);
    fb.ShardQueryResult.addCandidates(builder, result.candidates);
    if (hits) fb.ShardQueryResult.addHits(builder, hits);
    if (bareDocIds) fb.ShardQueryResult.addBareHitDocIds(builder, bareDocIds);
    if (extras) fb.ShardQueryResult.addExtrasJson(builder, extras);
    if (result.searchMs !== undefined) fb.ShardQueryResult.addSearchMs(builder, result.searchMs);
    return fb.ShardQueryResult.endShardQueryResult(builder);
  });
  const vector = fb.QueryBatchResult.createResultsVector(builder, offsets);
  return finishToTransferable(builder, fb.QueryBatchResult.createQueryBatchResult(builder, vector));
}

/** The score of every hit sent without one: shared, as nothing writes to a hit's score. */
const NO_SCORES: number[] = [];

/** A hit that is its doc id alone: no score wanted, its stored JSON read by the front. */
function isBareHit(hit: HitMessage): boolean {
  return hit.score.length === 0 && hit.document === null;
}

export function decodeQueryBatchResult(message: ArrayBuffer | Uint8Array): ShardQueryResultMessage[] {
  const batch = fb.QueryBatchResult.getRootAsQueryBatchResult(byteBufferOf(message));
  const out: ShardQueryResultMessage[] = [];
  // One accessor of each kind, repositioned per entry: the front decodes every hit of every search
  // (a new accessor object per hit was a tenth of what it allocated per search).
  const result = new fb.ShardQueryResult();
  const hit = new fb.Hit();
  for (let i = 0; i < batch.resultsLength(); i++) {
    batch.results(i, result);
    const bareDocIds = result.bareHitDocIdsArray();
    const hits: HitMessage[] = new Array(bareDocIds === null ? result.hitsLength() : bareDocIds.length);
    for (let j = 0; j < hits.length; j++) {
      if (bareDocIds !== null) {
        hits[j] = { docId: bareDocIds[j]!, score: NO_SCORES, document: null };
        continue;
      }
      result.hits(j, hit);
      hits[j] = { docId: hit.docId(), score: hit.scoreLength() === 0 ? NO_SCORES : Array.from(hit.scoreArray()!), document: hit.document() };
    }
    const extras = result.extrasJson();
    out.push({
      requestId: result.requestId(),
      error: readError(result.error()),
      candidates: result.candidates(),
      hits,
      extras: extras ? JSON.parse(extras) as ShardExtras : null,
      searchMs: result.searchMs(),
    });
  }
  return out;
}
