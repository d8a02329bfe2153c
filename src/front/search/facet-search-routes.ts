// POST /indexes/{uid}/facet-search (routes.md §4.4): the facet's values among the documents matching
// q + filter, whose normalized form the facetQuery prefixes (with typos). The shards count every value
// of the facet (an ordinary search with `facets: [facetName]` and no hits); the front keeps the
// matching values, ordered by sortFacetValuesBy and cut at maxValuesPerFacet.
import { storageKeyOf } from '../../storage/records.js';
import { requireContainsFeature } from '../../storage/experimental-features.js';
import { errorNamingIndex } from './search-routes.js';
import { mayNameForeign, resolveForeignFilter } from './foreign-filter.js';
import { frontChecksSearchOn, searchOnErrorOf } from './search-on-check.js';
import { performance } from 'node:perf_hooks';
import { tenantFilter, fuseFilters } from '../../auth/index.js';
import { echo, SkeinError } from '../../errors/index.js';
import { attributePatternsOf, listForMessage, matchesAnyPattern } from '../../filter/attribute-patterns.js';
import { facetQueryMatcher, type FacetQueryTypos } from '../../filter/facet-query.js';
import { facetCutOption, facetQueryOption, type FilterParameter, type MatchingStrategyName, type ShardSearchOptions } from '../../protocol/messages.js';
import { withShardFilter } from '../../network/network-node.js';
import { denyUnknownFields, invalidValueType, isPlainObject, missingField, unknownValue } from '../http/deserr-messages.js';
import { facetOrderOf, mergeFacetExtras } from './facet-merge.js';
import { ownValue } from '../../documents/own-fields.js';
import { compareFacetSortKeys, facetSortKeyOf } from '../../filter/facet-value.js';
import { validateIndexUid } from '../indexes/index-uid.js';
import { checkFilterSize, checkListLength, checkTextLength, REQUEST_LIMITS } from '../http/request-limits.js';
import type { RouteSpec } from '../http/route-spec.js';
import { checkFieldType, DEFAULT_SEARCH_LIMIT } from './search-params.js';
import { processingTimeOf, slowestWorkerMs } from './search-time.js';

const FIELDS = ['facetQuery', 'facetName', 'q', 'vector', 'hybrid', 'filter', 'matchingStrategy', 'attributesToSearchOn',
  'rankingScoreThreshold', 'locales', 'exhaustiveFacetCount'];
const STRATEGIES = ['last', 'all', 'frequency'];

interface FacetSearchBody {
  facetName: string;
  facetQuery: string | null;
  q: string | null;
  filter: unknown;
  matchingStrategy: MatchingStrategyName;
  /** rankingScoreThreshold and attributesToSearchOn, as the search's options. */
  searchOptions: Pick<ShardSearchOptions, 'rankingScoreThreshold' | 'attributesToSearchOn'>;
  exhaustiveFacetCount: boolean;
}

