// GET and POST /indexes/{uid}/search: validate, fan out to the shard workers, merge, answer.
import { retrievalWithVectors } from '../../documents/vectors-field.js';
import { requireContainsFeature } from '../../storage/experimental-features.js';
import { storageKeyOf } from '../../storage/records.js';
import { performance } from 'node:perf_hooks';
import { fuseFilters, tenantFilter, type Access } from '../../auth/index.js';
import { FieldSelection } from '../../documents/projection.js';
import { facetDistributionJson, mergeFacetExtras, type FacetExtras } from './facet-merge.js';
import type { FrontReply, FrontRequest } from '../http/http-types.js';
import { validateIndexUid } from '../indexes/index-uid.js';
import type { IndexView } from '../indexes/index-catalog.js';
import { searchWindow } from '../http/pagination.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';
import { parseSearchBody, parseSearchQuery, type SearchParameters } from './search-params.js';
import { searchResponseBody, type SearchAnswer } from './search-response.js';
import { mergeShardResults } from './shard-results.js';
import { processingTimeOf, slowestWorkerMs } from './search-time.js';
import type { ShardQuery } from './search-dispatcher.js';
import { hitDocuments } from './stored-hits.js';
import { hydrateHits } from './foreign-hydration.js';
import { mayNameForeign, resolveForeignFilter } from './foreign-filter.js';
import { frontChecksSearchOn, searchOnErrorOf } from './search-on-check.js';
import { SkeinError } from '../../errors/index.js';
import { facetCutOption, type FilterParameter } from '../../protocol/messages.js';
import { withShardFilter } from '../../network/network-node.js';

export const searchRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/search', action: 'search', body: 'json',
    handle: (request, context) => search(request, context, () => parseSearchBody(request.json)),
  },
  {
    method: 'GET', path: '/indexes/{indexUid}/search', action: 'search', body: 'none',
    handle: (request, context) => search(request, context, () => parseSearchQuery(request.query)),
  },
];

async function search(request: FrontRequest, context: FrontContext, parse: () => SearchParameters): Promise<FrontReply> {
  const started = performance.now();
  const parameters = parse();
  const uid = validateIndexUid(request.params.indexUid!);
  return { status: 200, body: '', listBody: searchResponseBody(await searchIndex(request.access, context, uid, parameters, started)) };
}

/**
 * A rejection handler for a search's dispatch: the workers name the index by its storage key in the
 * errors Meilisearch prefixes with ``Index `uid`: `` (shard/search/search-plan.ts); they name it by
 * `uid` instead, or not at all with null (facet search, whose errors Meilisearch does not prefix).
 */
export function errorNamingIndex(key: string, uid: string | null): (cause: unknown) => never {
  const prefix = `Index \`${key}\`: `;
  return (cause) => {
    if (!(cause instanceof SkeinError) || !cause.message.startsWith(prefix) || uid === key) throw cause;
    const rest = cause.message.slice(prefix.length);
    throw new SkeinError(cause.code, uid === null ? rest : `Index \`${uid}\`: ${rest}`);
  };
}

/**
 * One search of one index, answered as what its response body says. Everything up to the dispatch runs
 * synchronously, so searches started in one event-loop turn (multi-search) share the workers' batches.
 */
