// Search parameters from a POST body or a GET query string, type-checked with Meilisearch's codes
// and messages. The typed hot fields are pulled out; every other accepted field goes into `options`
// (SearchOptions), whose ShardSearchOptions fields travel to the shards (protocol/messages.ts).
import { SkeinError, type ErrorCode } from '../../errors/index.js';
import type { MatchingStrategyName, ShardSearchOptions } from '../../protocol/messages.js';
import {
  booleanParameter, denyUnknownFields, denyUnknownParameters, invalidParameter, invalidValueType, isPlainObject,
  listParameter, unknownParameterValue, unknownValue, usizeParameter,
} from '../http/deserr-messages.js';
import { checkFilterSize, checkListLength, checkTextLength, REQUEST_LIMITS, type Where } from '../http/request-limits.js';

export interface SearchParameters {
  q: string | null;
  offset: number;
  limit: number;
  page: number | null;
  hitsPerPage: number | null;
  attributesToRetrieve: string[] | null;
  matchingStrategy: MatchingStrategyName;
  options: SearchOptions;
}

/**
 * A search's options besides the hot fields: the shards' (ShardSearchOptions, the only ones that cross
 * the thread boundary) and those only the front reads. Each checked by checkFieldType (and the
 * bounds of request-limits.ts) before toParameters makes them this type.
 */
export interface SearchOptions extends ShardSearchOptions {
  vector?: number[] | null;
  media?: unknown;
  hybrid?: unknown;
  showPerformanceDetails?: boolean | null;
  locales?: string[] | null;
  personalize?: unknown;
  useNetwork?: boolean | null;
}

export const DEFAULT_SEARCH_LIMIT = 20;
const MATCHING_STRATEGIES: readonly MatchingStrategyName[] = ['last', 'all', 'frequency'];

type FieldKind = 'string' | 'usize' | 'bool' | 'stringList' | 'filter' | 'float' | 'any';

/** Every field of Meilisearch's SearchQuery, in declaration order (the order error messages list them). */
const SEARCH_FIELDS: ReadonlyArray<[string, FieldKind, ErrorCode]> = [
  ['q', 'string', 'invalid_search_q'],
  ['vector', 'any', 'invalid_search_vector'],
  ['media', 'any', 'invalid_search_media'],
  ['hybrid', 'any', 'invalid_search_hybrid_query'],
  ['offset', 'usize', 'invalid_search_offset'],
  ['limit', 'usize', 'invalid_search_limit'],
  ['page', 'usize', 'invalid_search_page'],
  ['hitsPerPage', 'usize', 'invalid_search_hits_per_page'],
  ['attributesToRetrieve', 'stringList', 'invalid_search_attributes_to_retrieve'],
  ['retrieveVectors', 'bool', 'invalid_search_retrieve_vectors'],
  ['attributesToCrop', 'stringList', 'invalid_search_attributes_to_crop'],
  ['cropLength', 'usize', 'invalid_search_crop_length'],
  ['attributesToHighlight', 'stringList', 'invalid_search_attributes_to_highlight'],
  ['showMatchesPosition', 'bool', 'invalid_search_show_matches_position'],
  ['showRankingScore', 'bool', 'invalid_search_show_ranking_score'],
  ['showRankingScoreDetails', 'bool', 'invalid_search_show_ranking_score_details'],
  ['showPerformanceDetails', 'bool', 'invalid_search_show_performance_details'],
  ['filter', 'filter', 'invalid_search_filter'],
  ['sort', 'stringList', 'invalid_search_sort'],
  ['distinct', 'string', 'invalid_search_distinct'],
  ['facets', 'stringList', 'invalid_search_facets'],
  ['highlightPreTag', 'string', 'invalid_search_highlight_pre_tag'],
  ['highlightPostTag', 'string', 'invalid_search_highlight_post_tag'],
  ['cropMarker', 'string', 'invalid_search_crop_marker'],
  ['matchingStrategy', 'string', 'invalid_search_matching_strategy'],
  ['attributesToSearchOn', 'stringList', 'invalid_search_attributes_to_search_on'],
  ['rankingScoreThreshold', 'float', 'invalid_search_ranking_score_threshold'],
  ['locales', 'stringList', 'invalid_search_locales'],
  ['personalize', 'any', 'invalid_search_personalize'],
  ['useNetwork', 'bool', 'invalid_search_use_network'],
];
const FIELD_NAMES = SEARCH_FIELDS.map(([name]) => name);
const FIELD_SPECS = new Map(SEARCH_FIELDS.map(([name, kind, code]) => [name, { kind, code }]));

