// The shaping options of one search (filter, sort, facets, distinct), parsed and checked against the
// index settings once per query and worker, before any shard is searched. Errors are SkeinErrors
// with the search codes, so the front answers 400 with Meilisearch's messages.
import { echo, SkeinError } from '../../errors/index.js';
import { attributePatternsOf, listForMessage, matchesAnyPattern, PatternSet } from '../../filter/attribute-patterns.js';
import { filterText, foreignConditions, type FilterNode } from '../../filter/filter-ast.js';
import { checkFilterAgainstSettings, parseFilterParameter } from '../../filter/filter-input.js';
import { parseFilterString } from '../../filter/filter-parser.js';
import { FieldNames, MAX_CONTAINS_WORK, SearchOnNames, tooMuchContainsWork } from '../../filter/search-on-names.js';
import { resolveShardConditions } from '../../filter/shard-filter.js';
import { checkFacetPatterns, filterableRulesOf, selectFacetFields } from '../../filter/facet-patterns.js';
import { checkSortParameter } from '../../filter/sort-criteria.js';
import type { SortCriterion } from '../../ranking/rules/sort-key.js';
import type { IndexSettings } from '../../settings/index-settings.js';
import type { ShardSearchOptions } from '../../protocol/messages.js';

export interface SearchPlan {
  filter: FilterNode | null;
  /** The sort parameter's criteria texts and their parsed form (same order). */
  sortTexts: string[] | null;
  sortCriteria: SortCriterion[];
  /** Requested facet patterns (resolved by the shard against its fields: expandFacetNames), or null. */
  facets: string[] | null;
  distinct: string | null;
  /** The first `_geoPoint` criterion: hits get `_geoDistance` from it. */
  geoPoint: { lat: number; lng: number } | null;
  /** The ranking rules instead of the index's: the documents routes order by their sort alone. */
  rankingRules: readonly string[] | null;
}

/** Browsing documents (GET /documents, POST /documents/fetch): sort criteria only, then internal id order. */
const DOCUMENTS_ORDER: readonly string[] = Object.freeze(['sort']);

/**
 * `indexName`: the index as the errors of a search name it (Meilisearch's ``Index `uid`: `` before the
 * errors its search raises against the settings, not before syntax errors); the documents routes name none.
 */
export function compileSearchPlan(settings: IndexSettings, options: ShardSearchOptions | undefined, indexName: string | null = null): SearchPlan {
  // options.documents: a documents route, whose sort needs no `sort` ranking rule and has its own error code.
  const documents = options?.documents === true;
  const scope = documents || indexName === null ? (error: SkeinError) => error : inIndex(indexName);
  const filterable = attributePatternsOf(settings.filterableAttributes ?? []);
  let filter = parseFilterParameter(options?.filter ?? null);
  // The inner filter of a `_foreign` condition, searched on the foreign index (front/search/foreign-filter.ts).
  if (filter && options?.foreignFilter !== undefined) filter = foreignConditions(filter)[options.foreignFilter]?.filter ?? null;
  if (filter) {
    const parsed = filter;
    // `_shard` conditions resolved first (the feature's error comes before any other), their errors after the filterable check.
    const resolved = resolveShardConditions(filter, options?.shardFilter);
    filter = resolved.node;
    try {
      checkFilterAgainstSettings(filter, settings.filterableAttributes ?? [], 'invalid_search_filter', scope);
    } catch (cause) {
      // Meilisearch's search routes (not facet search, not a `_foreign` inner filter) evaluate the filter's re-serialization.
      const serialized = !documents && options?.facetStringsOnly !== true && options?.foreignFilter === undefined;
      throw (serialized && cause instanceof SkeinError ? errorInSerialized(parsed, settings, options, scope) : null) ?? cause;
    }
    if (resolved.error) throw scope(resolved.error);
  }
  const sortTexts = options?.sort ?? null;
  const sortCriteria = !sortTexts ? []
    : documents ? checkSortParameter(sortTexts, settings.sortableAttributes ?? [], null, 'invalid_document_sort')
      : checkSortParameter(sortTexts, settings.sortableAttributes ?? [], settings.rankingRules ?? [], 'invalid_search_sort', scope);
  const facets = options?.facets ? checkFacets(options.facets, settings.filterableAttributes ?? []) : null;
  let distinct = documents ? null : settings.distinctAttribute ?? null;
  const requestedDistinct = options?.distinct;
  if (typeof requestedDistinct === 'string') {
    if (!matchesAnyPattern(filterable, requestedDistinct)) {
      const available = filterable.length === 0
        ? 'This index does not have configured filterable attributes.'
        : `Available filterable attributes patterns are: ${listForMessage(filterable)}.`;
      throw scope(new SkeinError('invalid_search_distinct', `Attribute \`${echo(requestedDistinct)}\` is not filterable and thus, cannot be used as distinct attribute. ${available}`));
    }
    distinct = requestedDistinct;
  }
  if (options?.attributesToSearchOn && options.attributesToSearchOnChecked !== true) {
    try {
      checkAttributesToSearchOn(settings, options.attributesToSearchOn);
    } catch (cause) {
      throw cause instanceof SkeinError ? scope(cause) : cause;
    }
  }
  const geoPoint = sortCriteria.find((criterion) => criterion.point)?.point ?? null;
  return { filter, sortTexts, sortCriteria, facets, distinct, geoPoint, rankingRules: documents ? DOCUMENTS_ORDER : null };
}

