// A shard worker's first searches, made on a throwaway index when the thread starts (issue 22): a fresh
// thread's first search and facet search compiled and ran each function on the way for the first time
// (~5 ms of a first facet search's ~6 on an idle machine, bench/cold-facet-probe.mjs; 10-165 ms under
// load), which the first real request paid. The warm-up runs the same paths (query batch codecs,
// plan, filter, ranking rules, facets, facet search's strings, attributesToSearchOn, hit formatting)
// once each, a step per macrotask, so a real batch arriving meanwhile waits for one step at most.
// Nothing outlives it: its engine and documents are dropped when it ends.
import { decodeQueryBatch, encodeQueryBatch, encodeQueryBatchResult } from '../protocol/query-codec.js';
import type { ShardQueryMessage } from '../protocol/messages.js';
import { buildMatcher, formatHit } from '../formatting/index.js';
import { decodeShardCommand, encodeShardCommand } from '../protocol/shard-command-codec.js';
import { ShardEngine, type JsonDocument } from './shard-engine.js';
import type { SlicedJob } from './sliced-jobs.js';
import { warmUpDocumentBatches } from '../documents/warm-up-documents.js';

const WARM_UP_INDEX = 'skein-warm-up';

const GENRES = ['romance', 'action', 'adventure', 'comedy', 'horror'];
const WORDS = ['pride', 'prejudice', 'petit', 'prince', 'rouge', 'noir', 'alice', 'wonderland', 'dragon', 'train', 'hidden', 'world'];

/** 32 small documents: text in two fields, string and number facets, a nested object. */
function warmUpDocuments(): [number, JsonDocument][] {
  const out: [number, JsonDocument][] = [];
  for (let k = 0; k < 32; k++) {
    const title = `${WORDS[k % WORDS.length]} ${WORDS[(k * 5 + 3) % WORDS.length]} ${WORDS[(k * 7 + 1) % WORDS.length]}`;
    out.push([k, {
      id: k, title, overview: `${WORDS[(k + 4) % WORDS.length]} and ${WORDS[(k + 9) % WORDS.length]}`,
      genres: k % 3 === 0 ? GENRES[k % GENRES.length]! : [GENRES[k % GENRES.length]!, GENRES[(k + 2) % GENRES.length]!],
      year: 1950 + k, details: { tag: k % 2 === 0 ? 'even' : 'odd' },
    }]);
  }
  return out;
}

/** The searches of the warm-up, each as a worker receives it. */
function warmUpQueries(): ShardQueryMessage[] {
  const query = (requestId: number, q: string | null, options: Record<string, unknown>): ShardQueryMessage => ({
    requestId, indexUid: WARM_UP_INDEX, shards: [0], q, hitsWanted: 20, matchingStrategy: 'last', attributesToRetrieve: null,
    exhaustiveCount: false, options, scoresWanted: true,
  });
  return [
    query(1, null, { facets: ['genres'], facetStringsOnly: true }),
    query(2, null, { facets: ['genres'], facetStringsOnly: true, filter: ['genres = action'] }),
    query(3, 'alice', { facets: ['genres'], facetStringsOnly: true }),
    query(4, 'prince', {}),
    query(5, 'le prin', { facets: ['genres', 'year'], filter: 'genres = romance OR year > 1960', sort: ['year:desc'] }),
    query(6, 'dragn wrld', { attributesToSearchOn: ['title'] }),
    query(7, '"hidden world" -noir', { distinct: 'genres' }),
    query(8, null, { filter: 'year 1955 TO 1970 AND details.tag = even', sort: ['year:asc'] }),
  ];
}

/**
 * Runs the warm-up a step per macrotask (setImmediate) and calls `done` at the end; a failing step
 * ends it (a warm-up never fails the worker). Steps: load, each query; a write batch, each query; the build, each query.
 */
