// What a network search sends to a remote group and what it answers (src/network; main thread on both
// sides). The request is the public search body (validated again by the remote with the same parser)
// plus the summed term counts of matchingStrategy frequency; the answer is the remote's shard
// workers' results with every hit's document JSON (the asking node cannot read the remote's LMDB).
// Score values may be ±Infinity or NaN, which JSON cannot hold: written as strings.
import { SkeinError } from '../errors/index.js';
import { isPlainObject } from '../front/http/deserr-messages.js';
import type { SearchParameters } from '../front/search/search-params.js';
import type { HitMessage, ShardQueryResultMessage } from '../protocol/messages.js';

export interface RemoteShardSearch {
  search: Record<string, unknown>;
  termDocCountsOnly?: true;
  termDocCounts?: number[];
  /** The groups' version the asking node searches at (storage/network-placement.ts); absent: any. */
  placementVersion?: number;
  /** A federated search with a sort: the hits' `_rankingScoreValues` (ShardSearchOptions.rankingScoreValues). */
  rankingScoreValues?: true;
}

/** Bounds of what a remote accepts besides the search body (that one is bounded by its parser). */
const MAX_TERMS = 1000;

/** The public search body that parses back to these parameters (useNetwork left out). */
export function searchBodyOf(parameters: SearchParameters): Record<string, unknown> {
  const body: Record<string, unknown> = { ...parameters.options };
  delete body.useNetwork;
  delete body.shardFilter;
  delete body.rankingScoreValues;
  // (the receiving node works out its own from its settings, and marks its search networked: network-routes.ts)
  delete body.facetCut;
  delete body.networked;
  delete body.countCap;
  if (parameters.q !== null) body.q = parameters.q;
  if (parameters.page !== null || parameters.hitsPerPage !== null) {
    if (parameters.page !== null) body.page = parameters.page;
    if (parameters.hitsPerPage !== null) body.hitsPerPage = parameters.hitsPerPage;
  } else {
    body.offset = parameters.offset;
    body.limit = parameters.limit;
  }
  if (parameters.attributesToRetrieve !== null) body.attributesToRetrieve = parameters.attributesToRetrieve;
  body.matchingStrategy = parameters.matchingStrategy;
  return body;
}

export function parseRemoteShardSearch(body: unknown): RemoteShardSearch {
  if (!isPlainObject(body) || !isPlainObject(body.search)) throw new SkeinError('bad_request', 'A network shard search needs a `search` object.');
  const out: RemoteShardSearch = { search: body.search };
  if (body.termDocCountsOnly === true) out.termDocCountsOnly = true;
  if (body.rankingScoreValues === true) out.rankingScoreValues = true;
  if (Number.isSafeInteger(body.placementVersion)) out.placementVersion = body.placementVersion as number;
  if (body.termDocCounts !== undefined) {
    const counts = body.termDocCounts;
    if (!Array.isArray(counts) || counts.length > MAX_TERMS || !counts.every((count) => Number.isSafeInteger(count) && (count as number) >= 0)) {
      throw new SkeinError('bad_request', `\`termDocCounts\` must be at most ${MAX_TERMS} non-negative integers.`);
    }
    out.termDocCounts = counts as number[];
  }
  return out;
}

function scoreValue(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

function scoreNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === 'Infinity' || value === '-Infinity' || value === 'NaN') return Number(value);
  throw new Error('a score value is neither a number nor a non-finite one');
}

/** The results with each hit as [docId, score, document JSON]. `documentOf` reads a verbatim hit's stored JSON. */
export function encodeShardResults(results: readonly ShardQueryResultMessage[], documentOf: (docId: number) => string | undefined): string {
  return JSON.stringify({
    results: results.map((result) => ({
      candidates: result.candidates,
      extras: result.extras,
      hits: result.hits.flatMap((hit) => {
        const document = hit.document ?? documentOf(hit.docId);
        // Deleted between the ranking and this read: left out, as stored-hits.ts does.
        return document === undefined ? [] : [[hit.docId, hit.score.map(scoreValue), document]];
      }),
    })),
  });
}

export function decodeShardResults(text: string): ShardQueryResultMessage[] {
  const body = JSON.parse(text) as { results?: unknown };
  if (!Array.isArray(body.results)) throw new Error('no `results`');
  return body.results.map((raw: { candidates?: unknown; extras?: unknown; hits?: unknown }) => {
    if (typeof raw.candidates !== 'number' || !Array.isArray(raw.hits)) throw new Error('a result without candidates or hits');
    const hits: HitMessage[] = raw.hits.map((hit: unknown) => {
      if (!Array.isArray(hit) || typeof hit[0] !== 'number' || !Array.isArray(hit[1]) || typeof hit[2] !== 'string') throw new Error('a malformed hit');
      return { docId: hit[0], score: (hit[1] as unknown[]).map(scoreNumber), document: hit[2] };
    });
    return { requestId: 0, error: null, candidates: raw.candidates, hits, extras: (raw.extras ?? null) as Record<string, unknown> | null };
  });
}
