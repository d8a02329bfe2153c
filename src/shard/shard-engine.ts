// Every index shard a worker owns, and the operations the worker thread performs on them: loading
// and dropping indexes, applying write batches, searching several shards and merging them. No
// threads and no LMDB here: documents come in through DocumentSource, so tests and the bench call it directly.
import { facetQueryMatcher } from '../filter/facet-query.js';
import type { FacetCut } from './facets/facet-distribution.js';
import type { BuildHelperClient } from './build-helper-client.js';
import { SkeinError } from '../errors/skein-error.js';
import { shardsOwnedBy } from '../protocol/placement.js';
import { facetOrderIn, facetQueryOf, type DocumentOpMessage, type FacetCutOption, type FacetQueryOption, type MatchingStrategyName, type ShardExtras, type ShardSearchOptions } from '../protocol/messages.js';
import type { IndexSettings } from '../settings/index-settings.js';
import { compileIndexConfig, type IndexConfig } from './index-config.js';
import { ShardIndex } from './shard-index.js';
import type { SlicedJobs } from './sliced-jobs.js';
import { compileSearchPlan } from './search/search-plan.js';
import { searchShards, termDocCountsOfShards, type PlannedHit } from './search/shaped-search.js';
import { SearchBudget, SLICE_MS, type Interleave } from './search/search-budget.js';
import type { ScorePlan } from '../ranking/scores/score-details.js';
import { FieldRestriction } from './search/field-restriction.js';
import { SplitDecider, SplitMemo } from './search/split-decider.js';
import { mapPacked } from '../ranking/packed-arrays.js';

export type JsonDocument = Record<string, unknown>;

/** Beyond this many upserts per write batch the JSON is not kept: memory over a few ms of visibility. */
const RECENT_DOCUMENTS_LIMIT = 10_000;
/**
 * A write batch runs at least this long between two yield points (writeBatch), and the worker's yield
 * answers searches for as long (worker.ts). Each slice makes the cached entries of the words it wrote
 * stale, so the searches after each slice derive them again (engine alone, 100,000 npm rows, 3,000
 * searches per 1,000 rows written: CPU per search under writes 575 / 521 / 414 µs with a yield every
 * 32 / 128 / 512 documents). Over HTTP, 8 ms beat 16 (`mixed-probe.js --warm 1`, 100k npm rows, 1,000
 * a second, 64 connections, alternated, 7 pairs at load 1.7-2.7): writing windows 2,136 vs 1,947-1,987
 * req/s, fewer worker gaps over 50 ms (4.2-4.6 vs 5.8-6.9 per window), write tasks done no later: the
 * batch ends sooner, so fewer searches run on a half-written batch whose words the next slice stales.
 * A search waits for a slice at most about this long.
 */
export const WRITE_SLICE_MS = 8;
/** How a write batch is cut by its yield points (writeBatch): every `sliceMs` of writing, and with `fairShare` at least as long as the last yield took. */
export interface WriteSlicing { sliceMs: number; fairShare: boolean }
/** The worker's: tests pass { sliceMs: 0, fairShare: false } to yield after every group, whatever the machine's speed. */
const WRITE_SLICING: WriteSlicing = Object.freeze({ sliceMs: WRITE_SLICE_MS, fairShare: true });
/** Documents written between two looks at the clock (a few dozen microseconds each). */
const WRITE_GROUP = 32;
/**
 * A write batch of more documents than this drops the shard's caches whole before it writes, instead of
 * each entry being checked against it when next read (ShardCaches.holds): with 1,000 npm rows a second
 * most entries went stale anyway, and the checks cost more than deriving again (bench mixed phase,
 * searches under writes: 1,843 / 1,275 req/s checked, 2,547 / 2,278 dropped whole; DECISIONS).
 */
const WHOLE_DROP_WRITES = 64;

/** Committed documents of an index, by internal id (LMDB in the worker, a Map in tests). */
export interface DocumentSource {
  get(indexUid: string, docId: number): JsonDocument | undefined;
}

