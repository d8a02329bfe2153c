// One query of a federated multi-search sent to a remote of the network (`federationOptions.remote`;
// main thread): the remote's public search route, with its searchApiKey, answered as a SearchAnswer
// the federated merge takes like a local one. Its hits carry no internal ids, so two queries of one
// index on one remote are not deduplicated (Meilisearch deduplicates by document id per index).
import { SkeinError } from '../errors/index.js';
import type { SearchParameters } from '../front/search/search-params.js';
import type { SearchAnswer } from '../front/search/search-response.js';
import { searchWindow } from '../front/http/pagination.js';
import type { NetworkNode } from './network-node.js';
import { searchBodyOf } from './shard-search-wire.js';


export async function remoteSearchAnswer(network: NetworkNode, name: string, indexUid: string, parameters: SearchParameters): Promise<SearchAnswer> {
  const config = network.config;
  const remote = config.current.remotes[name];
  if (!remote) throw new SkeinError('invalid_multi_search_remote', `Invalid \`.federation_options.remote\`: remote \`${name.slice(0, 128)}\` is not registered`);
  const response = await network.remotes.post(name, remote.url, `/indexes/${encodeURIComponent(indexUid)}/search`, remote.searchApiKey, searchBodyOf(parameters));
  const text = response.text;
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (response.status >= 400 && response.status < 500) {
    throw new SkeinError('remote_bad_request', `Remote \`${name}\` refused the query: ${typeof body?.message === 'string' ? body.message : `status ${response.status}`}`);
  }
  if (response.status !== 200) throw new SkeinError('remote_remote_error', `Remote \`${name}\` answered ${response.status}.`);
  if (body === null || !Array.isArray(body.hits)) throw new SkeinError('remote_bad_response', `Remote \`${name}\` answered something that is not a search result.`);
  const candidates = typeof body.totalHits === 'number' ? body.totalHits : typeof body.estimatedTotalHits === 'number' ? body.estimatedTotalHits : 0;
  const facets = body.facetDistribution || body.facetStats
    ? { facetDistribution: body.facetDistribution as Record<string, Record<string, number>> | undefined, facetStats: body.facetStats as Record<string, { min: number; max: number }> | undefined }
    : null;
  return {
    hitDocuments: body.hits.map((hit) => JSON.stringify(hit)),
    query: parameters.q ?? '',
    processingTimeMs: typeof body.processingTimeMs === 'number' ? body.processingTimeMs : 0,
    window: searchWindow(parameters, Number.MAX_SAFE_INTEGER),
    candidates,
    facets,
  };
}

/** A remote that did not answer: no hits (its error goes to `remoteErrors`). */
export function emptyAnswer(parameters: SearchParameters): SearchAnswer {
  return { hitDocuments: [], query: parameters.q ?? '', processingTimeMs: 0, window: searchWindow(parameters, Number.MAX_SAFE_INTEGER), candidates: 0, facets: null };
}