/** Query-string names of GET /search: `hybrid` and `media` are replaced by flat parameters. */
const GET_PARAMETERS = [
  'q', 'vector', 'offset', 'limit', 'page', 'hitsPerPage', 'attributesToRetrieve', 'retrieveVectors',
  'attributesToCrop', 'cropLength', 'attributesToHighlight', 'filter', 'sort', 'distinct', 'showMatchesPosition',
  'showRankingScore', 'showRankingScoreDetails', 'showPerformanceDetails', 'facets', 'highlightPreTag',
  'highlightPostTag', 'cropMarker', 'matchingStrategy', 'attributesToSearchOn', 'hybridEmbedder',
  'hybridSemanticRatio', 'rankingScoreThreshold', 'locales', 'personalizeUserContext', 'useNetwork',
];

export function parseSearchBody(body: unknown): SearchParameters {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, FIELD_NAMES);
  for (const [name, value] of Object.entries(body)) checkFieldType(name, value);
  checkSearchBounds(body, 'body');
  return toParameters(body);
}

export function parseSearchQuery(query: URLSearchParams): SearchParameters {
  denyUnknownParameters(query, GET_PARAMETERS);
  const body: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) {
    const raw = query.get(name)!;
    const spec = FIELD_SPECS.get(name);
    if (name === 'hybridEmbedder' || name === 'hybridSemanticRatio') {
      const hybrid = (body.hybrid ?? {}) as Record<string, unknown>;
      hybrid[name === 'hybridEmbedder' ? 'embedder' : 'semanticRatio'] = name === 'hybridEmbedder' ? raw : Number(raw);
      body.hybrid = hybrid;
      continue;
    }
    if (name === 'personalizeUserContext') {
      body.personalize = { userContext: raw };
      continue;
    }
    if (!spec) continue;
    switch (spec.kind) {
      case 'usize': body[name] = usizeParameter(query, name, 0, spec.code); break;
      case 'bool': body[name] = booleanParameter(query, name, spec.code); break;
      case 'stringList': body[name] = name === 'sort' ? splitSortParameter(raw) : listParameter(query, name); break;
      case 'filter': body[name] = filterFromQuery(raw); break;
      case 'float': body[name] = floatParameter(name, raw, spec.code); break;
      case 'any': body[name] = name === 'vector' ? raw.split(',').map((item) => floatParameter(name, item, spec.code)) : raw; break;
      default:
        if (name === 'matchingStrategy' && !MATCHING_STRATEGIES.includes(raw as MatchingStrategyName)) {
          throw unknownParameterValue(spec.code, name, raw, MATCHING_STRATEGIES);
        }
        body[name] = raw;
    }
  }
  checkSearchBounds(body, 'query');
  return toParameters(body);
}

function toParameters(body: Record<string, unknown>): SearchParameters {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!TYPED_FIELDS.has(name) && value !== undefined) fields[name] = value;
  }
  // Every field was type-checked (checkFieldType, or the GET parsers): this is where they become typed.
  const options = fields as SearchOptions;
  return {
    q: (body.q as string | null | undefined) ?? null,
    offset: (body.offset as number | undefined) ?? 0,
    limit: (body.limit as number | undefined) ?? DEFAULT_SEARCH_LIMIT,
    page: (body.page as number | null | undefined) ?? null,
    hitsPerPage: (body.hitsPerPage as number | null | undefined) ?? null,
    attributesToRetrieve: (body.attributesToRetrieve as string[] | null | undefined) ?? null,
    matchingStrategy: (body.matchingStrategy as MatchingStrategyName | undefined) ?? 'last',
    options,
  };
}

