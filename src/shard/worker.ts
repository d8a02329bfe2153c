// Shard worker thread entry (a one-thread Piscina pool). Glue only: LMDB reads, message decoding,
// and replies; the engine logic is in shard-engine.ts. The front replaces a dead worker with a new
// thread and attaches it again (src/front/threads/worker-supervisor.ts); the load happens in the attach.
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { asSkeinError } from '../errors/skein-error.js';
import type { AttachWorkerPorts, NestedBatchAnswer, ShardCommandMessage, ShardQueryMessage, ShardQueryResultMessage, ShardWorkerData } from '../protocol/messages.js';
import { decodeQueryBatch, encodeQueryBatchResult } from '../protocol/query-codec.js';
import { ReusedBuilder } from '../protocol/flatbuffer-io.js';
import { decodeShardCommand, encodeShardAck } from '../protocol/shard-command-codec.js';
import { numbersPrintAsWritten, parseExactJson, stringifyExactJson } from '../documents/exact-json.js';
import { FieldSelection, projectDocument } from '../documents/projection.js';
import { vectorsOf } from '../documents/vectors-field.js';
import { buildMatcher, HitFormatter, needsFormatting } from '../formatting/index.js';
import { TAG_CHARS_PER_SEARCH } from '../formatting/highlight.js';
import { UnitDistances } from '../formatting/edit-distance.js';
import { scoreFieldsOf } from '../formatting/score-fields.js';
import type { ScorePlan } from '../ranking/scores/score-details.js';
import { documentRange, openStorage } from '../storage/environment.js';
import { shardsOwnedBy } from '../protocol/placement.js';
import type { IndexSettings } from '../settings/index-settings.js';
import { storageKeyOf, type IndexRecord } from '../storage/records.js';
import { BuildHelperClient } from './build-helper-client.js';
import { ShardEngine, WRITE_SLICE_MS, type DocumentSource, type JsonDocument } from './shard-engine.js';
import { SnapshotKeeper } from './snapshot/snapshot-keeper.js';
import type { ReadAhead } from './snapshot/snapshot-files.js';
import { SlicedJobs } from './sliced-jobs.js';
import { SearchActivity } from './quiet-time.js';
import { ThreadFailurePoints, type ShardThreadFailurePoint } from '../protocol/thread-failure-points.js';
import { ThreadLog } from '../protocol/thread-log.js';
import { isHeavySearch } from '../protocol/search-weight.js';
import { LIGHT_SLICE_MS, SLICE_MS } from './search/search-budget.js';
import { warmUpSearchPaths, writeWarmUpSteps } from './warm-up.js';
import { writeWarmUpsEnabled } from '../config/warm-ups.js';
import { StallTrace } from './stall-trace.js';

const data = workerData as ShardWorkerData;
/** Lines go to the front's logger over the log port the attach brings (protocol/thread-log.ts). */
const threadLog = new ThreadLog(`shard ${data.workerIndex}`, data.logThresholds);
const warn = (message: string) => threadLog.write('milli', 'warn', message, { worker: data.workerIndex });
const storage = openStorage(data.dbPath);
const committedDocuments: DocumentSource = {
  get(indexUid, docId) {
    const text = storage.documents.get([indexUid, docId]);
    return text === undefined ? undefined : (JSON.parse(text) as JsonDocument);
  },
};
/** The build helper thread's client: part of a large shard's full builds runs there, beside this thread's (build-helper-client.ts). */
const buildHelper = new BuildHelperClient((cause: unknown) => warn(`the build helper thread failed, the shard worker builds what it was given: ${(cause as Error).message}`));
const engine = new ShardEngine(data.workerIndex, data.workerCount, committedDocuments, buildHelper);
const snapshots = new SnapshotKeeper(data.dbPath, engine, warn);
/** Test hooks: where this thread dies when a test armed it (a no-op otherwise). */
const failurePoints = new ThreadFailurePoints<ShardThreadFailurePoint>('shard', data.threadFailures, data.workerIndex);
/** The worker's timeline when SKEIN_STALL_TRACE is set (a diagnostic: stall-trace.ts), else null. */
const stallTrace = StallTrace.fromEnvironment(data.workerIndex);
/**
 * Quiet-time saves and full builds of search structures, in slices of a few ms so query batches (and
 * write batches) are handled between them. A write or reload cancels the save (it wrote the state it
 * encoded, which is no longer the committed one: the next quiet time saves again); the builds go on
 * across writes (what is written meanwhile counts as changed since them). A load or drop cancels all.
 */
