// Plain TypeScript views of the messages in schemas/protocol.fbs. Code on either side of a
// thread boundary builds and reads these; src/protocol/*-codec.ts turn them into flatbuffers.
import type { SplitChoices, SplitCounts } from './split-choice.js';
import type { ErrorBody } from '../errors/index.js';
import type { ShardFilterContext } from '../filter/shard-filter.js';
import type { FacetQueryTypos } from '../filter/facet-query.js';

export type MatchingStrategyName = 'last' | 'all' | 'frequency';

/** One search as a shard worker sees it. */
export interface ShardQueryMessage {
  requestId: number;
  indexUid: string;
  shards: number[];
  /** null: placeholder search. */
  q: string | null;
  /** offset + limit, already capped by maxTotalHits: how many best hits each shard must return. */
  hitsWanted: number;
  matchingStrategy: MatchingStrategyName;
  /** null: every displayed attribute. Already intersected with displayedAttributes by the front. */
  attributesToRetrieve: string[] | null;
  exhaustiveCount: boolean;
  /** The search's shaping options (filter, facets, sort, highlight, crop...): ShardSearchOptions. */
  options: ShardSearchOptions;
  /** false: the hits are the search's only list (nothing to merge in the front), sent without scores. */
  scoresWanted: boolean;
}

export interface HitMessage {
  docId: number;
  /**
   * One value per ranking rule, lower is better, compared lexicographically; then docId ascending.
   * Empty when the query did not want scores (ShardQueryMessage.scoresWanted).
   */
  score: number[];
  /**
   * The projected document serialized as JSON; null when the hit is the stored JSON as it is, which
   * the front reads from LMDB itself (front/search/stored-hits.ts): only for the hits it returns, and the
   * bytes never pass through the worker's answer.
   */
  document: string | null;
}

export interface ShardQueryResultMessage {
  requestId: number;
  error: ErrorBody | null;
  candidates: number;
  hits: HitMessage[];
  /** Partials for facet distribution and stats, distinct keys, term counts; null when none was asked. */
  extras: ShardExtras | null;
  /**
   * The worker's time on this search (ms): what Meilisearch's processingTimeMs counts, not the hop to the
   * worker nor the batches it answered inside the search (front/search/search-time.ts). Absent: not measured (a remote's).
   */
  searchMs?: number;
}

/** A filter as the search API takes it: an expression, or an array (AND) of expressions and arrays (OR); parsed by the worker (filter/filter-input.ts). */
export type FilterParameter = string | readonly unknown[];

/**
 * The shaping options of one search as a shard worker reads them, ONE typed structure for both ends
 * of the query port. The front validates every field with Meilisearch's codes (front/search/search-params.ts)
 * and builds them (search, facet search, documents and multi-search routes); query-codec.ts carries
 * exactly these fields (SHARD_SEARCH_OPTION_NAMES) as the JSON text of ShardQuery.options_json (a
 * filter is a tree), which the worker decodes once per query in decodeQueryBatch. Absent and null
 * are the same. The front's other options (vector, hybrid, showPerformanceDetails...) never cross.
 */
