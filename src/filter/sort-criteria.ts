// The `sort` search parameter: `field:asc|desc` and `_geoPoint(lat, lng):asc|desc`, checked against
// the sortable attributes and the presence of the `sort` ranking rule, with Meilisearch's messages.
import { echo, SkeinError } from '../errors/index.js';
import type { SortCriterion } from '../ranking/rules/sort-key.js';
import { listForMessage, matchesAnyPattern, PatternSet } from './attribute-patterns.js';

const GEO_POINT = /^_geoPoint\(\s*([^,\s)]+)\s*,\s*([^,\s)]+)\s*\)$/;

export function parseSortCriterion(text: string): SortCriterion {
  const colon = text.lastIndexOf(':');
  const direction = colon < 0 ? null : text.slice(colon + 1);
  const subject = colon < 0 ? text : text.slice(0, colon);
  if (subject.startsWith('_geoPoint(') || subject.startsWith('_geoPoint ')) {
    const match = GEO_POINT.exec(subject.trim());
    if (!match || (direction !== 'asc' && direction !== 'desc')) {
      throw new SkeinError('invalid_search_sort', `Invalid syntax for the geo parameter: expected expression formated like \`_geoPoint(latitude, longitude)\` and ending by \`:asc\` or \`:desc\`, found \`${echo(text)}\`.`);
    }
    const lat = Number(match[1]);
    const lng = Number(match[2]);
    if (!Number.isFinite(lat) || !Number.isFinite(lng)) {
      throw new SkeinError('invalid_search_sort', `Invalid syntax for the geo parameter: expected expression formated like \`_geoPoint(latitude, longitude)\` and ending by \`:asc\` or \`:desc\`, found \`${echo(text)}\`.`);
    }
    if (lat < -90 || lat > 90) throw new SkeinError('invalid_search_sort', `Bad latitude \`${echo(match[1]!)}\`. Latitude must be contained between -90 and 90 degrees.`);
    if (lng < -180 || lng > 180) throw new SkeinError('invalid_search_sort', `Bad longitude \`${echo(match[2]!)}\`. Longitude must be contained between -180 and 180 degrees.`);
    return { field: null, point: { lat, lng }, direction };
  }
  if ((direction !== 'asc' && direction !== 'desc') || subject === '') {
    throw new SkeinError('invalid_search_sort', `Invalid syntax for the sort parameter: expected expression ending by \`:asc\` or \`:desc\`, found \`${echo(text)}\`.`);
  }
  if (subject === '_geo' || subject === '_geoDistance' || subject === '_geoRadius' || subject === '_geoBoundingBox') {
    throw new SkeinError('invalid_search_sort', `\`${echo(subject)}\` is a reserved keyword and thus can't be used as a sort expression. Use the _geoPoint(latitude, longitude) built-in rule to sort on _geo field coordinates.`);
  }
  return { field: subject, point: null, direction };
}

/**
 * Parses and checks every criterion; throws invalid_search_sort, or `code` for the documents routes,
 * whose sort needs no `sort` ranking rule (rankingRules null).
 */
export function checkSortParameter(sort: readonly string[], sortableAttributes: readonly string[], rankingRules: readonly string[] | null,
  code: 'invalid_search_sort' | 'invalid_document_sort' = 'invalid_search_sort', scope: (error: SkeinError) => SkeinError = (error) => error): SortCriterion[] {
  const criteria = sort.map((text) => {
    try {
      return parseSortCriterion(text);
    } catch (cause) {
      if (cause instanceof SkeinError && code !== 'invalid_search_sort') throw new SkeinError(code, cause.message);
      throw cause;
    }
  });
  const sortable = criteria.length > 1 ? new PatternSet(sortableAttributes) : sortableAttributes;
  for (const criterion of criteria) {
    const field = criterion.field ?? '_geo';
    if (matchesAnyPattern(sortable, field)) continue;
    const available = sortableAttributes.length === 0
      ? 'This index does not have configured sortable attributes.'
      : `Available sortable attributes are: ${listForMessage(sortableAttributes)}.`;
    throw scope(new SkeinError(code, `Attribute \`${echo(field)}\` is not sortable. ${available}`));
  }
  if (criteria.length > 0 && rankingRules !== null && !rankingRules.includes('sort')) {
    throw scope(new SkeinError('invalid_search_sort', 'You must specify where `sort` is listed in the rankingRules setting to use the sort parameter at search time.'));
  }
  return criteria;
}