export interface EngineSearch {
  indexUid: string;
  shards: readonly number[];
  q: string | null;
  hitsWanted: number;
  matchingStrategy: MatchingStrategyName;
  /** Shaping options of the query (sort, filter... as the front sends them). */
  options?: ShardSearchOptions;
  /** Page mode: with rankingScoreThreshold, up to maxTotalHits hits are ranked so the count is exact. */
  exhaustiveCount?: boolean;
}

export interface EngineSearchResult {
  candidates: number;
  hits: PlannedHit[];
  /** Facet partials and distinct keys for the front (shaped-search.ts). */
  extras: ShardExtras | null;
  /** Which score entries are ranking rules' (not sort criteria's); null = all. */
  rankingEntries: boolean[] | null;
  /** Meilisearch's scores of the hits (score-details.ts); null when no shard was searched. */
  scorePlan: (() => ScorePlan) | null;
}

interface IndexState {
  config: IndexConfig;
  shardCount: number;
  shards: Map<number, ShardIndex>;
  /** Several shards: the split work of its searches, between writes (search/split-decider.ts). */
  splitMemo: SplitMemo;
}

/**
 * A query batch this full means searches are queued: building everything at once then gets through
 * them sooner than their slow paths do. At 1M documents, right after a bulk load under 16
 * connections, the slow paths answered 274-788 searches in the first 25 s, the build at once 4,001
 * (none in the first 15 s). A lighter load keeps the slow paths: its searches are answered meanwhile.
 */
export const BUILD_AT_ONCE_FROM_QUERIES = 8;

/**
 * The longest slice of a pre-commit build (ShardEngine.prepareIndexBeforeCommit) before a query
 * batch: searches during writes wait for it at most this long (a build at once under 64 connections
 * held them ~900 ms at 100,000 documents).
 */
export const PRE_COMMIT_MAX_SLICE_MS = 8;

export class ShardEngine {
  private readonly indexes = new Map<string, IndexState>();
  /** Shards whose stale structures a PrepareSearch builds in slices (query batches then neither build them at once nor queue another build). */
  private readonly preparingBeforeCommit = new Set<ShardIndex>();
  /**
   * Built shards that writes made stale (writeBatch): rebuilt in slices of at most
   * PRE_COMMIT_MAX_SLICE_MS between query batches, never at once by a full query batch (prepareStaleShards).
   */
  private readonly rebuildsDue = new Set<ShardIndex>();

  /**
   * `documents`: the committed documents, read when attributesToSearchOn needs a document's field names (field-restriction.ts).
   * `buildHelper`: where the sliced builds of a large shard send part of their work (the build helper thread); null: all built here.
   */
  constructor(readonly workerIndex = 0, readonly workerCount = 1, private readonly documents: DocumentSource | null = null,
    private readonly buildHelper: BuildHelperClient | null = null) {}

  hasIndex(indexUid: string): boolean {
    return this.indexes.has(indexUid);
  }

  /**
   * (Re)builds this worker's shards of the index from its documents (each [docId, document]).
   * `restore` may give a shard ready-made (a snapshot); it is asked for every shard before the
   * documents are read, and documents of restored shards are ignored.
   */
  loadIndex(indexUid: string, shardCount: number, settings: Partial<IndexSettings> | null,
    documents: Iterable<[number, JsonDocument]>, restore?: (shard: number, config: IndexConfig) => ShardIndex | null): void {
    const config = compileIndexConfig(settings);
    shardCount = Math.max(1, shardCount);
    const shards = new Map<number, ShardIndex>();
    const rebuilt = new Map<number, ShardIndex>();
    for (const shard of shardsOwnedBy(this.workerIndex, shardCount, this.workerCount)) {
      const restored = restore?.(shard, config) ?? null;
      shards.set(shard, restored ?? new ShardIndex(config));
      if (!restored) rebuilt.set(shard, shards.get(shard)!);
    }
    for (const [docId, document] of documents) rebuilt.get(docId % shardCount)?.upsert(docId, document);
    for (const shard of rebuilt.values()) shard.trim();
    this.forgetShardsOf(indexUid);
    this.indexes.set(indexUid, { config, shardCount, shards, splitMemo: new SplitMemo() });
  }