export interface ShardSearchOptions {
  filter?: FilterParameter | null;
  sort?: string[] | null;
  facets?: string[] | null;
  distinct?: string | null;
  attributesToSearchOn?: string[] | null;
  rankingScoreThreshold?: number | null;
  retrieveVectors?: boolean | null;
  attributesToHighlight?: string[] | null;
  attributesToCrop?: string[] | null;
  cropLength?: number | null;
  cropMarker?: string | null;
  highlightPreTag?: string | null;
  highlightPostTag?: string | null;
  showMatchesPosition?: boolean | null;
  showRankingScore?: boolean | null;
  showRankingScoreDetails?: boolean | null;
  /** The documents routes (GET /documents, POST /documents/fetch): order by the sort alone, invalid_document_sort (search-plan.ts). */
  documents?: boolean;
  /** matchingStrategy frequency over several shards, first round: only the terms' document counts (ShardExtras.termDocCounts). */
  termDocCountsOnly?: boolean;
  /** Its second round: the terms' document counts summed over every shard (front/search/search-dispatcher.ts). */
  termDocCounts?: number[];
  /** Facet search's exhaustive count with a distinct attribute: 'mins', each value's lowest document id (ShardExtras.distinctMins); then those ids, counted alone. */
  distinctFacets?: 'mins' | number[];
  /** Facet search: string (and boolean) facet values only, never numbers, as Meilisearch's facet search. */
  facetStringsOnly?: boolean;
  /**
   * Facet search's facetQuery with the typo rules the front matches values by (filter/facet-query.ts):
   * a shard counts the values it matches only (the front keeps testing them), not every value. A
   * tuple: the options' JSON text keeps only these names as keys (facetQueryOption / facetQueryOf).
   */
  facetQuery?: FacetQueryOption;
  /**
   * The index's maxValuesPerFacet and sortFacetValuesBy: a facet in alpha order needs from each shard
   * its first maxValuesPerFacet values only (shard/facets/facet-distribution.ts), not every value's count.
   * A tuple, as facetQuery (facetCutOption / facetOrderIn).
   */
  facetCut?: FacetCutOption;
  /**
   * Other nodes' answers join this search's (useNetwork: set at the asking node and at each remote
   * group), so no worker holds the whole index: its facet counts and distinct keys go out as parts
   * the asking node merges, never as the index's final figures.
   */
  networked?: boolean;
  /**
   * The search shows its count capped at this (the index's maxTotalHits; absent in a federated search,
   * which sums uncapped counts): a distinct count past it is as good as exact, so a worker stops there.
   */
  countCap?: number;
  /** The filter may name `_shard`: what this node resolves it with (filter/shard-filter.ts; set by the front). */
  shardFilter?: ShardFilterContext;
  /** Federated search with a sort: each hit's `_rankingScoreValues` (ScorePlan.values), which the front merges by and removes. */
  rankingScoreValues?: boolean;
  /** The filter's `foreignFilter`-th `_foreign` condition (text order): its inner filter is this search's filter (front/search/foreign-filter.ts). */
  foreignFilter?: number;
  /** The front checked attributesToSearchOn against the index's fields (front/search/search-on-check.ts): the shard skips its own check. */
  attributesToSearchOnChecked?: boolean;
  /**
   * Several shards: query words' split points chosen over the index, [word, point] (protocol/split-choice.ts;
   * 0: no split). Pairs, not an object: the options' JSON text keeps only these names as keys.
   */
  splitChoices?: SplitChoices;
  /** The choices are final: a word without one takes no split (never answered by counts). */
  splitChoicesFinal?: boolean;
}

/** ShardSearchOptions.facetQuery: [query, typos.enabled, oneTypo, twoTypos, disabledOnFacet, exactWords]. */
export type FacetQueryOption = [query: string, enabled: boolean, oneTypo: number, twoTypos: number, disabledOnFacet: boolean, exactWords: string[]];

export function facetQueryOption(query: string, typos: FacetQueryTypos): FacetQueryOption {
  return [query, typos.enabled, typos.oneTypo, typos.twoTypos, typos.disabledOnFacet, [...typos.exactWords]];
}

export function facetQueryOf(option: FacetQueryOption): { query: string; typos: FacetQueryTypos } {
  const [query, enabled, oneTypo, twoTypos, disabledOnFacet, exactWords] = option;
  return { query, typos: { enabled, oneTypo, twoTypos, disabledOnFacet, exactWords } };
}

/** ShardSearchOptions.facetCut: [maxValuesPerFacet, sortFacetValuesBy as [facet name or '*', order] pairs]. */
export type FacetCutOption = [maxValuesPerFacet: number, orders: [facet: string, order: 'alpha' | 'count'][]];