export function parseFacetSearchBody(body: unknown): FacetSearchBody {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, FIELDS);
  const { facetName, facetQuery, q, filter, matchingStrategy, exhaustiveFacetCount } = body;
  if (facetName === undefined) throw missingField('missing_facet_search_facet_name', 'facetName');
  if (typeof facetName !== 'string') throw invalidValueType('invalid_facet_search_facet_name', '.facetName', 'a string', facetName);
  if (facetQuery !== undefined && facetQuery !== null && typeof facetQuery !== 'string') {
    throw invalidValueType('invalid_facet_search_query', '.facetQuery', 'a string', facetQuery);
  }
  if (q !== undefined && q !== null && typeof q !== 'string') throw invalidValueType('invalid_search_q', '.q', 'a string', q);
  if (filter !== undefined && filter !== null && typeof filter !== 'string' && !Array.isArray(filter)) {
    throw invalidValueType('invalid_search_filter', '.filter', 'a string or an array', filter);
  }
  if (matchingStrategy !== undefined && (typeof matchingStrategy !== 'string' || !STRATEGIES.includes(matchingStrategy))) {
    if (typeof matchingStrategy !== 'string') throw invalidValueType('invalid_search_matching_strategy', '.matchingStrategy', 'a string', matchingStrategy);
    throw unknownValue('invalid_search_matching_strategy', '.matchingStrategy', matchingStrategy, STRATEGIES);
  }
  checkTextLength('invalid_facet_search_facet_name', { kind: 'body', path: '.facetName' }, facetName, REQUEST_LIMITS.nameChars);
  if (typeof facetQuery === 'string') checkTextLength('invalid_facet_search_query', { kind: 'body', path: '.facetQuery' }, facetQuery, REQUEST_LIMITS.facetQueryChars);
  if (typeof q === 'string') checkTextLength('invalid_search_q', { kind: 'body', path: '.q' }, q, REQUEST_LIMITS.queryChars);
  checkFilterSize('invalid_search_filter', { kind: 'body', path: '.filter' }, filter);
  for (const [name, code] of [['attributesToSearchOn', 'invalid_search_attributes_to_search_on'], ['locales', 'invalid_search_locales']] as const) {
    const list = body[name];
    if (Array.isArray(list)) checkListLength(code, { kind: 'body', path: `.${name}` }, list, REQUEST_LIMITS.listEntries);
  }
  if (exhaustiveFacetCount !== undefined && exhaustiveFacetCount !== null && typeof exhaustiveFacetCount !== 'boolean') {
    throw invalidValueType('invalid_facet_search_exhaustive_facet_count', '.exhaustiveFacetCount', 'a boolean', exhaustiveFacetCount);
  }
  const searchOptions: FacetSearchBody['searchOptions'] = {};
  for (const name of ['rankingScoreThreshold', 'attributesToSearchOn'] as const) {
    if (body[name] === undefined || body[name] === null) continue;
    checkFieldType(name, body[name]);
    (searchOptions as Record<string, unknown>)[name] = body[name];
  }
  return {
    searchOptions,
    facetName,
    facetQuery: (facetQuery as string | null | undefined) ?? null,
    q: (q as string | null | undefined) ?? null,
    filter: filter ?? null,
    matchingStrategy: (matchingStrategy as MatchingStrategyName | undefined) ?? 'last',
    exhaustiveFacetCount: exhaustiveFacetCount === true,
  };
}