export async function searchIndex(access: Access, context: FrontContext, uid: string, parameters: SearchParameters,
  started = performance.now(), hydrate = true, view: IndexView | null = null): Promise<SearchAnswer> {
  const useNetwork = parameters.options.useNetwork === true;
  delete parameters.options.useNetwork;
  const { index, key, window, query } = shardQueryOf(access, context, uid, parameters, view);
  // `_foreign(..)` conditions: evaluated on their foreign indexes first (foreign-filter.ts).
  if (mayNameForeign(query.options.filter)) query.options.filter = await resolveForeignFilter(context, uid, index, query.options.filter!, 'invalid_search_filter');
  const dispatched = performance.now();
  // useNetwork over shard groups (src/network): every group's results, merged below as shards' are.
  const network = useNetwork ? context.network?.forSearch() ?? null : null;
  let remoteErrors: SearchAnswer['remoteErrors'];
  let results;
  // attributesToSearchOn against the index's fields (search-on-check.ts): raised once the shards found nothing before it.
  const searchOnError = searchOnErrorOf(index, uid, query.options.attributesToSearchOn);
  if (frontChecksSearchOn(index, query.options.attributesToSearchOn)) query.options = { ...query.options, attributesToSearchOnChecked: true };
  // (the other groups' counts join this node's: no worker here holds the whole index)
  if (network) query.options.networked = true;
  // A distinct count is shown capped at maxTotalHits, but a federated search (hydrate false) sums the uncapped counts.
  if (hydrate && ((query.options.distinct ?? index.settings.distinctAttribute) ?? null) !== null) query.options.countCap = window.maxTotalHits;
  if (network) ({ results, remoteErrors } = await network.search(uid, query, index.shardCount, parameters).catch(errorNamingIndex(key, uid)));
  else results = await context.search.search(query, index.shardCount).catch(errorNamingIndex(key, uid));
  if (searchOnError !== null) throw searchOnError;
  const answered = performance.now();
  const { hits, candidates } = mergeShardResults(results, window.offset, window.limit);
  let facets: FacetExtras | null = null;
  if (parameters.options.facets !== undefined && parameters.options.facets !== null) {
    facets = mergeFacetExtras(results.map((result) => result.extras)) ?? { facetDistribution: {} };
    if (facets.facetDistribution) facets.facetDistributionJson = facetDistributionJson(facets.facetDistribution, index.settings.faceting);
  }
  const merged = performance.now();
  const hitIds: number[] = [];
  // (a federated search hydrates its merged page instead: hydrate false)
  const stored = hitDocuments(context.storedDocuments, key, hits, hitIds);
  const hitJson = hydrate ? hydrateHits(context, index.settings.foreignKeys, stored) : stored;
  const finished = performance.now();
  // From the dispatch, as Meilisearch's, whose body parsing and index lookup come before (search-time.ts).
  const processingTimeMs = processingTimeOf(finished - dispatched, answered - dispatched, slowestWorkerMs(results));
  const answer: SearchAnswer = { hitDocuments: hitJson, query: parameters.q ?? '', processingTimeMs, window, candidates, facets, hitIds };
  if (remoteErrors) answer.remoteErrors = remoteErrors;
  if (parameters.options.showPerformanceDetails === true) {
    // Where this search's time went, as the front sees it (Meilisearch's `performanceDetails` shape:
    // step path -> duration); the shard step covers queueing, ranking, filters and facets on the workers.
    answer.performanceDetails = {
      search: milliseconds(finished - started),
      'search > parse and validate': milliseconds(dispatched - started),
      'search > shards': milliseconds(answered - dispatched),
      'search > merge': milliseconds(merged - answered),
      'search > documents': milliseconds(finished - merged),
    };
  }
  return answer;
}

/** The search's message to the shards (also a network search's, on every node: src/network). */
/** `view`: a multi-search's records of its indexes (IndexCatalog.resolveTogether). */
export function shardQueryOf(access: Access, context: FrontContext, uid: string, parameters: SearchParameters, view: IndexView | null = null) {
  const index = context.indexes.require(uid, view);
  // A tenant token's rule filter is ANDed with the request's (auth.md §7).
  const ruleFilter = tenantFilter(access, uid);
  // (a tenant token's filter, like the request's, is parsed by the shards: filter/filter-input.ts)
  if (ruleFilter !== null) parameters.options.filter = fuseFilters(parameters.options.filter ?? null, ruleFilter) as FilterParameter;
  requireContainsFeature(context.storage.meta, parameters.options.filter);
  withShardFilter(context.network, context.storage.meta, parameters.options);
  // Facets in alpha order need each shard's first maxValuesPerFacet values only (shard/facets/facet-distribution.ts).
  if (parameters.options.facets !== undefined && parameters.options.facets !== null && parameters.options.facets.length > 0) {
    parameters.options.facetCut = facetCutOption(index.settings.faceting);
  }
  const window = searchWindow(parameters, index.settings.pagination.maxTotalHits);
  // Shards and documents are named by the record's storage key: resolved once, so a swap meanwhile
  // cannot mix the two sides in one answer (src/scheduler/operations/index-swap.ts).
  const key = storageKeyOf(index);
  const query: ShardQuery = {
    indexUid: key,
    q: parameters.q,
    hitsWanted: window.hitsWanted,
    matchingStrategy: parameters.matchingStrategy,
    attributesToRetrieve: retrievalWithVectors(effectiveAttributesToRetrieve(parameters.attributesToRetrieve, index.settings.displayedAttributes),
      index.fieldDistribution, parameters.options.retrieveVectors === true),
    exhaustiveCount: window.mode === 'page',
    options: parameters.options,
  };
  return { index, key, window, query };
}

function milliseconds(value: number): string {
  return `${value.toFixed(2)}ms`;
}

/**
 * attributesToRetrieve ∩ displayedAttributes; null means "every attribute" (both sides all).
 * A requested `a` against a displayed `a.b` keeps `a.b`, and the other way round.
 */
export function effectiveAttributesToRetrieve(requested: string[] | null, displayed: string[]): string[] | null {
  const allDisplayed = displayed.includes('*');
  const allRequested = requested === null || requested.includes('*');
  if (allDisplayed && allRequested) return null;
  if (allDisplayed) return requested;
  if (allRequested) return [...displayed];
  const out = new Set<string>();
  const shown = new FieldSelection(displayed);
  for (const name of requested!) {
    if (shown.selects(name)) out.add(name);
    else for (const suffix of shown.selectionUnder(name)?.selectors ?? []) out.add(`${name}.${suffix}`);
  }
  return [...out];
}
