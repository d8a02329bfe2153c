// The hot path's fan-out: queries are queued per shard worker and flushed once per event-loop turn
// as ONE QueryBatch message per worker, with at most MAX_BATCHES_IN_FLIGHT batches in flight per
// worker, of at most MAX_QUERIES_PER_BATCH queries. While a worker is busy its queue keeps growing,
// so under load each message carries many queries (a message per query costs ~8x more than the
// search itself). The second batch in flight waits in the worker's port: with one, the worker sat
// idle (19% of its time at 64 connections) while its answers crossed to the front, were delivered
// and the next batch came back. A shard held by several workers (replicas, when an index has fewer
// shards than there are workers) is searched by ONE of them (replica-choice.ts). Heavy searches
// (protocol/search-weight.ts) have queues and batches of their own, with MAX_BATCHES_IN_FLIGHT of each
// kind per worker: a light search never waits behind a heavy one of its batch, and a light batch is in
// the worker's port while heavy ones run, answered inside their yield points (shard/worker.ts).
import { SkeinError, fromBody } from '../../errors/index.js';
import { decodeQueryBatchResult, encodeQueryBatch } from '../../protocol/query-codec.js';
import { ReusedBuilder } from '../../protocol/flatbuffer-io.js';
import type { ShardQueryMessage, ShardQueryResultMessage } from '../../protocol/messages.js';
import { ownersOfShard } from '../../protocol/placement.js';
import { isHeavySearch } from '../../protocol/search-weight.js';
import { PendingTable } from './pending-table.js';
import { slowestWorkerMs } from './search-time.js';
import { SplitChoiceCache } from './split-choice-cache.js';
import { addSplitCounts, chooseSplits } from '../../protocol/split-choice.js';
import { chooseReplica, queryAffinity } from './replica-choice.js';
import { BATCH_SIZE_BUCKETS, BATCH_TIME_BUCKETS, Tally } from '../ops/tally.js';

/**
 * Sends one QueryBatch to one worker and resolves with its QueryBatchResult; `onPartial` gets results
 * the worker answers ahead of the rest (QueryBatchResults too: a long search's batch-mates).
 */
export type WorkerRunner = (batch: ArrayBuffer, onPartial?: (answer: ArrayBuffer) => void) => Promise<ArrayBuffer | Uint8Array>;

export type ShardQuery = Omit<ShardQueryMessage, 'requestId' | 'shards' | 'scoresWanted'>;

/** The largest `hitsWanted` a ShardQuery carries (uint32); more hits than that no shard holds. */
export const MAX_HITS_WANTED = 0xffffffff;

/** Batches sent to one worker and not yet answered: the one it works on, and the next. */
export const MAX_BATCHES_IN_FLIGHT = 2;
/**
 * A batch's answers all come back together, so an unbounded batch turns 64 connections into one
 * convoy: the worker idles while the front writes 64 responses, then the front idles while the
 * worker searches. Sixteen queries (~3 ms of search) keep both busy at once, and the message
 * costs (~50 µs per batch) stay under 2%. Measured at 64 connections: 4,126 q/s unbounded, 4,487
 * with 16, 4,492 with 8.
 */
export const MAX_QUERIES_PER_BATCH = 16;

/**
 * The message of one search for one worker, its fields copied one by one. Not `{ ...query }`: on
 * Node 20's V8 an object made by spread survives young-generation GCs it should not (a standalone
 * loop of short-lived spread copies kept ~1.5 MB alive per scavenge where Object.assign or a plain
 * literal kept 3 KB). Removed together with Piscina's per-task objects (query-port.ts), the front's
 * scavenge survivors at 64 connections went from ~1.14 to ~0.79 MB; the two were not measured apart.
 */
export function shardQuery(query: ShardQuery, requestId: number, shards: number[], scoresWanted: boolean): ShardQueryMessage {
  return {
    requestId,
    indexUid: query.indexUid,
    shards,
    q: query.q,
    // A 32-bit field in the message: offset + limit past it wrapped (2^32 asked for no hit at all).
    hitsWanted: Math.min(query.hitsWanted, MAX_HITS_WANTED),
    matchingStrategy: query.matchingStrategy,
    attributesToRetrieve: query.attributesToRetrieve,
    exhaustiveCount: query.exhaustiveCount,
    options: query.options,
    scoresWanted,
  };
}

/** A batch sent to a worker and not yet answered. */
interface BatchInFlight {
  size: number;
  heavy: boolean;
}

interface PendingSearch {
  remaining: number;
  results: ShardQueryResultMessage[];
  resolve: (results: ShardQueryResultMessage[]) => void;
  reject: (error: SkeinError) => void;
  failed: boolean;
}

