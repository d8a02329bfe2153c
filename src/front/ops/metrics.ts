// GET /metrics (Prometheus text): one prom-client Registry per server, owned by ServerMetrics (never
// prom-client's global registry). Meilisearch's metric names and labels where Skein has the thing
// they measure (crates/meilisearch/src/metrics.rs), then Skein's own (skein_*). Everything is read at
// scrape time (collect callbacks) from its owner: the request tallies below, the dispatcher's
// DispatchStats, the stored-document cache's counters, the supervisor's restart counts, LMDB.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Gauge, Registry } from 'prom-client';
import type { Storage } from '../../storage/environment.js';
import { PROCESSING_INDEX_UIDS } from '../../storage/meta-keys.js';
import { TASK_STATUSES, TASK_TYPES, type TaskRecord } from '../../tasks/task-record.js';
import type { IndexCatalog } from '../indexes/index-catalog.js';
import type { SearchDispatcher } from '../search/search-dispatcher.js';
import type { StoredDocumentCache } from '../indexes/stored-document-cache.js';
import { BATCH_TIME_BUCKETS, HTTP_RESPONSE_TIME_BUCKETS, Tally } from './tally.js';

/** Meilisearch's Content-Type for the scrape (text format 0.0.4). */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The `path` label of requests no route matched: a fixed value, so random paths cannot grow the label set without bound. */
export const UNMATCHED_PATH_LABEL = 'unmatched';
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);

/** One (method, route pattern) pair: its answers by status and its response times. */
export interface RequestSlot {
  readonly method: string;
  readonly path: string;
  readonly statuses: Map<number, number>;
  readonly time: Tally;
}

/**
 * The per-request record (http-server.ts calls `recordAnswer` once per answer). A slot per route object,
 * found by identity; unmatched requests share a slot per method. Cost: a Map lookup, a status
 * count, a histogram slot.
 */
export class RequestTally {
  private readonly byRoute = new Map<object, RequestSlot>();
  private readonly unmatched = new Map<string, RequestSlot>();

  /** `route`: the matched route (its pattern is `path`); null for 404/405 answers. */
  slotFor(route: { method: string; path: string } | null, method: string): RequestSlot {
    if (route !== null) {
      let slot = this.byRoute.get(route);
      if (slot === undefined) this.byRoute.set(route, slot = newSlot(route.method, meilisearchPattern(route.path)));
      return slot;
    }
    const label = KNOWN_METHODS.has(method) ? method : 'OTHER';
    let slot = this.unmatched.get(label);
    if (slot === undefined) this.unmatched.set(label, slot = newSlot(label, UNMATCHED_PATH_LABEL));
    return slot;
  }

  *slots(): Iterable<RequestSlot> {
    yield* this.byRoute.values();
    yield* this.unmatched.values();
  }
}

/** One answer of the slot's route: its status and the time from the request's arrival to its answer. */
export function recordAnswer(slot: RequestSlot, status: number, seconds: number): void {
  slot.statuses.set(status, (slot.statuses.get(status) ?? 0) + 1);
  slot.time.observe(seconds);
}

function newSlot(method: string, path: string): RequestSlot {
  return { method, path, statuses: new Map(), time: new Tally(HTTP_RESPONSE_TIME_BUCKETS) };
}

/** Skein's `{indexUid}` parameters under the names of Meilisearch's actix patterns, so dashboards match. */
const MEILISEARCH_PARAMETER_NAMES: Record<string, string> = { indexUid: 'index_uid', documentId: 'document_id', taskUid: 'task_id', key: 'key' };

export function meilisearchPattern(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => `{${MEILISEARCH_PARAMETER_NAMES[name] ?? name}}`);
}

/** What the scrape reads; each is owned elsewhere. */
export interface MetricsSources {
  storage: Storage;
  indexes: IndexCatalog;
  search: SearchDispatcher;
  storedDocuments: StoredDocumentCache;
  /** Restarts by thread name (worker-supervisor.ts). */
  restartCounts: ReadonlyMap<string, number>;
}

export class ServerMetrics {
  readonly requests = new RequestTally();
  /** Made at the first scrape: prom-client's ~125 ms of module loading stays off the start (a restart's way to its first answer). */
  private registryMade: Promise<Registry> | null = null;

  constructor(private readonly sources: MetricsSources) {}