  /**
   * Only search-time settings changed (settings/search-time-settings.ts): the index's compiled settings are
   * replaced and its shards kept, nothing rebuilt. False when the index is not loaded here with this shard
   * count: the caller then loads it whole.
   */
  replaceSearchTimeSettings(indexUid: string, shardCount: number, settings: Partial<IndexSettings> | null): boolean {
    const state = this.indexes.get(indexUid);
    if (!state || state.shardCount !== Math.max(1, shardCount)) return false;
    const config = compileIndexConfig(settings);
    for (const shard of state.shards.values()) shard.adoptSearchTimeSettings(config);
    this.indexes.set(indexUid, { ...state, config });
    return true;
  }

  /** Uids of the loaded indexes. */
  indexUids(): string[] {
    return [...this.indexes.keys()];
  }

  /** A loaded index's settings, shard count and this worker's shards of it (read-only use: snapshots). */
  loadedIndex(indexUid: string): { readonly config: IndexConfig; readonly shardCount: number; readonly shards: ReadonlyMap<number, ShardIndex> } | undefined {
    return this.indexes.get(indexUid);
  }

  /** The compiled settings of a loaded index (what hit formatting consults). */
  configOf(indexUid: string): IndexConfig | undefined {
    return this.indexes.get(indexUid)?.config;
  }

  dropIndex(indexUid: string): void {
    this.forgetShardsOf(indexUid);
    this.indexes.delete(indexUid);
  }

  /** The index's shards leave the rebuilds due (a load replaces them, a drop ends them). */
  private forgetShardsOf(indexUid: string): void {
    for (const shard of this.indexes.get(indexUid)?.shards.values() ?? []) this.rebuildsDue.delete(shard);
  }

  /**
   * Applies upserts/deletes to one shard. An index first seen here (created by the same task
   * batch that adds its documents) starts with default settings until a LoadIndex says otherwise.
   * `yieldPoint`: called after every WRITE_SLICE_MS of writing, or as long as the previous yield took
   * if longer (worker.ts: answers the searches waiting meanwhile, for a bounded time), between groups
   * of documents, so a search waits for a slice of a write, not its whole batch, and the write keeps
   * half the thread; a search sees each document of the batch either old or new.
   */
  writeBatch(indexUid: string, shard: number, ops: readonly DocumentOpMessage[], yieldPoint: (() => void) | null = null,
    slicing: WriteSlicing = WRITE_SLICING): void {
    const target = this.shard(indexUid, shard);
    const splitMemo = this.indexes.get(indexUid)!.splitMemo;
    splitMemo.clear();
    target.previousRecentDocuments = target.recentDocuments;
    target.recentDocuments = new Map();
    if (ops.length > WHOLE_DROP_WRITES) target.dropCachesForBatch();
    // A shard built before the batch: a rebuild the batch makes due is deferred (searches at its yield
    // points and after it read the documents written since instead of building it at once: 0.7-0.9 s
    // inside one search every ~12 s under 1,000 npm rows a second at 100,000); the worker then builds it
    // in slices (prepareStaleShards, `rebuildsDue`).
    const built = yieldPoint !== null && target.documentCount > 0 && !target.needsPreparing;
    if (built && !this.preparingBeforeCommit.has(target)) target.deferBuilds(true);
    let sliceEnd = yieldPoint === null ? Infinity : performance.now() + slicing.sliceMs;
    for (let start = 0; start < ops.length; start += WRITE_GROUP) {
      const end = Math.min(ops.length, start + WRITE_GROUP);
      // A group's old versions go first, so (with the scheduler's one op per document) no removal below
      // has to wait on the group's buffered additions; applying in order afterwards keeps any op list exact.
      for (let k = start; k < end; k++) target.delete(ops[k]!.docId);
      for (let k = start; k < end; k++) {
        const op = ops[k]!;
        if (op.kind === 'delete') {
          target.delete(op.docId);
          continue;
        }
        // Read once: a decoded write batch decodes the text from the message on each read.
        const text = op.document;
        target.upsert(op.docId, JSON.parse(text) as JsonDocument);
        if (target.recentDocuments.size < RECENT_DOCUMENTS_LIMIT) target.recentDocuments.set(op.docId, text);
      }
      if (end < ops.length && performance.now() >= sliceEnd) {
        const yielded = performance.now();
        splitMemo.clear();
        yieldPoint!();
        // The next slice writes at least as long as the searches just took (a batch of them may run
        // past the yield point's bound): under a steady search load the write keeps half the thread.
        const now = performance.now();
        sliceEnd = now + (slicing.fairShare ? Math.max(slicing.sliceMs, now - yielded) : slicing.sliceMs);
      }
    }
    target.flushWrites();
    splitMemo.clear();
    if (built) {
      if (target.needsPreparing) this.rebuildsDue.add(target);
      else if (!this.preparingBeforeCommit.has(target)) target.deferBuilds(false);
    }
  }