const background = new SlicedJobs({
  onError: (_key, cause) => warn(`background work failed: ${(cause as Error).message}`),
  ...(stallTrace === null ? {} : {
    schedule: (run: () => void) => setImmediate(() => {
      const started = performance.now();
      run();
      stallTrace.span('background', started, performance.now());
    }),
  }),
});
/**
 * The bitmaps of derivations the shards' caches let go of are freed at the top level (no search on the
 * stack): this long before each query batch, and in background slices when searches pause
 * (ShardEngine.releaseRetired; a whole cache dropped by a write batch is ~100,000 bitmaps, which the
 * collector otherwise freed inside one full collection's pause).
 */
const RELEASE_SLICE_MS = 1;
/**
 * The background job key of the write-path warm-up a new thread runs after its search warm-up
 * (warm-up.ts writeWarmUpSteps); the first real write or reload cancels it (an index's creation does not).
 */
const WRITE_WARM_UP = { job: 'write warm-up' };
const releaseJob = { releaseRetired: true };
function releaseRetiredSoon(): void {
  background.enqueue(releaseJob, function* () {
    while (engine.releaseRetired(performance.now() + RELEASE_SLICE_MS)) yield;
  });
}

/** When query batches came: the quiet-time snapshot save waits for them to pause (quiet-time.ts). */
const searchActivity = new SearchActivity();
/** Keys of the saves snapshotCreation tasks wait for (one per command, so each gets its ack; apart from the quiet-time one). */
const untilSavedJobs = new Set<object>();

/**
 * The index's stored documents of the shards this worker owns, parsed; the others are skipped unparsed.
 * Runs lazily: shards restored from snapshots meanwhile (`restored`) are skipped, and when none is left the documents are not read at all.
 */
function* storedDocuments(indexUid: string, shardCount: number, restored: ReadonlySet<number> = new Set()): Generator<[number, JsonDocument]> {
  const owned = new Set(shardsOwnedBy(data.workerIndex, Math.max(1, shardCount), data.workerCount).filter((shard) => !restored.has(shard)));
  if (owned.size === 0) return;
  for (const { key, value } of documentRange(storage, indexUid)) {
    const docId = key[1];
    if (owned.has(docId % Math.max(1, shardCount))) yield [docId, JSON.parse(value) as JsonDocument];
  }
}

function loadFromStorage(indexUid: string, shardCount: number, settings: Partial<IndexSettings> | null): void {
  snapshots.changed(indexUid);
  engine.loadIndex(indexUid, shardCount, settings, storedDocuments(indexUid, shardCount));
}

/**
 * At start: each shard from its snapshot when that holds the committed state, else rebuilt from LMDB.
 * Shards, their snapshots and the index's documents are named by its storage key (swaps move records, not data).
 */
function loadAtStart(record: IndexRecord): void {
  const startedAt = performance.now();
  const commitSeq = record.commitSeq ?? 0;
  const restored = new Set<number>();
  const key = storageKeyOf(record);
  engine.loadIndex(key, record.shardCount, record.settings, storedDocuments(key, record.shardCount, restored), (shard, config) => {
    const shardIndex = snapshots.restore(key, shard, Math.max(1, record.shardCount), commitSeq, config);
    if (shardIndex) restored.add(shard);
    return shardIndex;
  });
  snapshots.loaded(key, commitSeq);
  threadLog.write('milli', 'debug', 'index loaded', {
    worker: data.workerIndex, indexUid: record.uid, fromSnapshots: restored.size, durationMs: Math.round(performance.now() - startedAt),
  });
}

