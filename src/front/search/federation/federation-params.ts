// The `federation` object of POST /multi-search and each query's `federationOptions`, checked with
// Meilisearch v1.5x's codes and messages (crates/meilisearch/src/search/federated/types.rs, error.rs).
import { SkeinError, type ErrorCode } from '../../../errors/index.js';
import { readFeatures } from '../../../storage/experimental-features.js';
import { invalidValueType, isPlainObject } from '../../http/deserr-messages.js';
import { validateIndexUid } from '../../indexes/index-uid.js';
import type { FrontContext } from '../../http/route-spec.js';
import { DEFAULT_SEARCH_LIMIT } from '../search-params.js';

export interface Federation {
  offset: number;
  limit: number;
  page: number | null;
  hitsPerPage: number | null;
  /** index uid -> facet patterns (null: the index is named, no facets asked), in the body's order. */
  facetsByIndex: Map<string, string[] | null>;
  mergeFacets: { maxValuesPerFacet: number | null } | null;
  distinct: string | null;
  showPerformanceDetails: boolean;
}

export interface FederationOptions {
  weight: number;
  remote: string | null;
  queryPosition: number | null;
}

const FEDERATION_FIELDS = ['limit', 'offset', 'page', 'hitsPerPage', 'facetsByIndex', 'mergeFacets', 'distinct', 'showPerformanceDetails', 'personalize'];
const OPTIONS_FIELDS = ['weight', 'remote', 'queryPosition'];

function unknownFieldInside(field: string, where: string, expected: readonly string[], code: ErrorCode): SkeinError {
  return new SkeinError(code, `Unknown field \`${field.slice(0, 128)}\` inside \`${where}\`: expected one of ${expected.map((name) => `\`${name}\``).join(', ')}`);
}

function usize(value: unknown, path: string, code: ErrorCode, fallback: number): number;
function usize(value: unknown, path: string, code: ErrorCode, fallback: null): number | null;
function usize(value: unknown, path: string, code: ErrorCode, fallback: number | null): number | null {
  if (value === undefined || (value === null && fallback === null)) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidValueType(code, path, 'a positive integer', value);
  return value;
}

export function parseFederation(value: unknown): Federation {
  if (!isPlainObject(value)) throw invalidValueType('bad_request', '.federation', 'an object', value);
  for (const name of Object.keys(value)) {
    if (!FEDERATION_FIELDS.includes(name)) throw unknownFieldInside(name, '.federation', FEDERATION_FIELDS, 'bad_request');
  }
  const federation: Federation = {
    limit: usize(value.limit, '.federation.limit', 'invalid_search_limit', DEFAULT_SEARCH_LIMIT),
    offset: usize(value.offset, '.federation.offset', 'invalid_search_offset', 0),
    page: usize(value.page, '.federation.page', 'invalid_search_page', null),
    hitsPerPage: usize(value.hitsPerPage, '.federation.hitsPerPage', 'invalid_search_hits_per_page', null),
    facetsByIndex: new Map(),
    mergeFacets: null,
    distinct: null,
    showPerformanceDetails: false,
  };
  const { facetsByIndex, mergeFacets, distinct, showPerformanceDetails } = value;
  if (facetsByIndex !== undefined && facetsByIndex !== null) {
    if (!isPlainObject(facetsByIndex)) throw invalidValueType('invalid_multi_search_facets_by_index', '.federation.facetsByIndex', 'an object', facetsByIndex);
    for (const [uid, facets] of Object.entries(facetsByIndex)) {
      try {
        validateIndexUid(uid);
      } catch (cause) {
        throw new SkeinError('invalid_multi_search_facets_by_index', `Invalid value at \`.federation.facetsByIndex\`: ${(cause as Error).message}`);
      }
      const path = `.federation.facetsByIndex.${uid}`;
      if (facets === null) {
        federation.facetsByIndex.set(uid, null);
        continue;
      }
      if (!Array.isArray(facets)) throw invalidValueType('invalid_multi_search_facets_by_index', path, 'an array', facets);
      facets.forEach((facet, k) => {
        if (typeof facet !== 'string') throw invalidValueType('invalid_multi_search_facets_by_index', `${path}[${k}]`, 'a string', facet);
      });
      federation.facetsByIndex.set(uid, facets as string[]);
    }
  }
  if (mergeFacets !== undefined && mergeFacets !== null) {
    if (!isPlainObject(mergeFacets)) throw invalidValueType('invalid_multi_search_merge_facets', '.federation.mergeFacets', 'an object', mergeFacets);
    for (const name of Object.keys(mergeFacets)) {
      if (name !== 'maxValuesPerFacet') throw unknownFieldInside(name, '.federation.mergeFacets', ['maxValuesPerFacet'], 'invalid_multi_search_merge_facets');
    }
    federation.mergeFacets = {
      maxValuesPerFacet: usize(mergeFacets.maxValuesPerFacet, '.federation.mergeFacets.maxValuesPerFacet', 'invalid_multi_search_max_values_per_facet', null),
    };
  }
  if (distinct !== undefined && distinct !== null) {
    if (typeof distinct !== 'string') throw invalidValueType('invalid_search_distinct', '.federation.distinct', 'a string', distinct);
    federation.distinct = distinct;
  }
  if (showPerformanceDetails !== undefined) {
    if (typeof showPerformanceDetails !== 'boolean') {
      throw invalidValueType('invalid_search_show_performance_details', '.federation.showPerformanceDetails', 'a boolean', showPerformanceDetails);
    }
    federation.showPerformanceDetails = showPerformanceDetails;
  }
  return federation;
}

