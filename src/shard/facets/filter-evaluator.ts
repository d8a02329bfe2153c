// Evaluates a parsed filter on one shard's facet store into the bitmap of matching documents.
// Equality from the value bitmaps, ranges by binary search in the sorted numbers (and over the
// sorted normalized strings), negations as "all documents minus", geo by scanning the points.
import roaring from 'roaring';
import type { FilterNode, Token } from '../../filter/filter-ast.js';
import { filterNumber, normalizeFacetValue } from '../../filter/facet-value.js';
import type { FacetStore, FieldFacets } from './facet-store.js';
import { haversineMeters, withinRadius } from '../../filter/geo-distance.js';
import { pointInPolygon } from '../../documents/geo-field.js';
import { boxPolygons, shapeIntersectsPolygon, shapeWithinRadius } from '../../filter/geo-shapes.js';
import type { SearchBudget } from '../search/search-budget.js';

const { RoaringBitmap32 } = roaring;
/** A degree of latitude is at least this long on the haversine sphere (2πR / 360, slightly less to be safe). */
const METERS_PER_DEGREE_OF_LATITUDE_MIN = 111_000;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * The documents matching the filter. With a budget, each condition is a yield point, and past the
 * deadline the conditions not evaluated yet count as unknown: the answer is then the documents SURE
 * to match (never one that does not: Meilisearch never skips a filter, so a degraded search may
 * miss matches but shows no wrong one).
 */
export function evaluateFilter(node: FilterNode, store: FacetStore, allDocuments: RoaringBitmap32, budget: SearchBudget | null = null): RoaringBitmap32 {
  if (budget === null) return exact(node, store, allDocuments);
  const bounds = bounded(node, store, allDocuments, budget);
  return bounds.low === allDocuments ? allDocuments.clone() : bounds.low;
}

/**
 * What a part of the filter is known to match: `low` surely, `high` at most (one object when exact).
 * Results are read-only: `allDocuments` and NOTHING stand for unknown conditions.
 */
interface Bounds {
  low: RoaringBitmap32;
  high: RoaringBitmap32;
}

const NOTHING = new RoaringBitmap32();

function bounded(node: FilterNode, store: FacetStore, all: RoaringBitmap32, budget: SearchBudget): Bounds {
  switch (node.kind) {
    case 'and': {
      let { low, high } = bounded(node.children[0]!, store, all, budget);
      for (let k = 1; k < node.children.length; k++) {
        if (high.isEmpty) break;
        const child = bounded(node.children[k]!, store, all, budget);
        if (low === high && child.low === child.high) {
          low = high = RoaringBitmap32.and(low, child.low);
          continue;
        }
        low = low.isEmpty || child.low.isEmpty ? NOTHING : RoaringBitmap32.and(low, child.low);
        high = child.high === all ? high : high === all ? child.high : RoaringBitmap32.and(high, child.high);
      }
      return { low, high };
    }
    case 'or': {
      const children = node.children.map((child) => bounded(child, store, all, budget));
      if (children.every((child) => child.low === child.high)) {
        const union = RoaringBitmap32.orMany(children.map((child) => child.low));
        return { low: union, high: union };
      }
      const high = children.some((child) => child.high === all) ? all : RoaringBitmap32.orMany(children.map((child) => child.high));
      return { low: RoaringBitmap32.orMany(children.map((child) => child.low)), high };
    }
    case 'not': {
      const child = bounded(node.child, store, all, budget);
      if (child.low === child.high) {
        const rest = RoaringBitmap32.andNot(all, child.low);
        return { low: rest, high: rest };
      }
      return { low: child.high === all ? NOTHING : RoaringBitmap32.andNot(all, child.high), high: RoaringBitmap32.andNot(all, child.low) };
    }
    default: {
      if (budget.passed()) return { low: NOTHING, high: all };
      const docs = exact(node, store, all);
      return { low: docs, high: docs };
    }
  }
}