/**
 * Every stored index as at start; what the worker held of indexes no longer stored is dropped. The
 * front attaches (so loads) while nothing commits: before the scheduler starts, while it holds its
 * batches for this replacement, or while a replacement scheduler is not started yet.
 */
function loadStoredIndexes(startedAt = performance.now()): void {
  background.cancelAll();
  const stored = new Set<string>();
  for (const { value: record } of storage.indexes.getRange()) {
    stored.add(storageKeyOf(record));
    loadAtStart(record);
  }
  threadLog.write('milli', 'info', 'shard worker loaded its shards', {
    worker: data.workerIndex, indexes: stored.size, durationMs: Math.round(performance.now() - startedAt),
  });
  for (const uid of engine.indexUids()) {
    if (stored.has(uid)) continue;
    engine.dropIndex(uid);
    snapshots.changed(uid);
  }
}

/** Reads started by worker-entry.ts before this module loaded, for the first load to take (SnapshotKeeper.readAhead). */
export function adoptReadsAhead(reads: ReadonlyMap<string, Promise<ReadAhead>>): void {
  snapshots.adoptReadsAhead(reads);
}

/**
 * Before loadStoredIndexes: the snapshot files of the shards it will restore, read with their CRC on
 * the way (SnapshotKeeper.readAhead). Only files: what they hold is checked against the records there.
 */
async function readSnapshotsAhead(): Promise<void> {
  // Listed first: no read transaction left open across the awaits.
  const records = [...storage.indexes.getRange()].map(({ value }) => value);
  for (const record of records) {
    await snapshots.readAhead(storageKeyOf(record), shardsOwnedBy(data.workerIndex, Math.max(1, record.shardCount), data.workerCount));
  }
}

/** A promise when the ack must wait (a save the scheduler waits for), else nothing. */
function applyCommand(command: ShardCommandMessage): Promise<void> | void {
  if (command.kind === 'writeBatch' || command.kind === 'reloadDocuments') {
    background.cancel(WRITE_WARM_UP);
    background.cancel(snapshots);
    for (const key of untilSavedJobs) background.cancel(key);
  } else if (command.kind === 'loadIndex' || command.kind === 'dropIndex' || (command.kind === 'saveSnapshots' && !command.prepareSearch && !command.untilSaved)) {
    // Not the write warm-up: it holds no index (a new index's creation comes before its documents).
    background.cancelAll(WRITE_WARM_UP);
  }
  switch (command.kind) {
    case 'writeBatch':
      snapshots.changed(command.indexUid);
      engine.writeBatch(command.indexUid, command.shard, command.ops, writeYieldPoint);
      break;
    case 'reloadDocuments':
      snapshots.changed(command.indexUid);
      engine.reloadDocuments(command.indexUid, command.shard, command.docIds, committedDocuments);
      break;
    case 'loadIndex': {
      const settings = command.settings as Partial<IndexSettings> | null;
      if (command.keepShards && engine.replaceSearchTimeSettings(command.indexUid, command.shardCount, settings)) {
        // The next commit stamps the shards again; their snapshots are saved then, with the new settings' fingerprint.
        snapshots.changed(command.indexUid);
        threadLog.write('milli', 'debug', 'search-time settings applied, shards kept', { worker: data.workerIndex, indexUid: command.indexUid });
      } else loadFromStorage(command.indexUid, command.shardCount, settings);
      break;
    }
    case 'dropIndex':
      engine.dropIndex(command.indexUid);
      snapshots.dropped(command.indexUid);
      break;
    case 'prepareSearch': {
      // Acknowledged once built (the scheduler commits then): in slices between query batches.
      const startedAt = performance.now();
      return engine.prepareIndexBeforeCommit(command.indexUid, background).then(() => {
        threadLog.write('milli', 'debug', 'search structures built before a commit', {
          worker: data.workerIndex, indexUid: command.indexUid, durationMs: Math.round(performance.now() - startedAt),
        });
      });
    }
    case 'indexCommitted':
      engine.forgetRecentDocuments(command.indexUid);
      snapshots.committed(command.indexUid, command.commitSeq);
      break;
    case 'saveSnapshots':
      if (command.untilSaved) {
        // A snapshotCreation task: in slices between searches, acknowledged once the job left the queue
        // (done, or cancelled by a write: the files on disk then simply do not match the stamp).
        return new Promise<void>((resolve) => {
          const key = { untilSaved: command.commandId };
          untilSavedJobs.add(key);
          background.enqueue(key, () => snapshots.saveSteps(), {
            onLeave: () => {
              untilSavedJobs.delete(key);
              resolve();
            },
          });
        });
      }
      if (command.prepareSearch) {
        // Quiet time: in slices, after the ack (the scheduler does not wait for the save). The builds
        // first (jobs run in order): a save before them kept stale rank / position lists, which the
        // first search after a restart rebuilt (3.4 s at 1M npm rows, busy machine).
        engine.prepareStaleShards(background, 0);
        // Its steps wait while searches come (a first window after a bulk load paid for it).
        background.enqueue(snapshots, () => searchActivity.whenSearchesPause(snapshots.saveSteps()));
      } else {
        // Shutdown: the scheduler waits for the files (bounded), nothing else will run.
        snapshots.saveAll();
      }
      break;
  }
}

