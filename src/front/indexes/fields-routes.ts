// POST /indexes/{uid}/fields (Meilisearch 1.2x "list index fields"): every field of the index with
// what its settings make of it (displayed, searchable, sortable, distinct, ranking rule, filterable
// features, locales), sorted by name, filtered and paginated. Answered from the index record the
// front already holds: its fieldDistribution names the fields (top-level ones, as Skein counts them).
import { matchesPattern } from '../../filter/attribute-patterns.js';
import type { IndexSettings } from '../../settings/index-settings.js';
import { denyUnknownFields, invalidValueType, isPlainObject } from '../http/deserr-messages.js';
import { jsonReply } from '../http/http-types.js';
import { validateIndexUid } from './index-uid.js';
import type { RouteSpec } from '../http/route-spec.js';
import { echo, SkeinError, type ErrorCode } from '../../errors/index.js';
import { facetOrderOf } from '../search/facet-merge.js';

export const fieldsRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/fields', action: 'fields.post', body: 'json',
    handle: (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const query = parseListFields(request.json);
      const record = context.indexes.require(uid);
      const names = Object.keys(record.fieldDistribution).sort();
      const fields = names.map((name) => describeField(name, record.settings)).filter((field) => keeps(query.filter, field));
      return jsonReply(200, { results: fields.slice(query.offset, query.offset + query.limit), offset: query.offset, limit: query.limit, total: fields.length });
    },
  },
];

interface FieldView {
  name: string;
  displayed: { enabled: boolean };
  searchable: { enabled: boolean };
  sortable: { enabled: boolean };
  distinct: { enabled: boolean };
  rankingRule: { enabled: boolean; order?: 'asc' | 'desc' };
  filterable: { enabled: boolean; sortBy: 'alpha' | 'count'; facetSearch: boolean; equality: boolean; comparison: boolean };
  localized: { locales: string[] };
}

const TOGGLES = ['displayed', 'searchable', 'sortable', 'distinct', 'rankingRule', 'filterable'] as const;
type Toggle = (typeof TOGGLES)[number];

interface FieldsFilter {
  attributePatterns: string[] | null;
  toggles: Partial<Record<Toggle, boolean>>;
}

interface ListFields {
  offset: number;
  limit: number;
  filter: FieldsFilter | null;
}

const TOGGLE_CODES: Record<Toggle, ErrorCode> = {
  displayed: 'invalid_index_fields_filter_displayed', searchable: 'invalid_index_fields_filter_searchable',
  sortable: 'invalid_index_fields_filter_sortable', distinct: 'invalid_index_fields_filter_distinct',
  rankingRule: 'invalid_index_fields_filter_ranking_rule', filterable: 'invalid_index_fields_filter_filterable',
};

function parseListFields(body: unknown): ListFields {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, ['offset', 'limit', 'filter']);
  const query: ListFields = {
    offset: usize(body.offset, 0, '.offset', 'invalid_index_offset'),
    limit: usize(body.limit, 20, '.limit', 'invalid_index_limit'),
    filter: null,
  };
  const filter = body.filter;
  if (filter === undefined || filter === null) return query;
  if (!isPlainObject(filter)) throw invalidValueType('invalid_index_fields_filter', '.filter', 'an object', filter);
  for (const key of Object.keys(filter)) {
    if (key !== 'attributePatterns' && !(TOGGLES as readonly string[]).includes(key)) {
      const expected = ['attributePatterns', ...TOGGLES].map((name) => `\`${name}\``).join(', ');
      throw new SkeinError('invalid_index_fields_filter', `Unknown field \`${echo(key)}\` inside \`.filter\`: expected one of ${expected}`);
    }
  }
  query.filter = { attributePatterns: null, toggles: {} };
  const patterns = filter.attributePatterns;
  if (patterns !== undefined && patterns !== null) {
    if (!Array.isArray(patterns) || patterns.some((pattern) => typeof pattern !== 'string')) {
      throw invalidValueType('invalid_index_fields_filter_attribute_patterns', '.filter.attributePatterns', 'an array of strings', patterns);
    }
    query.filter.attributePatterns = patterns as string[];
  }
  for (const toggle of TOGGLES) {
    const value = filter[toggle];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'boolean') throw invalidValueType(TOGGLE_CODES[toggle], `.filter.${toggle}`, 'a boolean', value);
    query.filter.toggles[toggle] = value;
  }
  return query;
}

