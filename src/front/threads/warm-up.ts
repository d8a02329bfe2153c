// The front's share of a fresh server's first searches (issue 22; the workers': src/shard/warm-up.ts)
// and the payload decoder's first bulk load (warmUpIngest, below):
// right after listening, a few query batches go to every worker through the real dispatcher and query
// ports for an index no uid can name (a space in it: every worker answers index_not_found, nothing is
// read or kept), and the pure steps of the search and facet-search routes run on made-up answers. The
// first real facet search then found the front's path compiled (bench/cold-facet-probe.mjs).
// Bounded: a few batches per worker, each awaited before the next; errors are swallowed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warmUpDocumentBatches } from '../../documents/warm-up-documents.js';
import { ownArrayBuffer, type IngestClient } from './ingest-client.js';
import { parseFacetSearchBody } from '../search/facet-search-routes.js';
import { facetDistributionJson, mergeFacetExtras, type FacetExtras } from '../search/facet-merge.js';
import { facetQueryMatcher } from '../../filter/facet-query.js';
import { parseSearchBody } from '../search/search-params.js';
import { mergeShardResults } from '../search/shard-results.js';
import type { SearchDispatcher } from '../search/search-dispatcher.js';
import { decodeQueryBatchResult, encodeQueryBatchResult } from '../../protocol/query-codec.js';
import { defaultSettings } from '../../settings/index-settings.js';
import type { ShardQueryResultMessage } from '../../protocol/messages.js';

/** Not a valid index uid (uids are [a-zA-Z0-9_-]): no request can create or name it. */
const NO_INDEX = 'skein warm-up';

const ROUNDS = 3;

export async function warmUpFront(search: SearchDispatcher, shardCount: number): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    warmUpRouteSteps();
    const shapes: Record<string, unknown>[] = [{ facets: ['genres'], facetStringsOnly: true }, { filter: 'genres = action', sort: ['year:asc'] }];
    await Promise.all(shapes.map((options) => search.search({
      indexUid: NO_INDEX, q: round === 0 ? null : 'prince', hitsWanted: 20, matchingStrategy: 'last', attributesToRetrieve: null, exhaustiveCount: false, options,
    }, shardCount).catch(() => null)));
  }
}

/** What the routes do with a body and with the workers' answers, on made-up ones. */
function warmUpRouteSteps(): void {
  parseFacetSearchBody({ facetName: 'genres', facetQuery: 'a', filter: ['genres = action'], q: 'alice' });
  parseSearchBody({ q: 'prince', facets: ['genres'], filter: 'genres = romance', attributesToHighlight: ['title'], limit: 5 });
  const results: ShardQueryResultMessage[] = [0, 1].map((shard) => ({
    requestId: shard, error: null, candidates: 2,
    hits: [{ docId: shard, score: [1, 0], document: null }, { docId: shard + 2, score: [2, 1], document: '{"id":1}' }],
    extras: { facetDistribution: { genres: { adventure: 1 + shard, action: 1 } }, facetStats: {} },
  }));
  const decoded = decodeQueryBatchResult(encodeQueryBatchResult(results));
  mergeShardResults(decoded, 0, 20);
  const merged = mergeFacetExtras(decoded.map((result) => result.extras as FacetExtras | null));
  const matches = facetQueryMatcher('a');
  Object.keys(merged?.facetDistribution?.['genres'] ?? {}).filter(matches);
  if (merged?.facetDistribution) facetDistributionJson(merged.facetDistribution, defaultSettings().faceting);
}

/** Documents of the payload decoder's warm-up, and per payload (a task of the pool each: a real one waits for one at most). */
export const INGEST_WARM_UP_DOCUMENTS = 16_000;
const INGEST_WARM_UP_PAYLOAD = 1_000;

/**
 * The payload decoder's path (src/ingest/worker.ts), run once after listening on made-up payloads, NDJSON
 * and JSON arrays in turn, through the real pool, into update files of a temporary folder removed at the
 * end: a fresh server's first bulk load decoded its payloads with cold code (~1.09 s of the decoder's
 * CPU over 100,000 npm rows against ~0.75 s for a second load, DECISIONS session 44). The pool keeps
 * its first thread (IngestClient.create), so what is compiled here stays. It stops at the first real
 * payload; errors are swallowed. Returns the payloads it decoded (tests).
 */
export async function warmUpIngest(ingest: IngestClient, sizeLimit: number, count = INGEST_WARM_UP_DOCUMENTS, parent = tmpdir()): Promise<number> {
  let folder: string | null = null;
  let decoded = 0;
  try {
    folder = mkdtempSync(join(parent, 'skein-warm-up-'));
    const startedBefore = ingest.started;
    // A payload's rows are made between awaits: the front's turns stay short.
    for (const part of warmUpDocumentBatches(count, INGEST_WARM_UP_PAYLOAD)) {
      // A real payload came: the load compiles what it runs, the warm-up would only slow it.
      if (ingest.started !== startedBefore + decoded) break;
      const ndjson = decoded % 2 === 0;
      const text = ndjson ? `${part.map((document) => JSON.stringify(document)).join('\n')}\n` : JSON.stringify(part);
      await ingest.decode({
        bytes: ownArrayBuffer(Buffer.from(text)), contentType: ndjson ? 'ndjson' : 'json', csvDelimiter: null, contentEncoding: null,
        updateFilesDir: folder, sizeLimit,
      });
      decoded++;
    }
  } catch {
    // A warm-up never fails the server.
  } finally {
    if (folder !== null) rmSync(folder, { recursive: true, force: true });
  }
  return decoded;
}