function attachSchedulerPort(port: MessagePort): void {
  // Handlers are synchronous, so commands apply strictly in arrival order.
  port.on('message', (message: ArrayBuffer) => {
    const kind = failurePoints.armed ? reachBeforeCommand(message) : null;
    let commandId = 0;
    let error = null;
    let later: Promise<void> | void = undefined;
    const started = performance.now();
    let commandKind = '';
    try {
      const command = decodeShardCommand(message);
      commandId = command.commandId;
      commandKind = command.kind;
      later = applyCommand(command);
    } catch (cause) {
      error = asSkeinError(cause).toBody();
    }
    stallTrace?.span('command', started, performance.now(), commandKind);
    if (commandKind === 'writeBatch') releaseRetiredSoon();
    const postAck = () => {
      const ack = encodeShardAck({ commandId, error });
      port.postMessage(ack, [ack]);
    };
    if (later) void later.then(postAck);
    else postAck();
    if (kind === 'writeBatch') failurePoints.reach('afterWriteBatchAck');
  });
}

/**
 * The highlighter's distance table, lent to every search's matcher on this thread: each comparison
 * fills and reads it within one call, so searches answered at another's yield points share it safely.
 */
const highlightDistances = new UnitDistances();

/** Projection only, or the formatting of spec 4.2.4 rules 10-12 when the query asks for it. */
type HitShaper = (stored: JsonDocument, score: readonly number[], geoDistance: number | undefined) => JsonDocument;

/** `scorePlan`: the search's (score-details.ts), for `_rankingScore` and `_rankingScoreDetails`. */
function hitShaper(query: ShardQueryMessage, scorePlan: ScorePlan | null): HitShaper {
  const options = query.options;
  const config = engine.configOf(query.indexUid);
  if (!config || !needsFormatting(options)) {
    const selection = query.attributesToRetrieve === null ? null : new FieldSelection(query.attributesToRetrieve);
    return (stored, _score, geoDistance) => {
      let document = projectDocument(stored, selection);
      // retrieveVectors: the stored `_vectors` (the front left it out of the selection) after the fields.
      if (options.retrieveVectors === true) document = { ...document, _vectors: vectorsOf(stored) };
      // Added after retrieval, like Meilisearch: not subject to attributesToRetrieve.
      return geoDistance === undefined ? document : { ...document, _geoDistance: geoDistance };
    };
  }
  const matcher = buildMatcher(query.q, {
    typoPolicy: config.typoPolicy, prefixSearch: config.prefixSearch, synonyms: config.synonyms, distances: highlightDistances,
    ...(config.analysis.classify ? { classify: config.analysis.classify } : {}),
  });
  const displayedAttributes = config.settings.displayedAttributes;
  const scores = options.showRankingScore === true || options.showRankingScoreDetails === true;
  const withDetails = options.showRankingScoreDetails === true;
  const tagBudget = { remaining: TAG_CHARS_PER_SEARCH };
  const formatter = new HitFormatter(options, matcher, displayedAttributes, tagBudget);
  return (stored, score, geoDistance) => formatter.format({
    stored, attributesToRetrieve: query.attributesToRetrieve, displayedAttributes, score,
    ...(scores ? { scoreFields: scoreFieldsOf(scorePlan, score, stored, withDetails, options.rankingScoreValues === true) } : {}),
    extraFields: {
      ...(options.retrieveVectors === true ? { _vectors: vectorsOf(stored) } : {}),
      ...(geoDistance === undefined ? {} : { _geoDistance: geoDistance }),
    },
  });
}