export function facetCutOption(faceting: { maxValuesPerFacet: number; sortFacetValuesBy: Readonly<Record<string, 'alpha' | 'count'>> }): FacetCutOption {
  return [faceting.maxValuesPerFacet, Object.entries(faceting.sortFacetValuesBy)];
}

/** A facet's order under the option, as the front orders it (sortFacetValuesBy: its name, else `*`, else alpha). */
export function facetOrderIn(option: FacetCutOption, facet: string): 'alpha' | 'count' {
  let star: 'alpha' | 'count' | undefined;
  for (const [name, order] of option[1]) {
    if (name === facet) return order;
    if (name === '*') star = order;
  }
  return star ?? 'alpha';
}

/** Every field of ShardSearchOptions: what query-codec.ts encodes (the compiler checks the list is whole). */
const SHARD_SEARCH_OPTION_FIELDS: Record<keyof ShardSearchOptions, true> = {
  filter: true, sort: true, facets: true, distinct: true, attributesToSearchOn: true, rankingScoreThreshold: true,
  retrieveVectors: true, attributesToHighlight: true, attributesToCrop: true, cropLength: true, cropMarker: true,
  highlightPreTag: true, highlightPostTag: true, showMatchesPosition: true, showRankingScore: true, showRankingScoreDetails: true,
  documents: true, termDocCountsOnly: true, termDocCounts: true, distinctFacets: true, facetStringsOnly: true, facetQuery: true, facetCut: true, networked: true, countCap: true, shardFilter: true, rankingScoreValues: true,
  foreignFilter: true, attributesToSearchOnChecked: true, splitChoices: true, splitChoicesFinal: true,
};
export const SHARD_SEARCH_OPTION_NAMES: readonly (keyof ShardSearchOptions)[] = Object.freeze(Object.keys(SHARD_SEARCH_OPTION_FIELDS) as (keyof ShardSearchOptions)[]);

/** What a worker's search sends back besides its hits (ShardQueryResult.extras_json), each merged by the front. */
export interface ShardExtras {
  /** facets: every value's count in the worker's matching documents (front/search/facet-merge.ts sums them). */
  facetDistribution?: Record<string, Record<string, number>>;
  /** facets: the numeric values' min and max. */
  facetStats?: Record<string, { min: number; max: number }>;
  /** distinct: the hits' distinct keys, aligned with the hits (front/search/distinct-merge.ts). */
  distinctKeys?: (string | null)[];
  /**
   * distinct: the matching documents counted once per key (front/search/distinct-merge.ts). `keys`: the
   * keys another worker's documents may hold too, whose union the front counts; `unshared`: what this
   * worker counted alone (documents without a key, and every key when it holds the whole index).
   */
  distinctCount?: { keys: string[]; unshared: number };
  /** distinctFacets 'mins': per distinct value, its lowest matching document id. */
  distinctMins?: Record<string, number>;
  /** termDocCountsOnly: [term] = its documents in the worker's shards. */
  termDocCounts?: number[];
  /** Instead of hits: query words whose split the worker could not choose alone, with its shards' counts (protocol/split-choice.ts). */
  splitCounts?: SplitCounts;
}

export type DocumentOpMessage =
  | { kind: 'upsert'; docId: number; document: string }
  | { kind: 'delete'; docId: number };

