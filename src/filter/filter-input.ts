// A search's `filter` parameter (string, or array form: outer array AND, inner arrays OR) into one
// FilterNode, with the checks that need the index's settings: filterable attributes and the
// condition limit. Errors carry the caller's code (search, documents, facet search).
import { echoJson, SkeinError } from '../errors/index.js';
import { conditionCount, filterFields, firstLeafToken, type FilterNode, type Token } from './filter-ast.js';
import { errorAtToken, FilterSyntaxError, type FilterErrorCode } from './filter-error.js';
import { parseFilterString } from './filter-parser.js';
import { attributePatternsOf, listForMessage, matchesAnyPattern, PatternSet } from './attribute-patterns.js';

const MAX_CONDITIONS = 2000;
export const FOREIGN_NOT_SUPPORTED = 'Filter condition `_foreign` is not supported for this endpoint.';

/** Parses the filter parameter; null when it selects everything (absent, empty). */
export function parseFilterParameter(filter: unknown, code: FilterErrorCode = 'invalid_search_filter'): FilterNode | null {
  try {
    return parseShapes(filter, code);
  } catch (cause) {
    if (cause instanceof FilterSyntaxError) throw new SkeinError(code, cause.message);
    throw cause;
  }
}

/**
 * The `CONTAINS` keyword of the filter, when it uses one (Meilisearch's use_contains_operator), for the
 * `containsFilter` experimental feature's check; null when it uses none or does not parse (its syntax
 * error is then the one reported). Only parsed when the text holds the word.
 */