/** `path`: `.queries[i].federationOptions`. */
export function parseFederationOptions(value: unknown, path: string): FederationOptions {
  const options: FederationOptions = { weight: 1, remote: null, queryPosition: null };
  if (value === undefined || value === null) return options;
  if (!isPlainObject(value)) throw invalidValueType('invalid_multi_search_federation_options', path, 'an object', value);
  for (const name of Object.keys(value)) {
    if (!OPTIONS_FIELDS.includes(name)) throw unknownFieldInside(name, path, OPTIONS_FIELDS, 'invalid_multi_search_federation_options');
  }
  const { weight, remote, queryPosition } = value;
  if (weight !== undefined) {
    if (typeof weight !== 'number') throw invalidValueType('invalid_multi_search_weight', `${path}.weight`, 'a number', weight);
    if (!(weight >= 0)) {
      throw new SkeinError('invalid_multi_search_weight',
        `Invalid value at \`${path}.weight\`: the value of \`weight\` is invalid, expected a positive float (>= 0.0).`);
    }
    options.weight = weight;
  }
  if (remote !== undefined && remote !== null) {
    if (typeof remote !== 'string') throw invalidValueType('invalid_multi_search_remote', `${path}.remote`, 'a string', remote);
    options.remote = remote;
  }
  options.queryPosition = usize(queryPosition, `${path}.queryPosition`, 'invalid_multi_search_query_position', null);
  return options;
}

/** The checks Meilisearch makes on each query of a federated search, after parsing and authorization. */
export function checkFederatedQuery(query: Record<string, unknown>, uid: string, options: FederationOptions,
  federation: Federation, context: FrontContext): void {
  for (const field of ['offset', 'limit', 'page', 'hitsPerPage']) {
    if (query[field] !== undefined && query[field] !== null) {
      throw new SkeinError('invalid_multi_search_query_pagination',
        `Using pagination options is not allowed in federated queries.\n - Hint: remove \`${field}\` from the query or remove \`federation\` from the request\n - Hint: pass \`federation.limit\` and \`federation.offset\` for pagination in federated search`);
    }
  }
  if (Array.isArray(query.facets) && query.facets.length > 0) {
    throw new SkeinError('invalid_multi_search_query_facets',
      `Using facet options is not allowed in federated queries.\n - Hint: remove \`facets\` from the query or remove \`federation\` from the request\n - Hint: pass \`federation.facetsByIndex.${uid}: ${JSON.stringify(query.facets)}\` for facets in federated search`);
  }
  if (query.personalize !== undefined && query.personalize !== null) {
    throw new SkeinError('invalid_multi_search_query_personalization',
      'Using `.personalize` is not allowed in federated queries.\n - Hint: remove `personalize` from the query or remove `federation` from the request\n - Hint: pass `federation.personalize` for personalization in federated search');
  }
  if (query.useNetwork === true && options.remote !== null) {
    throw new SkeinError('invalid_multi_search_federation_options',
      'Using `.useNetwork` is not allowed as the same time as `.federationOptions.remote`.\n  - Hint: to perform an explicit query against a remote, remove `.useNetwork`.\n  - Hint: to automatically perform queries against the entire network, remove `.federationOptions.remote`.');
  }
  if (query.showPerformanceDetails !== undefined && query.showPerformanceDetails !== null) {
    throw new SkeinError('invalid_multi_search_query_show_performance_details',
      'Using `.showPerformanceDetails` is not allowed in federated queries.\n - Hint: remove `showPerformanceDetails` from the query or remove `federation` from the request');
  }
  if (query.distinct !== undefined && query.distinct !== null && federation.distinct !== null) {
    throw new SkeinError('invalid_multi_search_distinct',
      'Using `distinct` options is not allowed in federated queries when it also appears in `.federation.distinct`.\n - Hint: remove `distinct` from the query or remove `federation` from the request\n  - Note: `distinct` at the query level is discouraged in federated search.');
  }
  if (options.remote !== null) {
    requireNetwork(context, 'Performing a remote federated search');
    // The remotes of /network (src/network).
    if (!Object.hasOwn(context.network?.config.current.remotes ?? {}, options.remote)) {
      throw new SkeinError('invalid_multi_search_remote',
        `Invalid \`.federation_options.remote\`: remote \`${options.remote.slice(0, 128)}\` is not registered`);
    }
  }
  if (options.queryPosition !== null) requireNetwork(context, 'Using `federationOptions.queryPosition`');
}

function requireNetwork(context: FrontContext, action: string): void {
  if (!readFeatures(context.storage.meta).network) {
    throw new SkeinError('feature_not_enabled',
      `${action} requires enabling the \`network\` experimental feature. See https://github.com/orgs/meilisearch/discussions/805`);
  }
}

/** How many hits of each query the merge may need (Meilisearch's required_hit_count). */
export function requiredHitCount(federation: Federation): number {
  const { page, hitsPerPage } = federation;
  if (page === null && hitsPerPage === null) return federation.offset + federation.limit;
  if (page === null) return hitsPerPage!;
  if (page === 0) return 0;
  return (hitsPerPage ?? DEFAULT_SEARCH_LIMIT) * page;
}