  private async makeRegistry(): Promise<Registry> {
    const { Counter, Gauge, Registry } = await import('prom-client');
    const registry = new Registry();
    const sources = this.sources;
    const registers = [registry];
    const { requests } = this;
    const tasks = () => this.scrapeCounts ??= countTasks(sources.storage);
    new Counter({
      name: 'meilisearch_http_requests_total', help: 'Meilisearch HTTP requests total', labelNames: ['method', 'path', 'status'], registers,
      collect() {
        this.reset();
        for (const slot of requests.slots()) {
          for (const [status, count] of slot.statuses) this.inc({ method: slot.method, path: slot.path, status: String(status) }, count);
        }
      },
    });
    registry.registerMetric(tallyHistogram('meilisearch_http_response_time_seconds', 'Meilisearch HTTP response times',
      () => [...requests.slots()].map((slot) => ({ labels: { method: slot.method, path: slot.path }, tally: slot.time }))));
    const gauge = (name: string, help: string, collect: (this: Gauge) => void, labelNames: string[] = []) =>
      new Gauge({ name, help, labelNames, registers, collect() { collect.call(this); } });

    gauge('meilisearch_db_size_bytes', 'Meilisearch DB Size In Bytes', function () { this.set(fileSize(sources.storage)); });
    gauge('meilisearch_used_db_size_bytes', 'Meilisearch Used DB Size In Bytes', function () { this.set(usedSize(sources.storage)); });
    gauge('meilisearch_index_count', 'Meilisearch Index Count', function () { this.set(sources.indexes.list().length); });
    gauge('meilisearch_index_docs_count', 'Meilisearch Index Docs Count', function () {
      this.reset();
      for (const index of sources.indexes.list()) this.set({ index: index.uid }, index.documentCount);
    }, ['index']);
    gauge('meilisearch_last_update', 'Meilisearch Last Update', function () {
      this.reset();
      let last = '';
      for (const index of sources.indexes.list()) if (index.updatedAt > last) last = index.updatedAt;
      if (last !== '') this.set(Math.floor(Date.parse(last) / 1000));
    });
    gauge('meilisearch_is_indexing', 'Meilisearch Is Indexing', function () {
      const processing = JSON.parse(String(sources.storage.meta.get(PROCESSING_INDEX_UIDS) ?? '[]')) as string[];
      this.set(processing.length > 0 ? 1 : 0);
    });
    gauge('meilisearch_nb_tasks', 'Meilisearch Number of tasks', function () {
      this.reset();
      const counts = tasks();
      for (const [kind, values] of Object.entries(counts.byKind)) {
        for (const [value, count] of values) this.set({ kind, value }, count);
      }
    }, ['kind', 'value']);
    gauge('meilisearch_task_queue_latency_seconds', 'Meilisearch Task Queue Latency in Seconds', function () {
      const oldest = tasks().oldestUnfinishedAt;
      this.set(oldest === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
    });
    gauge('meilisearch_search_queue_size', 'Meilisearch Search Queue Size', function () { this.set(sources.search.maxQueuedSearches); });
    gauge('meilisearch_searches_running', 'Meilisearch Searches Running', function () {
      let running = 0;
      for (let worker = 0; worker < sources.search.workerCount; worker++) running += sources.search.inFlightFor(worker);
      this.set(running);
    });
    gauge('meilisearch_searches_waiting_to_be_processed', 'Meilisearch Searches Being Processed', function () { this.set(sources.search.queuedCount); });

    // Skein's own.
    gauge('skein_shard_worker_queued_searches', 'Searches queued on the front for a shard worker, not yet sent', function () {
      for (let worker = 0; worker < sources.search.workerCount; worker++) this.set({ worker: String(worker) }, sources.search.queuedFor(worker));
    }, ['worker']);
    gauge('skein_shard_worker_searches_in_flight', 'Searches sent to a shard worker and not answered yet', function () {
      for (let worker = 0; worker < sources.search.workerCount; worker++) this.set({ worker: String(worker) }, sources.search.inFlightFor(worker));
    }, ['worker']);
    registry.registerMetric(tallyHistogram('skein_shard_worker_batch_seconds', 'Time from sending a query batch to a shard worker to its answer',
      () => sources.search.stats.batchSeconds.map((tally, worker) => ({ labels: { worker: String(worker) }, tally }))));
    registry.registerMetric(tallyHistogram('skein_query_batch_size', 'Searches per query batch sent to a shard worker',
      () => [{ labels: {}, tally: sources.search.stats.batchSizes }]));
    new Counter({
      name: 'skein_searches_refused_total', help: 'Searches refused with too_many_search_requests (the queue bound)', registers,
      collect() { this.reset(); this.inc(sources.search.stats.refused); },
    });
    new Counter({
      name: 'skein_thread_restarts_total', help: 'Thread replacements started after a thread died, by thread', labelNames: ['thread'], registers,
      collect() {
        this.reset();
        for (const [thread, count] of sources.restartCounts) this.inc({ thread }, count);
      },
    });
    gauge('skein_stored_document_cache_bytes', "Bytes of stored documents held by the front's cache", function () { this.set(sources.storedDocuments.totalBytes); });
    gauge('skein_stored_document_cache_entries', "Documents held by the front's cache (both generations)", function () { this.set(sources.storedDocuments.documentCount); });
    new Counter({
      name: 'skein_stored_document_cache_hits_total', help: "Hits read from the front's stored-document cache", registers,
      collect() { this.reset(); this.inc(sources.storedDocuments.hits); },
    });
    new Counter({
      name: 'skein_stored_document_cache_misses_total', help: "Hits read from LMDB (not in the front's stored-document cache)", registers,
      collect() { this.reset(); this.inc(sources.storedDocuments.misses); },
    });
    gauge('skein_stored_document_cache_hit_ratio', "Share of hit reads the front's cache answered since start", function () {
      const { hits, misses } = sources.storedDocuments;
      this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
    });
    return registry;
  }

  /** Task counts are read once per scrape, for two metrics. */
  private scrapeCounts: TaskCounts | null = null;

  /** The scrape, in Prometheus' text format. */
  async scrape(): Promise<string> {
    const registry = await (this.registryMade ??= this.makeRegistry());
    this.scrapeCounts = null;
    try {
      return await registry.metrics();
    } finally {
      this.scrapeCounts = null;
    }
  }
}

interface TaskCounts {
  byKind: Record<'statuses' | 'types' | 'indexes', Map<string, number>>;
  oldestUnfinishedAt: string | null;
}

/** A walk of every task (Meilisearch reads bitmaps; Skein has no task index by status yet): O(tasks) per scrape. */
function countTasks(storage: Storage): TaskCounts {
  const statuses = new Map<string, number>(TASK_STATUSES.map((status) => [status, 0]));
  const types = new Map<string, number>(TASK_TYPES.map((type) => [type, 0]));
  const indexes = new Map<string, number>();
  let oldestUnfinishedAt: string | null = null;
  for (const { value } of storage.tasks.getRange({})) {
    const task = value as TaskRecord;
    statuses.set(task.status, (statuses.get(task.status) ?? 0) + 1);
    types.set(task.type, (types.get(task.type) ?? 0) + 1);
    if (task.indexUid !== null) indexes.set(task.indexUid, (indexes.get(task.indexUid) ?? 0) + 1);
    // Tasks are in uid order: the first unfinished one is the oldest.
    if (oldestUnfinishedAt === null && (task.status === 'enqueued' || task.status === 'processing')) oldestUnfinishedAt = task.enqueuedAt;
  }
  return { byKind: { indexes, statuses, types }, oldestUnfinishedAt };
}

function fileSize(storage: Storage): number {
  try {
    return statSync(join(storage.dbPath, 'lmdb', 'data.mdb')).size;
  } catch {
    return 0;
  }
}

/** Pages LMDB has handed out (up to its last page), in bytes; never more than the file. */
function usedSize(storage: Storage): number {
  const stats = storage.root.getStats() as { pageSize?: number; lastPageNumber?: number };
  if (typeof stats.pageSize !== 'number' || typeof stats.lastPageNumber !== 'number') return fileSize(storage);
  return Math.min((stats.lastPageNumber + 1) * stats.pageSize, fileSize(storage) || Infinity);
}

/**
 * A histogram metric for prom-client's Registry, read from Tallies: prom-client's Histogram can only
 * be fed by observe(), which the hot path does not call. Same value shape as its Histogram#get().
 */
function tallyHistogram(name: string, help: string, series: () => Array<{ labels: Record<string, string>; tally: Tally }>) {
  return {
    name, help, type: 'histogram' as const, aggregator: 'sum' as const,
    get() {
      const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
      for (const { labels, tally } of series()) {
        let cumulative = 0;
        tally.bounds.forEach((bound, slot) => {
          cumulative += tally.counts[slot]!;
          values.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push({ labels: { ...labels, le: '+Inf' }, value: tally.count, metricName: `${name}_bucket` });
        values.push({ labels, value: tally.sum, metricName: `${name}_sum` });
        values.push({ labels, value: tally.count, metricName: `${name}_count` });
      }
      return Promise.resolve({ name, help, type: 'histogram', aggregator: 'sum', values });
    },
    // The registry's bookkeeping calls these on its metrics.
    reset() {},
  } as unknown as Parameters<Registry['registerMetric']>[0];
}