/**
 * Whether a hit is its stored JSON as is: every attribute, no formatting. The stored text is the
 * JSON.stringify of the document, numbers JavaScript would rewrite kept as written (update files and
 * merges write it so), which is what serializing the parsed document would give: a parse and a
 * stringify per hit saved.
 */
function storedTextIsTheHit(query: ShardQueryMessage): boolean {
  const all = query.attributesToRetrieve === null || query.attributesToRetrieve.includes('*');
  const options = query.options;
  return all && !needsFormatting(options) && options.retrieveVectors !== true;
}

/** Searches taking this long of their own (ms) go into the stall trace with their query (stall-trace.ts). */
const SLOW_SEARCH_TRACED_MS = 10;

/** The score of a hit sent to the front, which merges nothing (ShardQueryMessage.scoresWanted false). */
const NO_SCORES: number[] = [];

function answer(query: ShardQueryMessage): ShardQueryResultMessage {
  // Its own time, as Meilisearch's processingTimeMs: the searches it answered at its yield points left out.
  const started = performance.now();
  const lentBefore = nestedBatches.lentMs;
  try {
    const result = engine.search(query, nestedBatches.interleave);
    const verbatim = storedTextIsTheHit(query);
    let shape: HitShaper | null = null;
    const hits = result.hits.map((hit) => {
      const score = query.scoresWanted ? hit.score : NO_SCORES;
      // The latest write batch first: it may be acknowledged but not yet committed to LMDB.
      const recent = engine.recentDocument(query.indexUid, hit.docId);
      // The stored JSON as it is: the front reads it for the hits it keeps (HitMessage.document).
      if (verbatim && hit.geoDistance === undefined) return { docId: hit.docId, score, document: recent ?? null };
      const text = recent ?? storage.documents.get([query.indexUid, hit.docId]);
      // Numbers JavaScript would rewrite keep their literal (exact-json.ts), in the hit as stored.
      const exact = text !== undefined && !numbersPrintAsWritten(text);
      const stored = text === undefined ? {} : ((exact ? parseExactJson(text) : JSON.parse(text)) as JsonDocument);
      // Made on the first hit that needs it: most searches send every hit verbatim.
      shape ??= hitShaper(query, result.scorePlan?.() ?? null);
      const document = shape(stored, hit.score, hit.geoDistance);
      return { docId: hit.docId, score, document: exact ? stringifyExactJson(document) : JSON.stringify(document) };
    });
    const searchMs = nestedBatches.ownTimeSince(started, lentBefore);
    if (stallTrace !== null && searchMs >= SLOW_SEARCH_TRACED_MS) stallTrace.span('search', started, performance.now(), `${searchMs.toFixed(1)} ${query.q ?? ''}`);
    return { requestId: query.requestId, error: null, candidates: result.candidates, hits, extras: result.extras, searchMs };
  } catch (cause) {
    return { requestId: query.requestId, error: asSkeinError(cause).toBody(), candidates: 0, hits: [], extras: null, searchMs: nestedBatches.ownTimeSince(started, lentBefore) };
  }
}