export type ShardCommandMessage =
  | { kind: 'writeBatch'; commandId: number; indexUid: string; shard: number; ops: DocumentOpMessage[] }
  | { kind: 'reloadDocuments'; commandId: number; indexUid: string; shard: number; docIds: number[] }
  /** keepShards: only search-time settings changed (settings/search-time-settings.ts): the worker swaps them and keeps its shards. */
  | { kind: 'loadIndex'; commandId: number; indexUid: string; shardCount: number; settings: unknown; keepShards: boolean }
  | { kind: 'dropIndex'; commandId: number; indexUid: string }
  /** The worker's shards of the index now equal LMDB at this commit stamp (IndexRecord.commitSeq). */
  | { kind: 'indexCommitted'; commandId: number; indexUid: string; commitSeq: number }
  /** Snapshot every shard whose committed state is not on disk yet (src/shard/snapshot/snapshot-keeper.ts). */
  /** prepareSearch: the scheduler is quiet (not shutting down), so the worker may spend seconds building. */
  /** untilSaved: acknowledged once the files are written (a snapshotCreation task copies them), not at once. */
  | { kind: 'saveSnapshots'; commandId: number; prepareSearch: boolean; untilSaved?: boolean }
  /** Build the index's stale search structures now, then ack (before a commit that leaves the queue empty). */
  | { kind: 'prepareSearch'; commandId: number; indexUid: string };

export interface ShardAckMessage {
  commandId: number;
  error: ErrorBody | null;
}

export type SchedulerMessage =
  /** log: cluster mode, the task log sequence and the publisher's enqueuedAt (src/cluster). */
  | { kind: 'enqueueTask'; requestId: number; content: unknown; log?: { seq: number; enqueuedAt: string } }
  | { kind: 'taskEnqueued'; requestId: number; error: ErrorBody | null; summary: unknown }
  | { kind: 'indexesChanged'; indexUids: string[] }
  /** logSeq (keyCommand, updateFeatures): cluster mode, its skein-config sequence, stored with the change (src/cluster/config-log.ts). */
  | { kind: 'keyCommand'; requestId: number; command: KeyCommand; logSeq?: number }
  | { kind: 'keyCommandResult'; requestId: number; error: ErrorBody | null; record: unknown }
  /** Front -> scheduler at close: no new batch; shard snapshots saved; answered with shutdownPrepared. */
  | { kind: 'prepareShutdown'; requestId: number }
  | { kind: 'shutdownPrepared'; requestId: number }
  /** PATCH /experimental-features: the flags to change (validated by the front); answered with featuresUpdated. */
  | { kind: 'updateFeatures'; requestId: number; patch: Record<string, boolean>; logSeq?: number }
  | { kind: 'featuresUpdated'; requestId: number; error: ErrorBody | null; features: Record<string, boolean> | null };

/** A /keys write; the front validated it, the scheduler commits it (records: src/auth/key-record.ts). */
export type KeyCommand =
  | { op: 'create'; record: import('../auth/key-record.js').KeyRecord }
  | { op: 'update'; uid: string; name?: string | null; description?: string | null; updatedAt: string }
  | { op: 'delete'; uid: string }
  /** Cluster mode: the default keys, created once through the config log (stored only when the key store is empty). */
  | { op: 'seedDefaults'; records: import('../auth/key-record.js').KeyRecord[] };

/**
 * The messages that are not flatbuffers: they carry MessagePorts (which must travel in a transfer
 * list). AttachWorkerPorts goes from the front thread to a shard worker (the Piscina task) at start,
 * and again to a replacement thread or, after the scheduler thread was replaced, with the new
 * scheduler's port (src/front/threads/worker-supervisor.ts). On the scheduler's port the scheduler thread
 * talks to the worker directly with ShardCommand/ShardAck buffers; on the query port the front
 * sends QueryBatch buffers and the worker answers each with a QueryBatchResult: in order, or tagged
 * (NestedBatchAnswer) when answered inside a running search.
 */
export interface AttachWorkerPorts {
  kind: 'attachWorkerPorts';
  schedulerPort: import('node:worker_threads').MessagePort;
  /** null: the worker keeps its query port (only the scheduler thread was replaced). */
  queryPort: import('node:worker_threads').MessagePort | null;
  /**
   * Load every stored index as at start (from snapshots when valid, else LMDB), dropping what the
   * worker holds: at start, in a replacement thread, and after the scheduler thread was replaced
   * (the shards may hold the dead scheduler's uncommitted writes).
   */
  load: boolean;
  /** The thread's log port (protocol/thread-log.ts), with a new thread's ports; null: it keeps its own. */
  logPort: import('node:worker_threads').MessagePort | null;
}