  /** Makes the shard agree with the committed documents again (the rollback path). */
  reloadDocuments(indexUid: string, shard: number, docIds: readonly number[], source: DocumentSource): void {
    const target = this.shard(indexUid, shard);
    this.indexes.get(indexUid)!.splitMemo.clear();
    target.recentDocuments = new Map();
    target.previousRecentDocuments = new Map();
    for (const docId of docIds) {
      const document = source.get(indexUid, docId);
      if (document === undefined) target.delete(docId);
      else target.upsert(docId, document);
    }
    target.flushWrites();
  }

  /**
   * Builds the shards' stale search structures (a bulk load leaves them stale) before a query batch
   * of `queriesWaiting` searches (0: at quiet time). A light load gets them built in the background,
   * its searches taking the per-document paths meanwhile (ShardIndex.deferBuilds) and answered without
   * waiting for the whole build; a batch of BUILD_AT_ONCE_FROM_QUERIES or more builds them at once.
   */
  prepareStaleShards(background: SlicedJobs, queriesWaiting: number): void {
    for (const shard of this.allShards()) {
      if (!shard.needsPreparing || this.preparingBeforeCommit.has(shard)) {
        this.rebuildsDue.delete(shard);
        // The lexicon's deletion index alone (a shard restored from a file saved before its build has none): in slices, never at once.
        if (!shard.needsPreparing && shard.lexiconIndexDue) background.enqueue(shard, () => shard.prepareSteps(this.buildHelper));
        continue;
      }
      if (this.rebuildsDue.has(shard)) {
        // Built before, and what is stale still answers (reading the documents written since): in slices,
        // never at once, however many queries wait.
        if (background.has(shard)) continue;
        shard.deferBuilds(true);
        background.enqueue(shard, () => shard.prepareSteps(this.buildHelper), {
          catchUp: true, maxSliceMs: PRE_COMMIT_MAX_SLICE_MS,
          onLeave: () => {
            this.rebuildsDue.delete(shard);
            shard.deferBuilds(false);
          },
        });
        continue;
      }
      if (queriesWaiting >= BUILD_AT_ONCE_FROM_QUERIES) {
        // The sliced build, if queued, stops at its next step: nothing is stale any more.
        shard.deferBuilds(false);
        shard.prepareForSearch();
        continue;
      }
      if (background.has(shard)) continue;
      shard.deferBuilds(true);
      background.enqueue(shard, () => shard.prepareSteps(this.buildHelper), { catchUp: true, onLeave: () => shard.deferBuilds(false) });
    }
  }

  /**
   * Builds the index's stale search structures before its batch commits (PrepareSearch: the
   * scheduler's last batch before an empty queue), so its tasks succeed with the index answering at
   * full speed; resolves once built (or cancelled by a load or drop). In slices: back to back when
   * no search comes, and before each query batch at most PRE_COMMIT_MAX_SLICE_MS when searches do
   * (they take the deferred paths meanwhile, never waiting for a whole build).
   */
  prepareIndexBeforeCommit(indexUid: string, background: SlicedJobs): Promise<void> {
    const state = this.indexes.get(indexUid);
    if (!state) return Promise.resolve();
    const built: Promise<void>[] = [];
    for (const shard of state.shards.values()) {
      if (!shard.needsPreparing) continue;
      // A sliced build queued by a query batch makes way (it would build the same, with longer slices).
      background.cancel(shard);
      shard.deferBuilds(true);
      this.preparingBeforeCommit.add(shard);
      built.push(new Promise((resolve) => background.enqueue(shard, () => shard.prepareSteps(this.buildHelper), {
        catchUp: true, maxSliceMs: PRE_COMMIT_MAX_SLICE_MS,
        onLeave: () => {
          this.preparingBeforeCommit.delete(shard);
          shard.deferBuilds(false);
          resolve();
        },
      })));
    }
    return Promise.all(built).then(() => {});
  }