/**
 * One QueryBatch in, its QueryBatchResult out (the results not already sent as partial answers: see
 * NestedBatches); each query's failure is its own result's error. `batch`: its number on the query
 * port. `nested`: run inside another search's yield point, which builds and prepares nothing.
 */
function answerBatch(message: ArrayBuffer, batch: number, nested = false): ArrayBuffer {
  const started = performance.now();
  const queries = decodeQueryBatch(message);
  if (!nested) {
    try {
      engine.prepareStaleShards(background, queries.length);
    } catch (cause) {
      // The searches then build what they need themselves, and each reports its own error.
      warn(`preparing stale shards failed: ${(cause as Error).message}`);
    }
    const sliceStarted = performance.now();
    if (engine.releaseRetired(sliceStarted + RELEASE_SLICE_MS)) releaseRetiredSoon();
    background.runCatchUpSlice();
    if (stallTrace !== null && performance.now() - sliceStarted > 0.1) stallTrace.span('background', sliceStarted, performance.now(), 'catch-up');
  }
  const frame: BatchFrame = { batch, queries, results: new Array(queries.length), next: 0, portDueAt: 0, sliceMs: LIGHT_SLICE_MS, answeringAhead: false };
  nestedBatches.frames.push(frame);
  try {
    while (frame.next < queries.length) {
      const query = queries[frame.next++]!;
      // The searches waiting in the port get in after this long (search-budget.ts).
      frame.sliceMs = isHeavySearch(query.options) ? SLICE_MS : LIGHT_SLICE_MS;
      frame.portDueAt = performance.now() + frame.sliceMs;
      frame.results[frame.next - 1] = answer(query);
    }
  } finally {
    nestedBatches.frames.pop();
  }
  const encoded = encodeResults(takeAnswered(frame));
  stallTrace?.span(nested ? 'nested' : 'batch', started, performance.now(), queries.length);
  return encoded;
}

/** The results answered and not yet sent, marked sent. */
function takeAnswered(frame: BatchFrame): ShardQueryResultMessage[] {
  const out: ShardQueryResultMessage[] = [];
  for (let k = 0; k < frame.results.length; k++) {
    const result = frame.results[k];
    if (result === undefined || result === null) continue;
    out.push(result);
    frame.results[k] = null;
  }
  return out;
}

function encodeResults(results: ShardQueryResultMessage[]): ArrayBuffer {
  try {
    return encodeQueryBatchResult(results, nestedBatches.resultBuilder);
  } catch {
    // A result that cannot be encoded (too large for a flatbuffer...) fails alone, never its batch.
    return encodeQueryBatchResult(results.map((result) => {
      try {
        encodeQueryBatchResult([result]);
        return result;
      } catch (cause) {
        return { requestId: result.requestId, error: asSkeinError(cause).toBody(), candidates: 0, hits: [], extras: null };
      }
    }));
  }
}

/**
 * A batch being answered: its queries in order, `next` the first not started; a result is undefined
 * until answered, null once sent as a partial answer.
 */
interface BatchFrame {
  batch: number;
  queries: ShardQueryMessage[];
  results: (ShardQueryResultMessage | null | undefined)[];
  next: number;
  /** When the search running now lets the batches waiting in the port in (performance.now()), and every how long. */
  portDueAt: number;
  sliceMs: number;
  /** Its rest is being answered at a yield point of one of its searches (not again from theirs). */
  answeringAhead: boolean;
}

/** Searches one inside another's yield point at most (each level holds its caller's stack and bitmaps). */
const MAX_NESTED_DEPTH = 6;

/**
 * Query batches answered inside a running search's yield points (search-budget.ts): a search that has
 * run a slice (4 ms) takes the batches waiting in the query port and answers them on its own stack
 * before going on, so a light search waits for a heavy one's slice, not its whole run (a multi-search
 * of heavy queries is one batch that took seconds). Their answers go out of order, tagged with the
 * batch's number (QueryPort on the front matches them); the batch answered at the top level is always
 * the oldest one unanswered, and goes out bare as before (a write batch answers them so too, at its
 * yield points: writeYieldPoint, below). Scheduler commands wait for the top level
 * (their port is not read here), so no write lands under a running search; what a nested search may
 * build (stale rank / position lists, pair tables when not deferred) is made aside and swapped in, so
 * its caller keeps the lists it holds, equal to the new ones as nothing was written. Per-search scratch
 * is per search (scratch bitmaps, word lookups, offsets: shard-search.ts); the background jobs
 * (sliced builds, snapshot saves) run between top-level batches only.
 */