/**
 * Front <-> scheduler, about a replaced shard worker (not flatbuffers: the first carries a port).
 * replaceShardPort: the scheduler waits for its batch in process to end (failed, survivors rolled
 * back), holds batches, takes the port to the new thread and answers shardPortReplaced; the front
 * then attaches the new thread, which loads LMDB while nothing commits, and sends shardWorkerReady,
 * after which batches run again.
 */
export type ShardWorkerLifecycleMessage =
  | { kind: 'replaceShardPort'; worker: number; port: import('node:worker_threads').MessagePort }
  | { kind: 'shardPortReplaced'; worker: number }
  | { kind: 'shardWorkerReady'; worker: number };

export function isShardWorkerLifecycleMessage(message: unknown): message is ShardWorkerLifecycleMessage {
  if (typeof message !== 'object' || message === null || message instanceof ArrayBuffer || ArrayBuffer.isView(message)) return false;
  const kind = (message as { kind?: unknown }).kind;
  return kind === 'replaceShardPort' || kind === 'shardPortReplaced' || kind === 'shardWorkerReady';
}

/**
 * A QueryBatchResult answered out of order, inside another search's yield point (shard/worker.ts
 * NestedBatches): `batch` numbers the batch as both ends count them on the query port, from 1. An
 * answer in order (the oldest batch unanswered) travels as the bare buffer.
 */
export interface NestedBatchAnswer {
  batch: number;
  answer: ArrayBuffer;
  /** Some of the batch's results, sent at a yield point of one of its searches; the rest come later. */
  partial?: boolean;
}

/** workerData of each shard worker thread. */
export interface ShardWorkerData {
  dbPath: string;
  workerIndex: number;
  workerCount: number;
  /** Test hooks only: armed thread failure points (src/protocol/thread-failure-points.ts). */
  threadFailures?: SharedArrayBuffer | null;
  /** The log levels wanted per target (protocol/thread-log.ts), kept up to date by the front. */
  logThresholds?: SharedArrayBuffer | null;
}

/** workerData of the scheduler thread; shardPorts[i] talks to shard worker i. */
export interface SchedulerWorkerData {
  dbPath: string;
  workerCount: number;
  shardPorts: import('node:worker_threads').MessagePort[];
  /** Default number of shards of a new index. */
  shardsPerIndex: number;
  /** Failure points to trigger (tests only), see src/scheduler/failure-points.ts. */
  failurePoints: string[];
  /** The task queue's bounds (SkeinOptions maxNumberOfTasks, maxTaskDbSize); absent: Meilisearch's. */
  taskQueueLimits?: { maxNumberOfTasks: number; maxTaskDbSize: number };
  /** `--dump-dir`: where dumpCreation tasks write. */
  dumpDir?: string;
  /** Test hooks only: armed thread failure points (src/protocol/thread-failure-points.ts). */
  threadFailures?: SharedArrayBuffer | null;
  /** --snapshot-dir (absolute) and --schedule-snapshot seconds (null: off); src/scheduler/operations/snapshot-task.ts. */
  snapshots?: { dir: string; scheduleSeconds: number | null };
  /** Cluster mode: tasks come only from the task log (src/cluster); no task of the scheduler's own. */
  clustered?: boolean;
  /** The commit counters shared with the front (protocol/commit-fence.ts). */
  commitFence?: SharedArrayBuffer;
  /** Document uploads under way per index, counted by the front (protocol/upload-gauge.ts). */
  uploads?: SharedArrayBuffer;
  /** `--experimental-allowed-ip-networks`: the remotes a topology change may ask (network/ip-policy.ts). */
  allowedIpNetworks?: string[];
  /** The log levels wanted per target and the thread's log port (protocol/thread-log.ts). */
  logThresholds?: SharedArrayBuffer | null;
  logPort?: import('node:worker_threads').MessagePort | null;
}
