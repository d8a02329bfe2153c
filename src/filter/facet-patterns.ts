// The search's `facets` as Meilisearch resolves them (meilisearch search/mod.rs
// compute_facet_distribution_stats, milli FacetDistribution): each entry is a pattern (`genre`,
// `dogs.*`, `*_id`, `*`), valid when some filterable rule intersects it; the distribution then covers
// the index's fields an entry matches (exactly or by wildcard) whose first matching rule is
// filterable, each with its nested fields (the legacy selection: `doggos` also selects `doggos.name`).

import { SkeinError } from '../errors/index.js';

interface FilterableRule {
  /** A plain string entry (legacy matching: a name covers its nested fields). */
  field: string | null;
  /** A `{attributePatterns, features}` entry. */
  patterns: string[];
  filterable: boolean;
}

type PatternMatch = 'match' | 'parent' | 'none';

/** milli's is_faceted_by: `field` is `facet` or nested under it. */
function isFacetedBy(field: string, facet: string): boolean {
  return field.startsWith(facet) && (field.length === facet.length || field[facet.length] === '.');
}

/** milli's match_pattern (only `*`, `x*`, `*x` and `*x*` wildcards). */
function matchPattern(pattern: string, text: string): PatternMatch {
  if (pattern === '*') return 'match';
  if (pattern.length > 1 && pattern.startsWith('*') && pattern.endsWith('*')) {
    if (text.includes(pattern.slice(1, -1))) return 'match';
  } else if (pattern.startsWith('*')) {
    if (text.endsWith(pattern.slice(1))) return 'match';
  } else if (pattern.endsWith('*')) {
    if (text.startsWith(pattern.slice(0, -1))) return 'match';
  } else if (pattern === text) return 'match';
  return isFacetedBy(pattern, text) ? 'parent' : 'none';
}

export function filterableRulesOf(setting: readonly unknown[]): FilterableRule[] {
  const rules: FilterableRule[] = [];
  for (const entry of setting) {
    if (typeof entry === 'string') rules.push({ field: entry, patterns: [entry], filterable: true });
    else if (entry !== null && typeof entry === 'object') {
      const { attributePatterns, features } = entry as { attributePatterns?: unknown; features?: { filter?: { equality?: unknown; comparison?: unknown } } };
      const patterns = Array.isArray(attributePatterns) ? attributePatterns.filter((pattern): pattern is string => typeof pattern === 'string') : [];
      // FilterFeatures default: equality on, comparison off; filterable = equality || comparison.
      const filterable = features?.filter?.equality !== false || features?.filter?.comparison === true;
      rules.push({ field: null, patterns, filterable });
    }
  }
  return rules;
}

function ruleMatches(rule: FilterableRule, name: string): boolean {
  if (rule.field !== null) return isFacetedBy(name, rule.field);
  return rule.patterns.some((pattern) => matchPattern(pattern, name) === 'match');
}

function ruleIntersects(rule: FilterableRule, facet: string): boolean {
  if (rule.field !== null) {
    return isFacetedBy(rule.field, facet) || isFacetedBy(facet, rule.field) || matchPattern(facet, rule.field) !== 'none';
  }
  return rule.patterns.some((pattern) => matchPattern(facet, pattern) !== 'none' || matchPattern(pattern, facet) !== 'none');
}

/** milli's matching_features(...).is_filterable(): the first rule matching the field decides. */
export function isFilterableField(rules: readonly FilterableRule[], name: string): boolean {
  const rule = rules.find((candidate) => ruleMatches(candidate, name));
  return rule !== undefined && rule.filterable;
}

/** Throws Meilisearch's `invalid_search_facets` error for the first facet pattern no filterable rule intersects. */
export function checkFacetPatterns(facets: readonly string[], rules: readonly FilterableRule[]): void {
  for (const facet of facets) {
    let refusedBy = -1;
    let valid = false;
    for (let k = 0; k < rules.length; k++) {
      const rule = rules[k]!;
      if (rule.filterable) {
        if (ruleIntersects(rule, facet)) {
          valid = true;
          break;
        }
      } else if (ruleMatches(rule, facet)) {
        refusedBy = k;
        break;
      }
    }
    if (valid) continue;
    let detail: string;
    if (refusedBy >= 0) {
      detail = `Attribute \`${facet}\` matched rule #${refusedBy} in filterableAttributes, but this rule does not enable filtering.\n`
        + `Hint: enable filtering in rule #${refusedBy} by modifying the features.filter object\n`
        + `Hint: prepend another rule matching \`${facet}\` with appropriate filter features before rule #${refusedBy}`;
    } else {
      const patterns = [...new Set(rules.filter((rule) => rule.filterable).flatMap((rule) => rule.patterns))].sort();
      detail = patterns.length === 0
        ? `Pattern \`${facet}\` is not filterable. This index does not have configured filterable attributes.`
        : `Pattern \`${facet}\` is not filterable. Available filterable attributes patterns are: \`${patterns.join(', ')}\`.`;
    }
    throw new SkeinError('invalid_search_facets', `Invalid facet distribution: ${detail}`);
  }
}

/**
 * The fields (of `fieldNames`, the shard's faceted fields) whose distribution the facets ask for:
 * those an entry matches and their nested fields, each filterable by its first matching rule.
 */
export function selectFacetFields(facets: readonly string[], fieldNames: Iterable<string>, rules: readonly FilterableRule[]): string[] {
  const names = [...fieldNames].filter((name) => isFilterableField(rules, name));
  const keys = names.filter((name) => facets.some((facet) => matchPattern(facet, name) === 'match'));
  if (keys.length === 0) return [];
  return names.filter((name) => keys.some((key) => isFacetedBy(name, key)));
}