/**
 * The error the filter's re-serialization raises against the settings (null: none, or it has no text).
 * Meilisearch's search routes parse the filter, serialize it again (milli's
 * serialize_index_filter_to_filter_string: filter-ast.ts filterText) and evaluate that text, so the errors
 * found while evaluating (not filterable, geo arguments) quote it: `2:6 "many" = "Glass"`. Only on the error path.
 */
function errorInSerialized(parsed: FilterNode, settings: IndexSettings, options: ShardSearchOptions | undefined,
  scope: (error: SkeinError) => SkeinError): SkeinError | null {
  let again: FilterNode | null;
  try {
    again = parseFilterString(filterText(parsed));
  } catch {
    return null;
  }
  if (again === null) return null;
  try {
    checkFilterAgainstSettings(resolveShardConditions(again, options?.shardFilter).node, settings.filterableAttributes ?? [], 'invalid_search_filter', scope);
  } catch (cause) {
    if (cause instanceof SkeinError) return cause;
    throw cause;
  }
  return null;
}

/**
 * Meilisearch's check of attributesToSearchOn (milli's SearchContext::attributes_to_search_on): with
 * searchableAttributes `*` every name passes; else a name must be a searchable attribute, a path
 * inside one, or a pattern with `*` matching one. The message lists the searchable attributes that
 * are displayed, sorted, and tells when some are hidden.
 */
function checkAttributesToSearchOn(settings: IndexSettings, names: readonly string[]): void {
  const searchable = settings.searchableAttributes;
  if (searchable.includes('*')) return;
  const patterns = new PatternSet(searchable);
  // A name with `*` against the setting's entries as milli's match_pattern (search-on-names.ts), its work bounded.
  const matcher = new SearchOnNames(names);
  const entries = new FieldNames(searchable);
  if (matcher.containsWorkAgainst(entries) > MAX_CONTAINS_WORK) throw tooMuchContainsWork(matcher.containsNames);
  for (const name of matcher.exact) {
    if (name === '*' || patterns.matches(name)) continue;
    if (name.includes('*') && matcher.nameMatchesAny(name, entries)) continue;
    const displayed = new PatternSet(settings.displayedAttributes);
    const shown = settings.displayedAttributes.includes('*') ? searchable : searchable.filter((attribute) => displayed.matches(attribute));
    const valid = [...new Set(shown)].sort();
    const hidden = new Set(searchable).size > valid.length;
    throw new SkeinError('invalid_search_attributes_to_search_on',
      `Attribute \`${echo(name)}\` is not searchable. Available searchable attributes are: \`${valid.join(', ')}${hidden ? ', <..hidden-attributes>' : ''}\`.`);
  }
}

/** Meilisearch's ``Index `uid`: `` prefix (MeilisearchHttpError::Milli with the index name). */
export function inIndex(indexName: string): (error: SkeinError) => SkeinError {
  return (error) => new SkeinError(error.code, `Index \`${indexName}\`: ${error.message}`);
}

function checkFacets(facets: string[], filterableSetting: readonly unknown[]): string[] {
  checkFacetPatterns(facets, filterableRulesOf(filterableSetting));
  return facets;
}

/**
 * The fields of the shard the facets ask for (patterns resolved as Meilisearch, facet-patterns.ts);
 * a plain filterable name is kept even when the shard has no value for it (an empty distribution).
 */
export function expandFacetNames(facets: readonly string[], fieldNames: Iterable<string>, filterableSetting: readonly unknown[]): string[] {
  const rules = filterableRulesOf(filterableSetting);
  const names = new Set(fieldNames);
  for (const facet of facets) if (!facet.includes('*')) names.add(facet);
  return selectFacetFields(facets, names, rules);
}