class NestedBatches {
  private port: MessagePort | null = null;
  private depth = 0;
  /** Batches received on the query port (the front numbers the batches it posts the same way). */
  received = 0;
  /** The batches being answered, outermost first: the last one's search is the one running. */
  readonly frames: BatchFrame[] = [];
  /** Time (ms) the running searches lent to others at their yield points, summed: a search leaves its share out of its searchMs. */
  lentMs = 0;
  /** Every batch's results are encoded in it (encodeResults; never two at once: an encoding runs no search). */
  readonly resultBuilder = new ReusedBuilder();

  attach(port: MessagePort): void {
    this.port = port;
  }

  /** The time since `started` less what was lent since `lentBefore` (this.lentMs then). */
  ownTimeSince(started: number, lentBefore: number): number {
    return performance.now() - started - (this.lentMs - lentBefore);
  }

  /**
   * A yield point of the running search (every SLICE_MS): first the rest of its own batch is answered
   * and sent with the results already made, as a partial answer (its batch-mates waited for the whole
   * of a long search, and for the batches it answered nested: 15 searches answered late per long one,
   * which made most of the latency tail at 64 connections); then, once the search has run its slice
   * (LIGHT_SLICE_MS for a light one), the batches waiting in the port.
   */
  readonly interleave = (): void => {
    // Set, not added: the searches answered here lent time of their own, which this span already holds.
    const lentBefore = this.lentMs;
    const started = performance.now();
    try {
      this.answerAtYieldPoint();
    } finally {
      this.lentMs = lentBefore + (performance.now() - started);
    }
  };

  private answerAtYieldPoint(): void {
    const port = this.port;
    if (port === null || this.depth >= MAX_NESTED_DEPTH) return;
    const frame = this.frames[this.frames.length - 1];
    // Light searches only: heavy ones are batched apart (a multi-search of them is one batch, wanted whole).
    if (frame !== undefined && frame.next < frame.queries.length && !frame.answeringAhead && frame.sliceMs === LIGHT_SLICE_MS) {
      frame.answeringAhead = true;
      try {
        while (frame.next < frame.queries.length) {
          const k = frame.next++;
          frame.results[k] = answer(frame.queries[k]!);
        }
      } finally {
        frame.answeringAhead = false;
      }
      const partial: NestedBatchAnswer = { batch: frame.batch, answer: encodeResults(takeAnswered(frame)), partial: true };
      port.postMessage(partial, [partial.answer]);
      stallTrace?.posted();
    }
    if (frame !== undefined) {
      if (performance.now() < frame.portDueAt) return;
      frame.portDueAt = performance.now() + frame.sliceMs;
    }
    this.answerWaiting(Infinity);
  }

  /** Answers the batches waiting (and arriving meanwhile) until none is left or `forMs` has passed. */
  answerWaiting(forMs: number): void {
    const port = this.port;
    if (port === null || this.depth >= MAX_NESTED_DEPTH) return;
    const end = performance.now() + forMs;
    while (performance.now() < end) {
      const next = receiveMessageOnPort(port);
      if (next === undefined) return;
      const batch = ++this.received;
      this.depth++;
      let result: ArrayBuffer;
      try {
        result = answerBatch(next.message as ArrayBuffer, batch, true);
      } catch (cause) {
        warn(`a query batch failed: ${(cause as Error).message}`);
        result = emptyBatchResult();
      } finally {
        this.depth--;
      }
      const tagged: NestedBatchAnswer = { batch, answer: result };
      port.postMessage(tagged, [result]);
      stallTrace?.posted();
    }
  }
}