/** What /metrics reports of the dispatch (metrics.ts), recorded once per batch, not per search. */
export class DispatchStats {
  /** Per worker: time from a batch's send to its answer. */
  readonly batchSeconds: Tally[];
  readonly batchSizes = new Tally(BATCH_SIZE_BUCKETS);
  /** Searches refused with too_many_search_requests. */
  refused = 0;

  constructor(workers: number) {
    this.batchSeconds = Array.from({ length: workers }, () => new Tally(BATCH_TIME_BUCKETS));
  }
}

export class SearchDispatcher {
  readonly stats: DispatchStats;
  /** Per worker: light searches queued. */
  private readonly queues: ShardQueryMessage[][];
  /** Per worker: heavy searches queued (isHeavySearch). */
  private readonly heavyQueues: ShardQueryMessage[][];
  /** Per worker: the batches sent and not yet answered, oldest (the one it works on) first. */
  private readonly inFlight: BatchInFlight[][];
  /** Queries of the batches waiting in a worker's port behind the one it works on: still queued, for the bound. */
  private waitingInPorts = 0;
  /** Per worker: queries of the batches it was sent and has not answered (what, with its queue, makes it busy). */
  private readonly inFlightQueries: number[];
  private readonly pending = new PendingTable<PendingSearch>();
  private nextRequestId = 1;
  /** Every batch is encoded in it (then copied out to the transferred buffer). */
  private readonly batchBuilder = new ReusedBuilder();
  private queued = 0;
  private flushScheduled = false;

  constructor(private readonly runners: WorkerRunner[], private readonly maxQueued: number,
    private readonly splitChoices = new SplitChoiceCache()) {
    this.queues = runners.map(() => []);
    this.heavyQueues = runners.map(() => []);
    this.inFlight = runners.map(() => []);
    this.inFlightQueries = runners.map(() => 0);
    this.stats = new DispatchStats(runners.length);
  }

  /**
   * One result per involved worker; rejects with the first shard error. matchingStrategy frequency
   * over several shards takes two rounds: the terms' document counts from every shard, then the
   * search with their sums, so every shard drops the same terms (ranking/rules/words.ts).
   */
  search(query: ShardQuery, shardCount: number, scoresWanted = false): Promise<ShardQueryResultMessage[]> {
    // A network search (src/network) counts terms over every shard group itself and sends the sums.
    const counted = query.options.termDocCounts !== undefined || query.options.termDocCountsOnly === true;
    if (query.matchingStrategy !== 'frequency' || !query.q || shardCount < 2 || counted) return this.dispatchSplit(query, shardCount, scoresWanted);
    const counting: ShardQuery = { indexUid: query.indexUid, q: query.q, hitsWanted: 0, matchingStrategy: query.matchingStrategy,
      attributesToRetrieve: null, exhaustiveCount: false, options: { termDocCountsOnly: true } };
    return this.dispatchSplit(counting, shardCount).then((results) => {
      const sums: number[] = [];
      for (const result of results) {
        const counts = result.extras?.termDocCounts ?? [];
        counts.forEach((count, term) => (sums[term] = (sums[term] ?? 0) + count));
      }
      // The counting round is part of the search (its time on the workers, ShardQueryResultMessage.searchMs).
      const countingMs = slowestWorkerMs(results) ?? 0;
      return this.dispatchSplit({ ...query, options: { ...query.options, termDocCounts: sums } }, shardCount, scoresWanted).then((answers) => {
        for (const answer of answers) if (answer.searchMs !== undefined) answer.searchMs += countingMs;
        return answers;
      });
    });
  }

  /**
   * An index of several shards takes each query word's split over the whole index (protocol/split-choice.ts):
   * the search carries the choices kept for its words (SplitChoiceCache); a worker not holding every
   * shard answers a word with split candidates and no choice by its counts (ShardExtras.splitCounts)
   * instead of hits, and the search goes again with the choices from every worker's sums, final (a word
   * without one takes none). One shard, or no word with a candidate: the one round as ever.
   */
  private dispatchSplit(query: ShardQuery, shardCount: number, forceScores = false): Promise<ShardQueryResultMessage[]> {
    if (shardCount < 2 || !query.q || query.options.splitChoicesFinal === true) return this.dispatch(query, shardCount, forceScores);
    const kept = this.splitChoices.choicesFor(query.indexUid, query.q);
    const generation = this.splitChoices.generation();
    const first = kept === null ? query : { ...query, options: { ...query.options, splitChoices: kept } };
    return this.dispatch(first, shardCount, forceScores).then((results) => {
      let sums: Map<string, Map<number, number>> | null = null;
      for (const result of results) {
        const counts = result.extras?.splitCounts;
        if (counts !== undefined) addSplitCounts(sums ??= new Map(), counts);
      }
      if (sums === null) return results;
      const choices = chooseSplits(sums);
      this.splitChoices.keep(query.indexUid, choices, generation);
      // The counting round is part of the search (its time on the workers).
      const countingMs = slowestWorkerMs(results) ?? 0;
      // Final: a word that gained a candidate meanwhile (a write in between) takes no split, on every shard alike.
      const options = { ...query.options, splitChoices: kept === null ? choices : [...kept, ...choices], splitChoicesFinal: true };
      return this.dispatch({ ...query, options }, shardCount, forceScores).then((answers) => {
        for (const answer of answers) if (answer.searchMs !== undefined) answer.searchMs += countingMs;
        return answers;
      });
    });
  }