function usize(value: unknown, fallback: number, path: string, code: ErrorCode): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidValueType(code, path, 'a positive integer', value);
  return value;
}

function keeps(filter: FieldsFilter | null, field: FieldView): boolean {
  if (filter === null) return true;
  if (filter.attributePatterns && !filter.attributePatterns.some((pattern) => matchesPattern(pattern, field.name))) return false;
  for (const toggle of TOGGLES) {
    const wanted = filter.toggles[toggle];
    if (wanted !== undefined && field[toggle].enabled !== wanted) return false;
  }
  return true;
}

function anyPattern(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, name));
}

export function describeField(name: string, settings: IndexSettings): FieldView {
  const order = rankingOrder(settings.rankingRules, name);
  return {
    name,
    displayed: { enabled: anyPattern(settings.displayedAttributes, name) },
    searchable: { enabled: anyPattern(settings.searchableAttributes, name) },
    sortable: { enabled: anyPattern(settings.sortableAttributes, name) },
    distinct: { enabled: settings.distinctAttribute !== null && matchesPattern(settings.distinctAttribute, name) },
    rankingRule: order === null ? { enabled: false } : { enabled: true, order },
    filterable: filterFeatures(settings, name),
    localized: { locales: localesOf(settings.localizedAttributes, name) },
  };
}

function rankingOrder(rules: readonly string[], name: string): 'asc' | 'desc' | null {
  for (const rule of rules) {
    const match = /^(.+):(asc|desc)$/.exec(rule);
    if (match && match[1] === name) return match[2] as 'asc' | 'desc';
  }
  return null;
}

/**
 * The first filterableAttributes entry matching the field decides (Meilisearch's
 * filterable_attributes_features): a plain string has every feature (the legacy form), a rule object
 * its `features` (defaults: no facet search, equality only).
 */
function filterFeatures(settings: IndexSettings, name: string): FieldView['filterable'] {
  const sortBy = facetOrderOf(settings.faceting, name);
  for (const entry of settings.filterableAttributes) {
    if (typeof entry === 'string') {
      if (matchesPattern(entry, name)) return { enabled: true, sortBy, facetSearch: true, equality: true, comparison: true };
      continue;
    }
    if (!isPlainObject(entry) || !Array.isArray(entry.attributePatterns)) continue;
    if (!entry.attributePatterns.some((pattern) => typeof pattern === 'string' && matchesPattern(pattern, name))) continue;
    const features = isPlainObject(entry.features) ? entry.features : {};
    const filter = isPlainObject(features.filter) ? features.filter : {};
    const facetSearch = features.facetSearch === true;
    const equality = filter.equality === undefined ? true : filter.equality === true;
    const comparison = filter.comparison === true;
    return { enabled: facetSearch || equality || comparison, sortBy, facetSearch, equality, comparison };
  }
  return { enabled: false, sortBy, facetSearch: false, equality: false, comparison: false };
}

function localesOf(rules: readonly unknown[] | null, name: string): string[] {
  for (const rule of rules ?? []) {
    if (!isPlainObject(rule) || !Array.isArray(rule.attributePatterns)) continue;
    if (rule.attributePatterns.some((pattern) => typeof pattern === 'string' && matchesPattern(pattern, name))) {
      return Array.isArray(rule.locales) ? rule.locales.filter((locale): locale is string => typeof locale === 'string') : [];
    }
  }
  return [];
}
