// The search's `facets` as Meilisearch resolves them (meilisearch search/mod.rs
// compute_facet_distribution_stats, milli FacetDistribution): each entry is a pattern (`genre`,
// `dogs.*`, `*_id`, `*`), valid when some filterable rule intersects it; the distribution then covers
// the index's fields an entry matches (exactly or by wildcard) whose first matching rule is
// filterable, each with its nested fields (the legacy selection: `doggos` also selects `doggos.name`).

import { SkeinError } from '../errors/index.js';
import { FieldNames, MAX_CONTAINS_WORK, SearchOnNames } from './search-on-names.js';

interface FilterableRule {
  /** A plain string entry (legacy matching: a name covers its nested fields). */
  field: string | null;
  /** A `{attributePatterns, features}` entry. */
  patterns: string[];
  filterable: boolean;
}

type PatternMatch = 'match' | 'parent' | 'none';

/** milli's is_faceted_by: `field` is `facet` or nested under it. */
export function isFacetedBy(field: string, facet: string): boolean {
  return field.startsWith(facet) && (field.length === facet.length || field[facet.length] === '.');
}

/** milli's match_pattern (only `*`, `x*`, `*x` and `*x*` wildcards). */
export function matchPattern(pattern: string, text: string): PatternMatch {
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

/** Whether the rule covers the field (the plain definition the rules index is held to). */
export function ruleMatches(rule: FilterableRule, name: string): boolean {
  if (rule.field !== null) return isFacetedBy(name, rule.field);
  return rule.patterns.some((pattern) => matchPattern(pattern, name) === 'match');
}

/** Whether a facet (a name or pattern) and the rule can name a field in common (the plain definition). */
export function ruleIntersects(rule: FilterableRule, facet: string): boolean {
  if (rule.field !== null) {
    return isFacetedBy(rule.field, facet) || isFacetedBy(facet, rule.field) || matchPattern(facet, rule.field) !== 'none';
  }
  return rule.patterns.some((pattern) => matchPattern(facet, pattern) !== 'none' || matchPattern(pattern, facet) !== 'none');
}

/** milli's matching_features(...).is_filterable(): the first rule matching the field decides. */
export function isFilterableField(rules: readonly FilterableRule[], name: string): boolean {
  return new RuleIndex(rules).isFilterable(name);
}

function tooMuchFacetWork(patterns: number): SkeinError {
  return new SkeinError('invalid_search_facets',
    `Invalid facet distribution: matching its ${patterns} patterns with a leading and a trailing \`*\` against the index's fields would compare more than the ${MAX_CONTAINS_WORK} characters this server accepts; send fewer such patterns.`);
}

/** A name and its dotted prefixes (`a.b.c`: `a`, `a.b`, `a.b.c`): the legacy names that cover it. */
function dottedPrefixes(name: string): string[] {
  const out: string[] = [];
  for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) out.push(name.slice(0, dot));
  out.push(name);
  return out;
}

/**
 * The rules ready for lookups: plain string entries by name (their first position), the pattern rules
 * in order. Matching a name, a facet or a field costs set lookups plus the pattern rules (the setting's,
 * usually few), not a pass over every rule: 999 facets against 999 plain entries of 400 characters
 * took a shard 1.5 s (checkFacetPatterns) and 1 s (selectFacetFields) per search that way.
 */
class RuleIndex {
  private readonly firstByField = new Map<string, number>();
  private readonly patternRules: number[] = [];
  private readonly stringFields: FieldNames;

  constructor(private readonly rules: readonly FilterableRule[]) {
    rules.forEach((rule, k) => {
      if (rule.field === null) this.patternRules.push(k);
      else if (!this.firstByField.has(rule.field)) this.firstByField.set(rule.field, k);
    });
    this.stringFields = new FieldNames([...this.firstByField.keys()]);
  }

  /** The first rule matching the name (ruleMatches), or -1. */
  firstMatching(name: string): number {
    let best = Infinity;
    for (const prefix of dottedPrefixes(name)) best = Math.min(best, this.firstByField.get(prefix) ?? Infinity);
    for (const k of this.patternRules) {
      if (k > best) break;
      if (ruleMatches(this.rules[k]!, name)) {
        best = k;
        break;
      }
    }
    return best === Infinity ? -1 : best;
  }

  isFilterable(name: string): boolean {
    const k = this.firstMatching(name);
    return k >= 0 && this.rules[k]!.filterable;
  }

  /** checkFacetPatterns' verdict for one facet: 'valid', the non-filterable rule refusing it, or 'none'. */
  facetVerdict(facet: string, matcher: SearchOnNames): 'valid' | number | 'none' {
    // The first pattern rule deciding (filterable and intersecting, or not filterable and matching).
    let decided = -1;
    for (const k of this.patternRules) {
      const rule = this.rules[k]!;
      if (rule.filterable ? ruleIntersects(rule, facet) : ruleMatches(rule, facet)) {
        decided = k;
        break;
      }
    }
    if (decided >= 0 && this.rules[decided]!.filterable) {
      // a plain entry before it changes nothing: it is filterable too
      return 'valid';
    }
    if (!this.anyStringRuleIntersects(facet, matcher)) return decided >= 0 ? decided : 'none';
    if (decided < 0) return 'valid';
    // a non-filterable pattern rule decides unless a plain entry intersecting the facet comes before it
    for (let k = 0; k < decided; k++) if (this.rules[k]!.field !== null && ruleIntersects(this.rules[k]!, facet)) return 'valid';
    return decided;
  }

  /** ruleIntersects for some plain string entry: the facet is one, under one, above one, or its pattern matches one. */
  private anyStringRuleIntersects(facet: string, matcher: SearchOnNames): boolean {
    if (dottedPrefixes(facet).some((prefix) => this.firstByField.has(prefix))) return true;
    if (this.stringFields.hasPrefix(`${facet}.`)) return true;
    return facet.includes('*') && this.stringFields.set.size > 0 && matcher.nameMatchesAny(facet, this.stringFields);
  }

  /** The plain entries' names (for the contains-work bound). */
  get fieldNames(): FieldNames {
    return this.stringFields;
  }
}

/** Throws Meilisearch's `invalid_search_facets` error for the first facet pattern no filterable rule intersects. */
export function checkFacetPatterns(facets: readonly string[], rules: readonly FilterableRule[]): void {
  const index = new RuleIndex(rules);
  const matcher = new SearchOnNames(facets, tooMuchFacetWork);
  if (matcher.containsWorkAgainst(index.fieldNames) > MAX_CONTAINS_WORK) throw tooMuchFacetWork(matcher.containsNames);
  for (const facet of new Set(facets)) {
    const verdict = index.facetVerdict(facet, matcher);
    if (verdict === 'valid') continue;
    let detail: string;
    if (verdict !== 'none') {
      detail = `Attribute \`${facet}\` matched rule #${verdict} in filterableAttributes, but this rule does not enable filtering.\n`
        + `Hint: enable filtering in rule #${verdict} by modifying the features.filter object\n`
        + `Hint: prepend another rule matching \`${facet}\` with appropriate filter features before rule #${verdict}`;
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
  const index = new RuleIndex(rules);
  const names = [...fieldNames].filter((name) => index.isFilterable(name));
  // match_pattern(facet, name) === Match is the attributesToSearchOn match (search-on-names.ts), remembered per name.
  const matcher = new SearchOnNames(facets, tooMuchFacetWork);
  const keys = new Set(names.filter((name) => matcher.selects(name)));
  if (keys.size === 0) return [];
  return names.filter((name) => dottedPrefixes(name).some((prefix) => keys.has(prefix)));
}
