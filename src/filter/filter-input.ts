// A search's `filter` parameter (string, or array form: outer array AND, inner arrays OR) into one
// FilterNode, with the checks that need the index's settings: filterable attributes and the
// condition limit. Errors carry the caller's code (search, documents, facet search).
import { echoJson, SkeinError } from '../errors/index.js';
import { conditionCount, filterFields, type FilterNode } from './filter-ast.js';
import { errorAtToken, FilterSyntaxError, type FilterErrorCode } from './filter-error.js';
import { parseFilterString } from './filter-parser.js';
import { listForMessage, matchesAnyPattern, PatternSet } from './attribute-patterns.js';

const MAX_CONDITIONS = 2000;

/** Parses the filter parameter; null when it selects everything (absent, empty). */
export function parseFilterParameter(filter: unknown, code: FilterErrorCode = 'invalid_search_filter'): FilterNode | null {
  try {
    return parseShapes(filter, code);
  } catch (cause) {
    if (cause instanceof FilterSyntaxError) throw new SkeinError(code, cause.message);
    throw cause;
  }
}

function parseShapes(filter: unknown, code: FilterErrorCode): FilterNode | null {
  if (filter === null || filter === undefined) return null;
  if (typeof filter === 'string') return parseFilterString(filter);
  if (!Array.isArray(filter)) throw invalidExpression(code, ['String', 'Array'], filter);
  const ands: FilterNode[] = [];
  for (const member of filter) {
    if (typeof member === 'string') {
      const node = parseFilterString(member);
      if (node) ands.push(node);
    } else if (Array.isArray(member)) {
      const ors: FilterNode[] = [];
      for (const inner of member) {
        if (typeof inner !== 'string') throw invalidExpression(code, ['String'], inner);
        const node = parseFilterString(inner);
        if (node) ors.push(node);
      }
      if (ors.length > 0) ands.push(ors.length === 1 ? ors[0]! : { kind: 'or', children: ors });
    } else {
      throw invalidExpression(code, ['String', '[String]'], member);
    }
  }
  if (ands.length === 0) return null;
  return ands.length === 1 ? ands[0]! : { kind: 'and', children: ands };
}

function invalidExpression(code: FilterErrorCode, expected: string[], found: unknown): SkeinError {
  return new SkeinError(code, `Invalid syntax for the filter parameter: \`expected ${expected.join(', ')}, found: ${echoJson(found)}\`.`);
}

/** Every attribute of the filter must be filterable; the condition count stays under the limit. */
export function checkFilterAgainstSettings(node: FilterNode, filterablePatterns: readonly string[],
  code: FilterErrorCode = 'invalid_search_filter'): void {
  const compiled = new PatternSet(filterablePatterns);
  for (const token of filterFields(node)) {
    const isGeo = token.text === '_geo';
    if (matchesAnyPattern(compiled, token.text)) continue;
    const named = isGeo ? token.source.slice(token.start, token.start + (token.source.startsWith('_geoRadius', token.start) ? 10 : 15)) : token.text;
    const available = filterablePatterns.length === 0
      ? 'This index does not have configured filterable attributes.'
      : `Available filterable attribute patterns are: ${listForMessage(filterablePatterns)}.`;
    throw errorAtToken(code, `Attribute \`${named}\` is not filterable. ${available}`, token);
  }
  if (conditionCount(node) > MAX_CONDITIONS) {
    throw new SkeinError(code, `Too many filter conditions, can't process more than ${MAX_CONDITIONS} filters.`);
  }
}