  /** ShardIndex.prepareForSearch on every shard of the worker. */
  prepareForSearch(): void {
    for (const shard of this.allShards()) shard.prepareForSearch();
  }

  /**
   * Frees the bitmaps of derivations the shards' caches let go of (ShardCaches.releaseRetired) until
   * `deadline` (performance.now()); only with no search running on this thread. Whether some are left.
   */
  releaseRetired(deadline: number): boolean {
    let left = false;
    for (const shard of this.allShards()) {
      if (shard.caches.retiredCount === 0) continue;
      left = shard.caches.releaseRetired(deadline) || left;
      if (performance.now() >= deadline) return true;
    }
    return left;
  }

  /** Every shard of every loaded index. */
  *allShards(): Generator<ShardIndex> {
    for (const state of this.indexes.values()) yield* state.shards.values();
  }

  /**
   * `interleave`: what the search's yield points run (worker.ts: the searches that arrived meanwhile).
   * The index's searchCutoffMs bounds the whole search (filter, ranking, sort, distinct, facets), from
   * its start here: a search may stop short of it when another's yield point is running it.
   */
  search(query: EngineSearch, interleave: Interleave | null = null): EngineSearchResult {
    const state = this.indexes.get(query.indexUid);
    if (!state) throw new SkeinError('index_not_found', `Index \`${query.indexUid}\` not found.`);
    const budget = new SearchBudget(Date.now() + state.config.searchCutoffMs, interleave,
      // Light or heavy, a search yields every SLICE_MS: its batch-mates answer at the first (worker.ts
      // NestedBatches), the batches waiting in the port once it has run its slice (LIGHT_SLICE_MS when light).
      SLICE_MS);
    const shards = mapPacked(query.shards, (shard) => state.shards.get(shard)).filter((shard): shard is ShardIndex => shard !== undefined);
    // matchingStrategy frequency over several shards (front/search/search-dispatcher.ts): first the terms' counts, then the search with their sums.
    const fieldRestriction = this.fieldRestrictionOf(query, state.config, shards);
    // Several shards: each query word's split over the whole index (protocol/split-choice.ts); one shard chooses its own.
    const splits = state.shardCount > 1 && query.q ? new SplitDecider(shards, query.options?.splitChoices, query.options?.splitChoicesFinal === true,
      query.shards.length >= state.shardCount, state.splitMemo) : null;
    if (query.options?.termDocCountsOnly === true) return withSplitCounts(termDocCountsOfShards(shards, query.q ?? '', budget, fieldRestriction, splits), splits);
    const termDocCounts = query.options?.termDocCounts;
    const distinctFacets = query.options?.distinctFacets;
    // Named by the engine's key (the storage key): the front names the index by its uid (front/index-scoped-errors.ts).
    const plan = compileSearchPlan(state.config.settings, query.options, query.indexUid);
    budget.yieldPoint();
    const rankingScoreThreshold = query.options?.rankingScoreThreshold ?? null;
    // Meilisearch ranks up to maxTotalHits documents to count those above the threshold exactly in page mode.
    const hitsWanted = rankingScoreThreshold !== null && query.exhaustiveCount === true
      ? Math.max(query.hitsWanted, state.config.settings.pagination.maxTotalHits) : query.hitsWanted;
    // This worker holds every shard of the index, and no other node adds counts: its merged counts are the index's.
    const whole = query.options?.networked !== true && query.shards.length >= state.shardCount;
    const result = searchShards(shards, plan, {
      q: query.q, hitsWanted, matchingStrategy: query.matchingStrategy, budget, rankingScoreThreshold, fieldRestriction,
      facetStringsOnly: query.options?.facetStringsOnly === true,
      ...(query.options?.facetQuery ? { facetValueFilter: facetValueFilterOf(query.options.facetQuery) } : {}),
      ...(query.options?.facetCut ? { facetCut: facetCutOf(query.options.facetCut, whole) } : {}),
      wholeIndex: whole,
      ...(query.options?.countCap !== undefined ? { countCap: query.options.countCap } : {}),
      ...(termDocCounts !== undefined ? { termDocCounts } : {}),
      ...(distinctFacets === 'mins' ? { distinctFacets: 'mins' as const } : distinctFacets !== undefined ? { distinctFacets: new Set(distinctFacets) } : {}),
      splits,
    });
    if (result.hits.length > query.hitsWanted) result.hits.length = query.hitsWanted;
    return withSplitCounts(result, splits);
  }