export function warmUpSearchPaths(done: (error: Error | null) => void = () => {}): void {
  const documents = new Map<number, JsonDocument>(warmUpDocuments());
  const engine = new ShardEngine(0, 1, { get: (_indexUid, docId) => documents.get(docId) });
  const queries = warmUpQueries();
  const steps: (() => void)[] = [() => engine.loadIndex(WARM_UP_INDEX, 1, {
    filterableAttributes: ['genres', 'year', 'details.tag'], sortableAttributes: ['year'],
    rankingRules: ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness'],
  }, documents.entries())];
  for (const query of queries) steps.push(() => warmUpOne(engine, query, documents));
  // Then as a new index's first searches meet it: written by a write batch, its structures stale, then built.
  steps.push(() => {
    const written: [number, JsonDocument][] = warmUpDocuments().slice(0, 8).map(([docId, document]) => [docId + 32, { ...document, id: docId + 32 }]);
    for (const [docId, document] of written) documents.set(docId, document);
    engine.writeBatch(WARM_UP_INDEX, 0, written.map(([docId, document]) => ({ kind: 'upsert', docId, document: JSON.stringify(document) })));
  });
  for (const query of queries) steps.push(() => warmUpOne(engine, query, documents));
  steps.push(() => engine.prepareForSearch());
  for (const query of queries) steps.push(() => warmUpOne(engine, query, documents));
  let next = 0;
  const step = (): void => {
    try {
      steps[next++]!();
    } catch (cause) {
      done(cause as Error);
      return;
    }
    if (next < steps.length) setImmediate(step);
    else done(null);
  };
  setImmediate(step);
}

/** One query through the codecs, the engine and the formatting of its hits, as worker.ts answers it. */
function warmUpOne(engine: ShardEngine, query: ShardQueryMessage, documents: ReadonlyMap<number, JsonDocument>): void {
  const [decoded] = decodeQueryBatch(encodeQueryBatch([query]));
  const result = engine.search(decoded!);
  const config = engine.configOf(WARM_UP_INDEX)!;
  const matcher = buildMatcher(decoded!.q, { typoPolicy: config.typoPolicy, prefixSearch: config.prefixSearch, synonyms: config.synonyms });
  const tagBudget = { remaining: 1 << 16 };
  const hits = result.hits.slice(0, 3).map((hit) => ({
    docId: hit.docId, score: hit.score,
    document: JSON.stringify(formatHit({
      stored: documents.get(hit.docId) ?? {}, attributesToRetrieve: null, displayedAttributes: config.settings.displayedAttributes, score: hit.score,
      extraFields: {},
    }, { attributesToHighlight: ['title'], attributesToCrop: ['overview'], cropLength: 3, showMatchesPosition: true }, matcher, tagBudget)),
  }));
  encodeQueryBatchResult([{ requestId: decoded!.requestId, error: null, candidates: result.candidates, hits, extras: result.extras }]);
}

/** Documents of the write-path warm-up: under BUILD_HELPER_MIN_DOCUMENTS, so its build runs here, as a small shard's does. */
export const WRITE_WARM_UP_DOCUMENTS = 16_000;
/** Documents per warm-up write batch: a step of the warm-up each. */
const WRITE_WARM_UP_BATCH = 100;

/**
 * The write path of a fresh thread, made on a throwaway index once its search warm-up ended: a first
 * bulk load's batches ran the tokenizer, the postings' writes and the pre-commit build cold, ~500 ms
 * more of this thread's CPU over 100,000 npm rows than a second load into the same thread (in process,
 * DECISIONS session 44). A sliced job (worker.ts runs it in the background between query batches, and
 * cancels it at the first real write or reload: the load then compiles what it runs): `count` documents through
 * the shard command codec and ShardEngine.writeBatch, WRITE_WARM_UP_BATCH a step, then the shard's
 * sliced build (prepareSteps). `finished` is told when the last step ran. Nothing outlives it.
 */
export function* writeWarmUpSteps(finished: () => void = () => {}, count = WRITE_WARM_UP_DOCUMENTS): SlicedJob {
  const engine = new ShardEngine(0, 1, null);
  engine.loadIndex(WARM_UP_INDEX, 1, { searchableAttributes: ['name', 'summary'] }, []);
  yield;
  let written = 0;
  for (const batch of warmUpDocumentBatches(count, WRITE_WARM_UP_BATCH)) {
    const ops = batch.map((document, k) => ({ kind: 'upsert' as const, docId: written + k, document: JSON.stringify(document) }));
    written += batch.length;
    const command = decodeShardCommand(encodeShardCommand({ kind: 'writeBatch', commandId: 0, indexUid: WARM_UP_INDEX, shard: 0, ops }));
    if (command.kind === 'writeBatch') engine.writeBatch(WARM_UP_INDEX, 0, command.ops);
    yield;
  }
  yield* engine.shard(WARM_UP_INDEX, 0).prepareSteps(null);
  finished();
}