const TAG_FIELDS = new Set(['highlightPreTag', 'highlightPostTag', 'cropMarker']);

/** The sizes of request-limits.ts, after the type checks: every string and list a search carries is bounded. */
function checkSearchBounds(body: Record<string, unknown>, source: 'body' | 'query'): void {
  for (const [name, value] of Object.entries(body)) {
    const spec = FIELD_SPECS.get(name);
    if (value === null || value === undefined || !spec) continue;
    const where: Where = source === 'body' ? { kind: 'body', path: `.${name}` } : { kind: 'query', name };
    if (TAG_FIELDS.has(name)) checkTextLength(spec.code, where, value as string, REQUEST_LIMITS.tagChars);
    else if (name === 'q') checkTextLength(spec.code, where, value as string, REQUEST_LIMITS.queryChars);
    else if (name === 'distinct') checkTextLength(spec.code, where, value as string, REQUEST_LIMITS.nameChars);
    else if (spec.kind === 'filter') checkFilterSize(spec.code, where, value);
    else if (spec.kind === 'stringList' && Array.isArray(value)) checkListLength(spec.code, where, value, REQUEST_LIMITS.listEntries);
  }
}

const TYPED_FIELDS = new Set(['q', 'offset', 'limit', 'page', 'hitsPerPage', 'attributesToRetrieve', 'matchingStrategy']);

export function checkFieldType(name: string, value: unknown): void {
  const { kind, code } = FIELD_SPECS.get(name)!;
  const path = `.${name}`;
  // Absent and null are the same for every optional search field.
  if (value === null) return;
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') throw invalidValueType(code, path, 'a string', value);
      if (name === 'matchingStrategy' && !MATCHING_STRATEGIES.includes(value as MatchingStrategyName)) {
        throw unknownValue(code, path, value, MATCHING_STRATEGIES);
      }
      return;
    case 'usize':
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw invalidValueType(code, path, 'a positive integer', value);
      }
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw invalidValueType(code, path, 'a boolean', value);
      return;
    case 'stringList':
      if (!Array.isArray(value)) throw invalidValueType(code, path, 'an array', value);
      value.forEach((item, i) => {
        if (typeof item !== 'string') throw invalidValueType(code, `${path}[${i}]`, 'a string', item);
      });
      return;
    case 'filter':
      if (typeof value !== 'string' && !Array.isArray(value)) throw invalidValueType(code, path, 'a string or an array', value);
      return;
    case 'float':
      if (typeof value !== 'number') throw invalidValueType(code, path, 'a number', value);
      if (name === 'rankingScoreThreshold' && (value < 0 || value > 1)) {
        throw new SkeinError(code,
          `Invalid value at \`${path}\`: the value of \`rankingScoreThreshold\` is invalid, expected a float between \`0.0\` and \`1.0\`.`);
      }
      return;
    default:
      return;
  }
}

function floatParameter(name: string, raw: string, code: ErrorCode): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw invalidParameter(code, name, raw, 'a float');
  return value;
}

/** GET `filter` is JSON first (so the array form works), else the raw expression. */
function filterFromQuery(raw: string): unknown {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'string' || Array.isArray(parsed)) return parsed;
  } catch {
    // Not JSON: an ordinary filter expression.
  }
  return raw;
}

/** Comma-separated sort criteria; commas inside `_geoPoint(lat, lng)` do not split. */
export function splitSortParameter(raw: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of raw) {
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim() !== '' || out.length > 0) out.push(current.trim());
  return out.filter((item) => item.length > 0);
}