  /** The search's attributesToSearchOn for its shards (null: every searchable field); documents read latest write first. */
  private fieldRestrictionOf(query: EngineSearch, config: IndexConfig, shards: readonly ShardIndex[]): FieldRestriction | null {
    if (!query.q) return null;
    const source = this.documents;
    const documentOf = (docId: number): JsonDocument | undefined => {
      const recent = this.recentDocument(query.indexUid, docId);
      return recent !== undefined ? (JSON.parse(recent) as JsonDocument) : source?.get(query.indexUid, docId);
    };
    // A rank's fields are named by its selector when they are in every shard searched.
    const namedByRank = (rank: number) => shards.every((shard) => shard.fieldNamedByRank(rank));
    // With `*`: a rank's one name over the shards searched (null: several, or not known).
    const nameByRank = (rank: number): string | null => {
      let name: string | undefined;
      for (const shard of shards) {
        const own = shard.nameAtRank(rank);
        if (own === null || (own !== undefined && name !== undefined && own !== name)) return null;
        name ??= own;
      }
      return name ?? null;
    };
    return FieldRestriction.of(query.options?.attributesToSearchOn, config.settings.searchableAttributes, config.analysis, documentOf, namedByRank, nameByRank);
  }

  /**
   * The index's shards now equal LMDB (IndexCommitted, sent only when no write is ahead of the
   * commit): hits are read from LMDB again, and the batches' documents kept for them go.
   */
  forgetRecentDocuments(indexUid: string): void {
    const state = this.indexes.get(indexUid);
    if (!state) return;
    for (const shard of state.shards.values()) {
      if (shard.recentDocuments.size > 0) shard.recentDocuments = new Map();
      if (shard.previousRecentDocuments.size > 0) shard.previousRecentDocuments = new Map();
    }
  }

  /** JSON of a document written by the latest two write batches of its shard (maybe not committed yet). */
  recentDocument(indexUid: string, docId: number): string | undefined {
    const state = this.indexes.get(indexUid);
    if (!state) return undefined;
    for (const shard of state.shards.values()) {
      const text = shard.recentDocuments.get(docId) ?? shard.previousRecentDocuments.get(docId);
      if (text !== undefined) return text;
    }
    return undefined;
  }

  /** The shard, created empty when unknown (new index, or a shard this worker never held). */
  shard(indexUid: string, shard: number): ShardIndex {
    let state = this.indexes.get(indexUid);
    if (!state) {
      state = { config: compileIndexConfig(null), shardCount: 0, shards: new Map(), splitMemo: new SplitMemo() };
      this.indexes.set(indexUid, state);
    }
    let target = state.shards.get(shard);
    if (!target) {
      target = new ShardIndex(state.config);
      state.shards.set(shard, target);
    }
    return target;
  }
}

/** The search's answer, or with splits left undecided (split-decider.ts) only their counts: the front asks again with its choices. */
function withSplitCounts(result: EngineSearchResult, splits: SplitDecider | null): EngineSearchResult {
  if (splits?.undecided == null) return result;
  return { candidates: 0, hits: [], extras: { splitCounts: splits.undecided }, rankingEntries: null, scorePlan: null };
}

/** The index's facet orders as the front shapes the distribution (ShardSearchOptions.facetCut). */
function facetCutOf(option: FacetCutOption, whole: boolean): FacetCut {
  return { maxValues: option[0], orderOf: (facet) => facetOrderIn(option, facet), whole };
}

/** Facet search's facetQuery as the front matches values (the same matcher, from the same rules). */
function facetValueFilterOf(option: FacetQueryOption): (value: string) => boolean {
  const { query, typos } = facetQueryOf(option);
  return facetQueryMatcher(query, typos);
}
