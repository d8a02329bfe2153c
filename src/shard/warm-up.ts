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
import { ShardEngine, type JsonDocument } from './shard-engine.js';

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
  runSteps(steps, done);
}

/** Runs the steps one per macrotask (setImmediate), then `done`; a failing step ends them (a warm-up never fails the worker). */
function runSteps(steps: readonly (() => void)[], done: (error: Error | null) => void): void {
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

/** A shard holding this many documents makes its worker run the text warm-up (TextWarmUp), once per thread. */
export const TEXT_WARM_UP_FROM_DOCUMENTS = 20_000;

/**
 * Whether the thread ran the text warm-up (textAtScaleWork), and starting it: once, the first time
 * one of the worker's shards holds TEXT_WARM_UP_FROM_DOCUMENTS documents (a bulk load under way, or
 * restored at start), in slices between the thread's other work. Small indexes (tests, most of them)
 * never pay its ~1 s of CPU; a large one's first searches find their paths optimized.
 */
export class TextWarmUp {
  private started = false;

  constructor(private readonly fromDocuments = TEXT_WARM_UP_FROM_DOCUMENTS, private readonly searches = TEXT_WARM_UP_SEARCHES) {}

  /** Starts it (in slices, then `done`) if not yet started and a shard of `engine` is large enough: whether it did. */
  maybeStart(engine: ShardEngine, done: (error: Error | null) => void): boolean {
    if (this.started) return false;
    for (const shard of engine.allShards()) {
      if (shard.documentCount < this.fromDocuments) continue;
      this.started = true;
      runSliced(textAtScaleWork(this.searches), done);
      return true;
    }
    return false;
  }
}

/** Documents of the text warm-up (textAtScaleWork): enough for thousands of words, typo walks and unions of many lists. */
const TEXT_WARM_UP_DOCUMENTS = 3000;
/** Its searches: V8 optimizes a function after thousands of calls, which 8 warm-up searches never reach. */
export const TEXT_WARM_UP_SEARCHES = 4000;
/** Documents per write batch of its load (one unit of work). */
const TEXT_WARM_UP_WRITE_GROUP = 25;
/** Its units of work run for at least this long per macrotask, then it yields: a real batch waits about this long at most. */
const TEXT_WARM_UP_SLICE_MS = 4;

/** Runs the work a slice of TEXT_WARM_UP_SLICE_MS per macrotask (setImmediate), then `done`; a failure ends it (never the worker). */
function runSliced(work: Generator<void, void, unknown>, done: (error: Error | null) => void): void {
  const step = (): void => {
    const end = performance.now() + TEXT_WARM_UP_SLICE_MS;
    try {
      do {
        if (work.next().done === true) {
          done(null);
          return;
        }
      } while (performance.now() < end);
    } catch (cause) {
      done(cause as Error);
      return;
    }
    setImmediate(step);
  };
  setImmediate(step);
}

/**
 * The text warm-up: a throwaway index of pseudo-words (short titles and summaries drawn from a
 * vocabulary of a few thousand words, Zipf-like) written in small batches, built in slices, and
 * searched `searches` times as a user would (words, two and three words, prefixes, typos, joined
 * words), then dropped; it yields after each unit of work (a write batch, a build step, a search).
 * A fresh worker ran its first real searches unoptimized: right after a bulk load of 100,000 npm rows
 * the first 2,000 searches cost 664-751 µs of CPU each against ~150 warm, 508-624 after this (~1.2 s of
 * CPU), and the first 30,000 (about the bench's first window) 0.3-1.2 s less in all (bench/cold-curve.ts).
 * No real index is touched.
 */
export function* textAtScaleWork(searches = TEXT_WARM_UP_SEARCHES, documents = TEXT_WARM_UP_DOCUMENTS): Generator<void, void, unknown> {
  let seed = 0x2f6e2b1;
  const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const syllables = ['ba', 'ko', 'ri', 'tem', 'su', 'lan', 'de', 'mo', 'pix', 'ne', 'tra', 'gol', 'vi', 'ser', 'ca', 'lu', 'fen', 'dor', 'qui', 'za'];
  const vocabulary = Array.from({ length: 4000 }, () => {
    let word = '';
    for (let parts = 1 + Math.floor(random() * 4); parts > 0; parts--) word += syllables[Math.floor(random() * syllables.length)]!;
    return word;
  });
  // Zipf-like: low ranks far more often.
  const draw = (): string => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!;
  const phrase = (words: number): string => Array.from({ length: words }, draw).join(' ');
  const typo = (word: string): string => {
    const at = 1 + Math.floor(random() * Math.max(1, word.length - 1));
    return word.slice(0, at) + syllables[Math.floor(random() * syllables.length)]![0] + word.slice(at + 1);
  };
  const query = (k: number): string => {
    switch (k % 8) {
      case 0: return draw();
      case 1: return phrase(2);
      case 2: return phrase(3);
      case 3: return draw().slice(0, 1 + Math.floor(random() * 4));
      case 4: return `${draw()} ${draw().slice(0, 2 + Math.floor(random() * 3))}`;
      case 5: return typo(draw());
      case 6: return `${draw()}${draw()}`;
      default: return `${typo(draw())} ${draw()}`;
    }
  };
  const engine = new ShardEngine(0, 1);
  const index = `${WARM_UP_INDEX}-text`;
  engine.loadIndex(index, 1, { searchableAttributes: ['title', 'summary'] }, []);
  for (let start = 0; start < documents; start += TEXT_WARM_UP_WRITE_GROUP) {
    engine.writeBatch(index, 0, Array.from({ length: Math.min(TEXT_WARM_UP_WRITE_GROUP, documents - start) }, (_, k) => {
      const id = start + k;
      return { kind: 'upsert' as const, docId: id, document: JSON.stringify({ id, title: phrase(1 + Math.floor(random() * 3)), summary: phrase(4 + Math.floor(random() * 10)) }) };
    }));
    yield;
  }
  yield* engine.loadedIndex(index)!.shards.get(0)!.prepareSteps();
  for (let k = 0; k < searches; k++) {
    engine.search({ indexUid: index, shards: [0], q: query(k), hitsWanted: 20, matchingStrategy: 'last', options: {} });
    yield;
  }
  engine.dropIndex(index);
}