const nestedBatches = new NestedBatches();

/**
 * A write batch's yield point (ShardEngine.writeBatch, every WRITE_SLICE_MS of writing): the searches waiting
 * are answered, as inside a running search, until as long has passed (a batch begun finishes), and the
 * write then writes at least as long as they took, so under a steady search load writes keep half the
 * thread (Meilisearch keeps indexing to half the cores) and a search waits for a write's slice, not
 * its batch. The shard holds whole documents at that point.
 */
const WRITE_YIELD_SEARCH_MS = WRITE_SLICE_MS;
const writeYieldPoint = (): void => nestedBatches.answerWaiting(WRITE_YIELD_SEARCH_MS);

/** An unreadable batch still gets an answer (with no results), so the front's answers stay in order. */
function emptyBatchResult(): ArrayBuffer {
  return encodeQueryBatchResult([]);
}

function attachQueryPort(port: MessagePort): void {
  nestedBatches.attach(port);
  // The front closes the query port when it stops this thread (a close(), or a thread it gave up on):
  // the thread then ends itself here, between two turns. A terminate() could land inside an LMDB call,
  // and lmdb-js then aborts the whole process (a JS error thrown while the thread is being torn down:
  // FATAL ERROR napi_throw) or hangs in its cleanup (bench/thread-end-probe.mjs).
  port.once('close', () => process.exit(0));
  // Synchronous: a batch is answered before the next 'message' (later ones may be answered inside it: NestedBatches).
  port.on('message', (batch: ArrayBuffer) => {
    const number = ++nestedBatches.received;
    searchActivity.noteBatch();
    failurePoints.reach('beforeQueryBatch');
    let result: ArrayBuffer;
    try {
      result = answerBatch(batch, number);
    } catch (cause) {
      warn(`a query batch failed: ${(cause as Error).message}`);
      result = emptyBatchResult();
    }
    port.postMessage(result, [result]);
    stallTrace?.posted();
  });
}

/** Test hooks: the command read once more, outside the handler's try, so a death is not turned into a failed ack. Its kind. */
function reachBeforeCommand(message: ArrayBuffer): string | null {
  let kind: string;
  try {
    kind = decodeShardCommand(message).kind;
  } catch {
    return null;
  }
  if (kind === 'writeBatch') failurePoints.reach('beforeWriteBatch');
  return kind;
}

/**
 * Piscina's task: the attach, at start and after a replacement (query batches travel on the query
 * port). A port attached before keeps its listener: its peer is gone (a dead scheduler's), so nothing
 * arrives on it any more.
 */
export default async function handle(message: AttachWorkerPorts): Promise<null> {
  threadLog.attach(message.logPort);
  if (message.load) {
    failurePoints.reach('beforeLoad');
    try {
      const startedAt = performance.now();
      await readSnapshotsAhead();
      loadStoredIndexes(startedAt);
    } finally {
      snapshots.dropReadAheads();
    }
  }
  attachSchedulerPort(message.schedulerPort);
  if (message.queryPort) attachQueryPort(message.queryPort);
  // After a load (a new thread's, or a reload's: harmless twice): the first real searches then find the search paths compiled (warm-up.ts).
  if (message.load) {
    const startedAt = performance.now();
    warmUpSearchPaths((error) => {
      threadLog.write('milli', error === null ? 'debug' : 'warn', 'search paths warmed up', {
        worker: data.workerIndex, durationMs: Math.round(performance.now() - startedAt), ...(error === null ? {} : { error: error.message }),
      });
      if (!writeWarmUpsEnabled()) return;
      const writesStartedAt = performance.now();
      let completed = false;
      background.enqueue(WRITE_WARM_UP, () => writeWarmUpSteps(() => { completed = true; }), {
        idle: true,
        onLeave: () => threadLog.write('milli', 'debug', completed ? 'write paths warmed up' : 'write warm-up stopped', {
          worker: data.workerIndex, durationMs: Math.round(performance.now() - writesStartedAt),
        }),
      });
    });
  }
  return null;
}