  private dispatch(query: ShardQuery, shardCount: number, forceScores = false): Promise<ShardQueryResultMessage[]> {
    const waiting = this.queued + this.waitingInPorts;
    if (waiting >= this.maxQueued) {
      this.stats.refused++;
      return Promise.reject(SkeinError.withoutStack('too_many_search_requests',
        `Too many search requests running at the same time: ${waiting}. Retry after 10s.`));
    }
    const requestId = this.nextRequestId;
    this.nextRequestId = this.nextRequestId >= 0xffffffff ? 1 : this.nextRequestId + 1;
    const shardsByWorker = new Map<number, number[]>();
    let affinity = -1;
    for (let shard = 0; shard < shardCount; shard++) {
      const owners = ownersOfShard(shard, shardCount, this.runners.length);
      if (owners.length > 1 && affinity < 0) affinity = queryAffinity(query.q ?? '');
      const worker = owners.length === 1 ? owners[0]! : chooseReplica(owners, this.loadOf, affinity);
      const shards = shardsByWorker.get(worker);
      if (shards) shards.push(shard);
      else shardsByWorker.set(worker, [shard]);
    }
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { remaining: shardsByWorker.size, results: [], resolve, reject, failed: false });
      // One worker's hits need no merge, and so no scores.
      const scoresWanted = forceScores || shardsByWorker.size > 1;
      const queues = isHeavySearch(query.options) ? this.heavyQueues : this.queues;
      for (const [worker, shards] of shardsByWorker) {
        queues[worker]!.push(shardQuery(query, requestId, shards, scoresWanted));
        this.queued++;
      }
      this.scheduleFlush();
    });
  }

  /** Queries queued for the worker and in its batch in flight. */
  private readonly loadOf = (worker: number): number => this.queues[worker]!.length + this.heavyQueues[worker]!.length + this.inFlightQueries[worker]!;

  /** Searches accepted but not yet sent to a worker (the bound also counts those waiting in a worker's port). */
  get queuedCount(): number {
    return this.queued;
  }

  /** Per worker: searches queued for it, not yet sent (metrics). */
  queuedFor(worker: number): number {
    return this.queues[worker]!.length + this.heavyQueues[worker]!.length;
  }

  /** Per worker: searches of the batches it was sent and has not answered (metrics). */
  inFlightFor(worker: number): number {
    return this.inFlightQueries[worker]!;
  }

  get workerCount(): number {
    return this.runners.length;
  }

  /** The bound on searches waiting (maxQueuedSearches). */
  get maxQueuedSearches(): number {
    return this.maxQueued;
  }

  /** Rejects everything still waiting (server shutdown). */
  abortAll(): void {
    for (const queue of this.queues) queue.length = 0;
    for (const queue of this.heavyQueues) queue.length = 0;
    this.queued = 0;
    for (const [, search] of this.pending.drain()) {
      search.reject(new SkeinError('internal', 'The server is shutting down.'));
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      for (let worker = 0; worker < this.queues.length; worker++) this.flushWorker(worker);
    });
  }

  /** Sends batches while the worker has room for them (MAX_BATCHES_IN_FLIGHT of each kind). */
  private flushWorker(worker: number): void {
    for (const heavy of [false, true]) {
      const queues = heavy ? this.heavyQueues : this.queues;
      while (queues[worker]!.length > 0 && this.inFlightOfKind(worker, heavy) < MAX_BATCHES_IN_FLIGHT) this.sendBatch(worker, heavy);
    }
  }

  private inFlightOfKind(worker: number, heavy: boolean): number {
    let count = 0;
    for (const batch of this.inFlight[worker]!) if (batch.heavy === heavy) count++;
    return count;
  }

  private sendBatch(worker: number, heavy: boolean): void {
    const queues = heavy ? this.heavyQueues : this.queues;
    const waiting = queues[worker]!;
    const queue = waiting.length <= MAX_QUERIES_PER_BATCH ? waiting : waiting.splice(0, MAX_QUERIES_PER_BATCH);
    if (queue === waiting) queues[worker] = [];
    this.queued -= queue.length;
    let batch: ArrayBuffer;
    try {
      batch = encodeQueryBatch(queue, this.batchBuilder);
    } catch {
      // One query the codec cannot encode fails alone, never the others of its batch.
      const encodable = this.failUnencodable(queue);
      if (encodable.length === 0) return;
      return this.sendEncodable(worker, heavy, encodable, encodeQueryBatch(encodable));
    }
    this.sendEncodable(worker, heavy, queue, batch);
  }

  /** The queries that encode alone; each other one fails with its own error. */
  private failUnencodable(queue: ShardQueryMessage[]): ShardQueryMessage[] {
    return queue.filter((query) => {
      try {
        encodeQueryBatch([query]);
        return true;
      } catch (cause) {
        this.failQueries([query], new SkeinError('internal', `Could not encode a search for a shard worker: ${(cause as Error).message}`));
        return false;
      }
    });
  }

  private sendEncodable(worker: number, heavy: boolean, queue: ShardQueryMessage[], batch: ArrayBuffer): void {
    const inFlight = this.inFlight[worker]!;
    if (inFlight.length > 0) this.waitingInPorts += queue.length;
    const sent: BatchInFlight = { size: queue.length, heavy };
    inFlight.push(sent);
    this.inFlightQueries[worker]! += queue.length;
    this.stats.batchSizes.observe(queue.length);
    const sentAt = performance.now();
    // The worker is done with the batch (the oldest, or one it answered inside a running search) and
    // goes on with the next; what queued up meanwhile goes out before the answers are delivered
    // (delivering writes every response, time the worker would otherwise wait through).
    const batchDone = () => {
      const at = inFlight.indexOf(sent);
      if (at >= 0) inFlight.splice(at, 1);
      // The oldest done, the next is the one worked on (no longer waiting); a later one was counted as waiting.
      if (at === 0 && inFlight.length > 0) this.waitingInPorts -= inFlight[0]!.size;
      else if (at > 0) this.waitingInPorts -= sent.size;
      this.inFlightQueries[worker]! -= queue.length;
      this.stats.batchSeconds[worker]!.observe((performance.now() - sentAt) / 1000);
      this.flushWorker(worker);
    };
    // Results the worker sent ahead of the batch's answer (a long search's batch-mates).
    let answeredAhead: ShardQueryResultMessage[] = [];
    const onPartial = (partial: ArrayBuffer) => {
      const results = decodeQueryBatchResult(partial);
      answeredAhead = answeredAhead.concat(results);
      this.deliver(results);
    };
    this.runners[worker]!(batch, onPartial).then(
      (answer) => {
        batchDone();
        const results = decodeQueryBatchResult(answer);
        this.deliver(results);
        // A batch the worker could not read comes back without results: its searches fail, not hang.
        if (results.length + answeredAhead.length < queue.length) this.failUnanswered(queue, results.concat(answeredAhead));
      },
      (cause: unknown) => {
        batchDone();
        this.failQueries(queue, new SkeinError('internal', `A shard worker failed: ${(cause as Error)?.message ?? cause}`));
      },
    ).catch((cause: unknown) => this.failQueries(queue, new SkeinError('internal', String(cause))));
  }

  private deliver(results: ShardQueryResultMessage[]): void {
    for (const result of results) {
      const search = this.pending.get(result.requestId);
      if (!search) continue;
      if (result.error) {
        this.settleWithError(result.requestId, search, fromBody(result.error));
        continue;
      }
      search.results.push(result);
      if (--search.remaining === 0) {
        this.pending.delete(result.requestId);
        search.resolve(search.results);
      }
    }
  }

  private failUnanswered(queries: ShardQueryMessage[], results: ShardQueryResultMessage[]): void {
    const answered = new Set(results.map((result) => result.requestId));
    const error = new SkeinError('internal', 'A shard worker did not answer a search.');
    this.failQueries(queries.filter((query) => !answered.has(query.requestId)), error);
  }

  private failQueries(queries: ShardQueryMessage[], error: SkeinError): void {
    for (const query of queries) {
      const search = this.pending.get(query.requestId);
      if (search) this.settleWithError(query.requestId, search, error);
    }
  }

  private settleWithError(requestId: number, search: PendingSearch, error: SkeinError): void {
    this.pending.delete(requestId);
    if (search.failed) return;
    search.failed = true;
    search.reject(error);
  }
}
