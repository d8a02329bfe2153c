// Does one document match a parsed filter? The same semantics as the shard's bitmap evaluator
// (src/shard/facets/filter-evaluator.ts) on a single flattened document, for places without a facet index:
// the scheduler's delete-by-filter reads the staged documents one by one.
import { flattenDocument } from '../documents/flatten.js';
import type { FilterNode, Token } from './filter-ast.js';
import { compareCodePoints, facetKeyOf, filterNumber, normalizeFacetValue } from './facet-value.js';
import { geojsonPointsOf, geoPointOf, pointInPolygon } from '../documents/geo-field.js';
import { boxPolygons, geojsonShapesOf, shapeIntersectsPolygon, shapeWithinRadius } from './geo-shapes.js';
import { haversineMeters, withinRadius } from './geo-distance.js';

interface FieldValues {
  numbers: number[];
  /** Facet keys, as the shards' (facet-value.ts facetKeyOf): a filter's value is normalized, not cut, as milli's. */
  strings: string[];
  isNull: boolean;
  isEmpty: boolean;
}

export function documentMatches(node: FilterNode, document: Record<string, unknown>): boolean {
  const flat = flattenDocument(document);
  const cache = new Map<string, FieldValues | null>();
  const valuesOf = (field: string): FieldValues | null => {
    if (!cache.has(field)) cache.set(field, flat.has(field) ? collect(flat.get(field)) : null);
    return cache.get(field)!;
  };
  return matches(node, valuesOf, document['_geo'], document['_geojson']);
}

function matches(node: FilterNode, valuesOf: (field: string) => FieldValues | null, geo: unknown, geojson: unknown): boolean {
  switch (node.kind) {
    case 'and': return node.children.every((child) => matches(child, valuesOf, geo, geojson));
    case 'or': return node.children.some((child) => matches(child, valuesOf, geo, geojson));
    case 'not': return !matches(node.child, valuesOf, geo, geojson);
    case 'constant': return node.matches;
    // (refused by checkFilterAgainstSettings, or rewritten into `field IN [ids]` first: front/search/foreign-filter.ts)
    case 'foreign': throw new Error('a `_foreign` condition is never evaluated on a document');
    case 'compare': {
      const values = valuesOf(node.field.text);
      if (node.operator === '!=') return !(values !== null && equals(values, node.value));
      if (values === null) return false;
      switch (node.operator) {
        case '=': return equals(values, node.value);
        case '>': return inRange(values, node.value.text, null, false, true);
        case '>=': return inRange(values, node.value.text, null, true, true);
        case '<': return inRange(values, null, node.value.text, true, false);
        default: return inRange(values, null, node.value.text, true, true);
      }
    }
    case 'range': {
      const values = valuesOf(node.field.text);
      return values !== null && inRange(values, node.from.text, node.to.text, true, true);
    }
    case 'in': {
      const values = valuesOf(node.field.text);
      return values !== null && node.values.some((value) => equals(values, value));
    }
    case 'exists': return valuesOf(node.field.text) !== null;
    case 'isNull': return valuesOf(node.field.text)?.isNull ?? false;
    case 'isEmpty': return valuesOf(node.field.text)?.isEmpty ?? false;
    case 'contains': {
      const needle = normalizeFacetValue(node.value.text);
      return valuesOf(node.field.text)?.strings.some((value) => value.includes(needle)) ?? false;
    }
    case 'startsWith': {
      const needle = normalizeFacetValue(node.value.text);
      return valuesOf(node.field.text)?.strings.some((value) => value.startsWith(needle)) ?? false;
    }
    case 'geoRadius': {
      const points = [geoPointOf(geo), ...geojsonPointsOf(geojson)];
      return points.some((point) => point !== null && withinRadius(haversineMeters(node.lat, node.lng, point.lat, point.lng), node.meters))
        || geojsonShapesOf(geojson).some((shape) => shapeWithinRadius(shape, node.lat, node.lng, node.meters));
    }
    case 'geoBoundingBox': {
      return [geoPointOf(geo), ...geojsonPointsOf(geojson)].some((point) => point !== null && point.lat <= node.top && point.lat >= node.bottom
        && (node.left > node.right ? point.lng >= node.left || point.lng <= node.right : point.lng >= node.left && point.lng <= node.right))
        || geojsonShapesOf(geojson).some((shape) => boxPolygons(node.top, node.bottom, node.left, node.right).some((box) => shapeIntersectsPolygon(shape, box)));
    }
    case 'geoPolygon':
      return geojsonPointsOf(geojson).some((point) => pointInPolygon(point, node.points))
        || geojsonShapesOf(geojson).some((shape) => shapeIntersectsPolygon(shape, node.points));
  }
}

function collect(value: unknown): FieldValues {
  const out: FieldValues = {
    numbers: [], strings: [], isNull: value === null,
    isEmpty: value === '' || (Array.isArray(value) && value.length === 0)
      || (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0),
  };
  const visit = (item: unknown) => {
    if (Array.isArray(item)) item.forEach(visit);
    else if (typeof item === 'number' && Number.isFinite(item)) out.numbers.push(item);
    else if (typeof item === 'string' || typeof item === 'boolean') out.strings.push(facetKeyOf(normalizeFacetValue(String(item))));
  };
  visit(value);
  return out;
}

function equals(values: FieldValues, token: Token): boolean {
  const number = filterNumber(token.text);
  if (number !== null && values.numbers.includes(number)) return true;
  return values.strings.includes(normalizeFacetValue(token.text));
}

function inRange(values: FieldValues, low: string | null, high: string | null, lowInclusive: boolean, highInclusive: boolean): boolean {
  const lowNumber = low === null ? -Infinity : filterNumber(low);
  const highNumber = high === null ? Infinity : filterNumber(high);
  if (lowNumber !== null && highNumber !== null) {
    const hit = values.numbers.some((value) => (lowInclusive ? value >= lowNumber : value > lowNumber) && (highInclusive ? value <= highNumber : value < highNumber));
    if (hit) return true;
  }
  const lowKey = low === null ? null : normalizeFacetValue(low);
  const highKey = high === null ? null : normalizeFacetValue(high);
  // (code point order, as the shards' string ranges: facet-value.ts compareCodePoints)
  return values.strings.some((value) => (lowKey === null || (lowInclusive ? compareCodePoints(value, lowKey) >= 0 : compareCodePoints(value, lowKey) > 0))
    && (highKey === null || (highInclusive ? compareCodePoints(value, highKey) <= 0 : compareCodePoints(value, highKey) < 0)));
}