export function containsOperatorOf(filter: unknown): Token | null {
  if (filter === null || filter === undefined || !(typeof filter === 'string' ? filter : JSON.stringify(filter)).includes('CONTAINS')) return null;
  let node: FilterNode | null;
  try {
    node = parseShapes(filter, 'invalid_search_filter');
  } catch {
    return null;
  }
  return node === null ? null : firstLeafToken(node, (leaf) => leaf.kind === 'contains' ? leaf.keyword ?? leaf.field : null);
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

/**
 * Every attribute of the filter must be filterable; the condition count stays under the limit.
 * `filterable`: the filterableAttributes setting (strings and pattern rules; only plain `_geo` / `_geojson`
 * entries make them geo fields, as milli's has_geo / has_geojson).
 * `scope`: what a search makes of the filterable checks' errors (Meilisearch names the index in them, not in the count's).
 */
export function checkFilterAgainstSettings(node: FilterNode, filterable: readonly unknown[],
  code: FilterErrorCode = 'invalid_search_filter', scope: (error: SkeinError) => SkeinError = (error) => error): void {
  const filterablePatterns = attributePatternsOf(filterable);
  const compiled = new PatternSet(filterablePatterns);
  try {
    // A `_foreign` condition left here was not rewritten (front/search/foreign-filter.ts): where it is not supported.
    const foreign = firstLeafToken(node, (leaf) => leaf.kind === 'foreign' ? leaf.field : null);
    if (foreign) throw errorAtToken(code, FOREIGN_NOT_SUPPORTED, foreign);
    for (const token of filterFields(node)) {
      if (!matchesAnyPattern(compiled, token.text)) throw notFilterable(code, token.text, filterablePatterns, token);
    }
    checkGeoConditions(node, filterable.includes('_geo'), filterable.includes('_geojson'), filterablePatterns, code);
  } catch (cause) {
    throw cause instanceof SkeinError ? scope(cause) : cause;
  }
  if (conditionCount(node) > MAX_CONDITIONS) {
    throw new SkeinError(code, `Too many filter conditions, can't process more than ${MAX_CONDITIONS} filters.`);
  }
}

function notFilterable(code: FilterErrorCode, attribute: string, filterablePatterns: readonly string[], token: Token): SkeinError {
  const available = filterablePatterns.length === 0
    ? 'This index does not have configured filterable attributes.'
    : `Available filterable attribute patterns are: ${listForMessage(filterablePatterns)}.`;
  return errorAtToken(code, `Attribute \`${attribute}\` is not filterable. ${available}`, token);
}

/**
 * Geo conditions as milli evaluates them, in the expression's order, after every named attribute was
 * found filterable: `_geoRadius` / `_geoBoundingBox` check their numbers, then need `_geo` or `_geojson`
 * filterable (a plain filterableAttributes entry, Index::is_geo_filtering_enabled); `_geoPolygon` needs
 * `_geojson` first, then checks its numbers. Each error points at its number.
 */
function checkGeoConditions(node: FilterNode, geo: boolean, geojson: boolean, filterable: readonly string[], code: FilterErrorCode): void {
  const visit = (current: FilterNode): void => {
    switch (current.kind) {
      case 'and':
      case 'or':
        current.children.forEach(visit);
        return;
      case 'not':
        visit(current.child);
        return;
      case 'geoRadius':
      case 'geoBoundingBox':
        checkGeoArguments(current, code);
        if (!geo && !geojson) throw notFilterable(code, '_geo/_geojson', filterable, current.numbers[0]!);
        return;
      case 'geoPolygon':
        if (!geojson) throw notFilterable(code, '_geojson', filterable, current.numbers[0]!);
        checkGeoArguments(current, code);
        return;
      default:
    }
  };
  visit(node);
}

/** The coordinate ranges and `_geoRadius`'s resolution, as milli checks them. */
function checkGeoArguments(node: FilterNode, code: FilterErrorCode): void {
  switch (node.kind) {
    case 'geoRadius': {
      checkCoordinates(node.numbers[0]!, node.numbers[1]!, code);
      const resolution = node.numbers[3];
      if (resolution) {
        // Rust's `f64 as usize` saturates: negative values are 0, fractions are cut.
        const value = Math.max(0, Math.trunc(Number(resolution.text)));
        if (value < 3 || value > 1000) throw errorAtToken(code, `Invalid resolution \`${value}\`. Resolution must be between 3 and 1000.`, resolution);
      }
      return;
    }
    case 'geoBoundingBox': {
      const [topLat, topLng, bottomLat, bottomLng] = node.numbers;
      checkCoordinates(topLat!, topLng!, code);
      checkCoordinates(bottomLat!, bottomLng!, code);
      if (node.top < node.bottom) {
        throw errorAtToken(code, `The top latitude \`${rustFloat(node.top)}\` is below the bottom latitude \`${rustFloat(node.bottom)}\`.`, bottomLng!);
      }
      return;
    }
    case 'geoPolygon':
      for (let k = 0; k < node.numbers.length; k += 2) checkCoordinates(node.numbers[k]!, node.numbers[k + 1]!, code);
      return;
    default:
  }
}

function checkCoordinates(lat: Token, lng: Token, code: FilterErrorCode): void {
  const latitude = Number(lat.text);
  if (!(latitude >= -90 && latitude <= 90)) {
    throw errorAtToken(code, `Bad latitude \`${rustFloat(latitude)}\`. Latitude must be contained between -90 and 90 degrees.`, lat);
  }
  const longitude = Number(lng.text);
  if (!(longitude >= -180 && longitude <= 180)) {
    let normalized = (longitude + 180) % 360;
    if (normalized < 0) normalized += 360;
    throw errorAtToken(code, `Bad longitude \`${rustFloat(longitude)}\`. Longitude must be contained between -180 and 180 degrees. Hint: try using \`${rustFloat(normalized - 180)}\` instead.`, lng);
  }
}

/** An f64 as Rust's Display writes it (no exponent). */
function rustFloat(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) >= 1e21) return BigInt(value).toString();
  if (Object.is(value, -0)) return '-0';
  const text = String(value);
  return text.includes('e-') ? value.toFixed(20).replace(/0+$/, '') : text;
}