function exact(node: FilterNode, store: FacetStore, allDocuments: RoaringBitmap32): RoaringBitmap32 {
  switch (node.kind) {
    case 'and': {
      let result = exact(node.children[0]!, store, allDocuments);
      for (let k = 1; k < node.children.length && !result.isEmpty; k++) result = RoaringBitmap32.and(result, exact(node.children[k]!, store, allDocuments));
      return result;
    }
    case 'or':
      return RoaringBitmap32.orMany(node.children.map((child) => exact(child, store, allDocuments)));
    case 'not':
      return RoaringBitmap32.andNot(allDocuments, exact(node.child, store, allDocuments));
    case 'constant':
      return node.matches ? allDocuments.clone() : new RoaringBitmap32();
    case 'foreign':
      // (refused by checkFilterAgainstSettings, or rewritten into `field IN [ids]` first: front/search/foreign-filter.ts)
      throw new Error('a `_foreign` condition is never evaluated on a shard');
    case 'compare':
      return compare(store.field(node.field.text), node.operator, node.value, allDocuments);
    case 'range': {
      const field = store.field(node.field.text);
      if (!field) return new RoaringBitmap32();
      return between(field, node.from.text, node.to.text, true, true);
    }
    case 'in': {
      const field = store.field(node.field.text);
      if (!field) return new RoaringBitmap32();
      return RoaringBitmap32.orMany(node.values.map((value) => equal(field, value)));
    }
    case 'exists':
      return store.field(node.field.text)?.exists.read().clone() ?? new RoaringBitmap32();
    case 'isNull':
      return store.field(node.field.text)?.nulls.read().clone() ?? new RoaringBitmap32();
    case 'isEmpty':
      return store.field(node.field.text)?.empties.read().clone() ?? new RoaringBitmap32();
    case 'contains':
      return matchingStrings(store.field(node.field.text), (key, needle) => key.includes(needle), node.value.text);
    case 'startsWith':
      return matchingStrings(store.field(node.field.text), (key, needle) => key.startsWith(needle), node.value.text);
    case 'geoRadius': {
      const out = new RoaringBitmap32();
      // A point farther in latitude alone than the radius cannot be inside: skip the trigonometry.
      const latitudeBand = node.meters / METERS_PER_DEGREE_OF_LATITUDE_MIN;
      const inside: number[] = [];
      for (const [docId, point] of store.geo) {
        if (Math.abs(point.lat - node.lat) > latitudeBand) continue;
        if (withinRadius(haversineMeters(node.lat, node.lng, point.lat, point.lng), node.meters)) inside.push(docId);
      }
      // `_geojson` points too (milli ORs both when both are filterable).
      for (const [docId, points] of store.geojson) {
        if (points.some((point) => withinRadius(haversineMeters(node.lat, node.lng, point.lat, point.lng), node.meters))) inside.push(docId);
      }
      // Lines and polygons coming within the radius (cellulite's in_circle).
      for (const [docId, shapes] of store.geojsonShapes) if (shapes.some((shape) => shapeWithinRadius(shape, node.lat, node.lng, node.meters))) inside.push(docId);
      out.addMany(inside);
      return out;
    }
    case 'geoBoundingBox': {
      const out = new RoaringBitmap32();
      const wraps = node.left > node.right;
      for (const [docId, point] of store.geo) {
        if (point.lat > node.top || point.lat < node.bottom) continue;
        const inside = wraps ? point.lng >= node.left || point.lng <= node.right : point.lng >= node.left && point.lng <= node.right;
        if (inside) out.add(docId);
      }
      for (const [docId, points] of store.geojson) {
        const inside = points.some((point) => point.lat <= node.top && point.lat >= node.bottom
          && (wraps ? point.lng >= node.left || point.lng <= node.right : point.lng >= node.left && point.lng <= node.right));
        if (inside) out.add(docId);
      }
      // Lines and polygons crossing the box (milli: in_shape with the box as a polygon).
      const boxes = boxPolygons(node.top, node.bottom, node.left, node.right);
      for (const [docId, shapes] of store.geojsonShapes) if (shapes.some((shape) => boxes.some((box) => shapeIntersectsPolygon(shape, box)))) out.add(docId);
      return out;
    }
    case 'geoPolygon': {
      const inside: number[] = [];
      for (const [docId, points] of store.geojson) if (points.some((point) => pointInPolygon(point, node.points))) inside.push(docId);
      // Lines and polygons the polygon intersects (cellulite's in_shape).
      for (const [docId, shapes] of store.geojsonShapes) if (shapes.some((shape) => shapeIntersectsPolygon(shape, node.points))) inside.push(docId);
      const out = new RoaringBitmap32();
      out.addMany(inside);
      return out;
    }
  }
}

function equal(field: FieldFacets, value: Token): RoaringBitmap32 {
  const strings = field.strings.get(normalizeFacetValue(value.text))?.docs.read();
  const number = filterNumber(value.text);
  const numbers = number === null ? null : field.numberRange(number, number);
  if (strings && numbers) return RoaringBitmap32.or(strings, numbers);
  return numbers ?? strings?.clone() ?? new RoaringBitmap32();
}

function compare(field: FieldFacets | undefined, operator: string, value: Token, allDocuments: RoaringBitmap32): RoaringBitmap32 {
  if (operator === '!=') return field ? RoaringBitmap32.andNot(allDocuments, equal(field, value)) : allDocuments.clone();
  if (!field) return new RoaringBitmap32();
  switch (operator) {
    case '=': return equal(field, value);
    case '>': return between(field, value.text, null, false, true);
    case '>=': return between(field, value.text, null, true, true);
    case '<': return between(field, null, value.text, true, false);
    default: return between(field, null, value.text, true, true);
  }
}

/** Numeric range when the bounds are numbers, and (Meilisearch ≥ 1.15) the same range on normalized strings. */
function between(field: FieldFacets, low: string | null, high: string | null, lowInclusive: boolean, highInclusive: boolean): RoaringBitmap32 {
  const parts: RoaringBitmap32[] = [];
  const lowNumber = low === null ? -Infinity : filterNumber(low);
  const highNumber = high === null ? Infinity : filterNumber(high);
  if (lowNumber !== null && highNumber !== null) parts.push(field.numberRange(lowNumber, highNumber, lowInclusive, highInclusive));
  const lowKey = low === null ? null : normalizeFacetValue(low);
  const highKey = high === null ? null : normalizeFacetValue(high);
  if (field.strings.size > 0) parts.push(field.stringRange(lowKey, highKey, lowInclusive, highInclusive));
  return parts.length === 0 ? new RoaringBitmap32() : parts.length === 1 ? parts[0]! : RoaringBitmap32.orMany(parts);
}

function matchingStrings(field: FieldFacets | undefined, test: (key: string, needle: string) => boolean, needle: string): RoaringBitmap32 {
  if (!field) return new RoaringBitmap32();
  const normalized = normalizeFacetValue(needle);
  const parts: RoaringBitmap32[] = [];
  for (const [key, facet] of field.strings) if (test(key, normalized)) parts.push(facet.docs.read());
  return parts.length === 0 ? new RoaringBitmap32() : RoaringBitmap32.orMany(parts);
}