export const facetSearchRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/facet-search', action: 'search', body: 'json',
    handle: async (request, context) => {
      const body = parseFacetSearchBody(request.json);
      const uid = validateIndexUid(request.params.indexUid!);
      const index = context.indexes.require(uid);
      // Timed from here, as Meilisearch's (search-time.ts): its body parsing and index lookup come before.
      const started = performance.now();
      if (index.settings.facetSearch === false) throw new SkeinError('facet_search_disabled', 'The facet search is disabled for this index');
      const filterable = attributePatternsOf(index.settings.filterableAttributes ?? []);
      if (!matchesAnyPattern(filterable, body.facetName)) {
        const available = filterable.length === 0
          ? 'This index does not have configured filterable attributes.'
          : `Available filterable attributes patterns are: ${listForMessage(filterable)}.`;
        throw new SkeinError('invalid_facet_search_facet_name', `Attribute \`${echo(String(body.facetName))}\` is not facet-searchable. ${available}`);
      }
      const ruleFilter = tenantFilter(request.access, uid);
      let filter = ruleFilter === null ? body.filter : fuseFilters(body.filter, ruleFilter);
      requireContainsFeature(context.storage.meta, filter);
      if (mayNameForeign(filter)) filter = await resolveForeignFilter(context, uid, index, filter as FilterParameter, 'invalid_search_filter');
      // facetStringsOnly: Meilisearch's facet search answers string (and boolean) values only, never numbers.
      // (the filters are parsed by the shards: filter/filter-input.ts)
      const typoTolerance = index.settings.typoTolerance;
      const typos: FacetQueryTypos = {
        enabled: typoTolerance.enabled, oneTypo: typoTolerance.minWordSizeForTypos.oneTypo, twoTypos: typoTolerance.minWordSizeForTypos.twoTypos,
        disabledOnFacet: typoTolerance.disableOnAttributes.includes(body.facetName), exactWords: typoTolerance.disableOnWords,
      };
      // The shards count only the values the facetQuery matches (a field of 100,000 values counted
      // whole took ~0.5 s of a worker); the same matcher keeps them here.
      const options: ShardSearchOptions = withShardFilter(context.network, context.storage.meta,
        { facets: [body.facetName], facetStringsOnly: true, ...(filter === null ? {} : { filter: filter as FilterParameter }), ...body.searchOptions,
          ...(body.facetQuery === null ? {} : { facetQuery: facetQueryOption(body.facetQuery, typos) }), facetCut: facetCutOption(index.settings.faceting) });
      // With a threshold, Meilisearch's search for the candidates ranks up to its default limit: the
      // threshold leaves out what it reaches below it.
      const hitsWanted = body.searchOptions.rankingScoreThreshold === undefined ? 0 : DEFAULT_SEARCH_LIMIT;
      const query = { indexUid: storageKeyOf(index), q: body.q, hitsWanted, matchingStrategy: body.matchingStrategy, attributesToRetrieve: null, exhaustiveCount: false };
      // attributesToSearchOn against the index's fields (search-on-check.ts), once the shards found nothing before it.
      const searchOnError = searchOnErrorOf(index, null, options.attributesToSearchOn);
      if (frontChecksSearchOn(index, options.attributesToSearchOn)) options.attributesToSearchOnChecked = true;
      // processingTimeMs: the front's work and the workers' own time (search-time.ts), as Meilisearch's.
      let waitedMs = 0;
      let workersMs: number | undefined = 0;
      if (body.exhaustiveFacetCount && index.settings.distinctAttribute) {
        // Meilisearch's exhaustive count applies the distinct attribute to the candidates: one document per
        // value, the lowest id. First every shard's lowest per value, then the counts over those.
        const sent = performance.now();
        const firsts = await context.search.search({ ...query, options: { ...options, distinctFacets: 'mins' } }, index.shardCount)
          .catch(errorNamingIndex(query.indexUid, null));
        if (searchOnError !== null) throw searchOnError;
        waitedMs += performance.now() - sent;
        workersMs = slowestWorkerMs(firsts);
        const mins = new Map<string, number>();
        for (const result of firsts) {
          for (const [key, docId] of Object.entries(result.extras?.distinctMins ?? {})) {
            mins.set(key, Math.min(mins.get(key) ?? Infinity, docId));
          }
        }
        options.distinctFacets = [...mins.values()];
      }
      const sent = performance.now();
      const results = await context.search.search({ ...query, options }, index.shardCount).catch(errorNamingIndex(query.indexUid, null));
      if (searchOnError !== null) throw searchOnError;
      waitedMs += performance.now() - sent;
      const lastWorkersMs = slowestWorkerMs(results);
      workersMs = workersMs === undefined || lastWorkersMs === undefined ? undefined : workersMs + lastWorkersMs;
      const merged = mergeFacetExtras(results.map((result) => result.extras));
      const counts = (merged?.facetDistribution ? ownValue(merged.facetDistribution, body.facetName) : undefined) ?? {};
      const matches = facetQueryMatcher(body.facetQuery, typos);
      const faceting = index.settings.faceting;
      const order = facetOrderOf(faceting, body.facetName);
      const hits = Object.entries(counts).filter(([value]) => matches(value)).map(([value, count]) => ({ sortKey: facetSortKeyOf(value), count }));
      hits.sort(order === 'count'
        ? (a, b) => b.count - a.count || compareFacetSortKeys(a.sortKey, b.sortKey)
        : (a, b) => compareFacetSortKeys(a.sortKey, b.sortKey));
      const facetHits = hits.slice(0, faceting.maxValuesPerFacet).map(({ sortKey, count }) => ({ value: sortKey.value, count }));
      const processingTimeMs = processingTimeOf(performance.now() - started, waitedMs, workersMs);
      return { status: 200, body: JSON.stringify({ facetHits, facetQuery: body.facetQuery, processingTimeMs }) };
    },
  },
];

