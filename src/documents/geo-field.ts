// A document's `_geo` and `_geojson` read as Meilisearch reads them. `_geo` is null (no location) or
// `{lat, lng}` where each is a finite number or a string Rust parses as one (milli's
// extract_geo_coordinates / extract_finite_float_from_value); anything else fails the task with
// `invalid_document_geo_field`, but only while geo is enabled (`_geo` filterable or sortable), as
// Meilisearch extracts `_geo` only then. `_geojson` points feed `_geoPolygon`.
import { SkeinError } from '../errors/index.js';
import { echoJson } from '../errors/echo.js';
import type { IndexSettings } from '../settings/index-settings.js';
import { JsonNumberText } from './exact-json.js';

export interface GeoPoint {
  lat: number;
  lng: number;
}

/** Rust's `str::parse::<f64>` grammar for finite values (no spaces; `5.` and `.5` parse). */
const RUST_FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A finite coordinate, or null when Meilisearch would not parse it. */
export function finiteCoordinate(value: unknown): number | null {
  let number: number;
  if (typeof value === 'number') number = value;
  else if (value instanceof JsonNumberText) number = value.value;
  else if (typeof value === 'string' && RUST_FLOAT.test(value)) number = Number(value);
  else return null;
  return Number.isFinite(number) ? number : null;
}

/** The point of a valid `_geo` value; null for null and for anything Meilisearch would reject. */
export function geoPointOf(value: unknown): GeoPoint | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumberText) return null;
  const record = value as Record<string, unknown>;
  const lat = finiteCoordinate(record['lat']);
  const lng = finiteCoordinate(record['lng']);
  return lat === null || lng === null ? null : { lat, lng };
}

/** Meilisearch's is_geo_enabled: `_geo` named in filterableAttributes (a plain entry) or sortableAttributes. */
export function isGeoEnabled(settings: IndexSettings): boolean {
  return (settings.filterableAttributes ?? []).includes('_geo') || (settings.sortableAttributes ?? []).includes('_geo');
}

/** Throws the `invalid_document_geo_field` error that fails the task when the document's `_geo` is invalid. */
export function checkGeoField(document: Record<string, unknown>, externalId: string, indexUid: string): void {
  if (!Object.prototype.hasOwnProperty.call(document, '_geo')) return;
  const problem = geoProblem(document['_geo'], JSON.stringify(externalId));
  if (problem !== null) throw new SkeinError('invalid_document_geo_field', `Index \`${indexUid}\`: ${problem}`);
}

function geoProblem(value: unknown, id: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumberText) {
    return `The \`_geo\` field in the document with the id: \`${id}\` is not an object. Was expecting an object with the \`_geo.lat\` and \`_geo.lng\` fields but instead got \`${echoJson(value)}\`.`;
  }
  const { lat, lng, ...rest } = value as Record<string, unknown>;
  const hasLat = Object.prototype.hasOwnProperty.call(value, 'lat');
  const hasLng = Object.prototype.hasOwnProperty.call(value, 'lng');
  if (hasLat && hasLng && Object.keys(rest).length > 0) {
    return `The \`_geo\` field in the document with the id: \`${id}\` contains the following unexpected fields: \`${echoJson(rest)}\`.`;
  }
  if (!hasLat && !hasLng) return `Could not find latitude nor longitude in the document with the id: \`${id}\`. Was expecting \`_geo.lat\` and \`_geo.lng\` fields.`;
  if (!hasLng) return `Could not find longitude in the document with the id: \`${id}\`. Was expecting a \`_geo.lng\` field.`;
  if (!hasLat) return `Could not find latitude in the document with the id: \`${id}\`. Was expecting a \`_geo.lat\` field.`;
  const badLat = finiteCoordinate(lat) === null;
  const badLng = finiteCoordinate(lng) === null;
  if (badLat && badLng) {
    return `Could not parse latitude nor longitude in the document with the id: \`${id}\`. Was expecting finite numbers but instead got \`${echoJson(lat)}\` and \`${echoJson(lng)}\`.`;
  }
  if (badLat) return `Could not parse latitude in the document with the id: \`${id}\`. Was expecting a finite number but instead got \`${echoJson(lat)}\`.`;
  if (badLng) return `Could not parse longitude in the document with the id: \`${id}\`. Was expecting a finite number but instead got \`${echoJson(lng)}\`.`;
  return null;
}

/** Meilisearch's is_geojson_filtering_enabled: `_geojson` matched by a filterable pattern. */
export const GEOJSON_FIELD = '_geojson';

/** How deep Features and collections may nest in a `_geojson` value before the rest is ignored. */
const GEOJSON_MAX_DEPTH = 8;

/**
 * The geometries of a `_geojson` value: the value itself, or those a Feature / FeatureCollection /
 * GeometryCollection holds (nested at most GEOJSON_MAX_DEPTH deep). Read by geojsonPointsOf and
 * filter/geo-shapes.ts geojsonShapesOf.
 */
export function geojsonGeometries(value: unknown, depth = 0): Record<string, unknown>[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || depth > GEOJSON_MAX_DEPTH) return [];
  const record = value as Record<string, unknown>;
  switch (record['type']) {
    case 'Feature':
      return geojsonGeometries(record['geometry'], depth + 1);
    case 'FeatureCollection':
      return Array.isArray(record['features']) ? record['features'].flatMap((feature) => geojsonGeometries(feature, depth + 1)) : [];
    case 'GeometryCollection':
      return Array.isArray(record['geometries']) ? record['geometries'].flatMap((geometry) => geojsonGeometries(geometry, depth + 1)) : [];
    default:
      return [record];
  }
}

/**
 * The points of a `_geojson` value (GeoJSON positions are [longitude, latitude]): its Point and
 * MultiPoint geometries (geojsonGeometries). Lines and polygons: filter/geo-shapes.ts.
 */
export function geojsonPointsOf(value: unknown): GeoPoint[] {
  return geojsonGeometries(value).flatMap(pointsOfGeometry);
}

function pointsOfGeometry(record: Record<string, unknown>): GeoPoint[] {
  const position = (item: unknown): GeoPoint | null => {
    if (!Array.isArray(item) || item.length < 2) return null;
    const lng = finiteCoordinate(item[0]);
    const lat = finiteCoordinate(item[1]);
    return typeof item[0] === 'string' || typeof item[1] === 'string' || lat === null || lng === null ? null : { lat, lng };
  };
  switch (record['type']) {
    case 'Point': {
      const point = position(record['coordinates']);
      return point ? [point] : [];
    }
    case 'MultiPoint':
      return Array.isArray(record['coordinates']) ? record['coordinates'].map(position).filter((point): point is GeoPoint => point !== null) : [];
    default:
      return [];
  }
}

/** Whether the point is inside the polygon of [lat, lng] vertices (even-odd rule, in the lng/lat plane). */
export function pointInPolygon(point: GeoPoint, vertices: readonly (readonly [number, number])[]): boolean {
  let inside = false;
  for (let i = 0, j = vertices.length - 1; i < vertices.length; j = i++) {
    const [latI, lngI] = vertices[i]!;
    const [latJ, lngJ] = vertices[j]!;
    if ((latI > point.lat) !== (latJ > point.lat)
      && point.lng < ((lngJ - lngI) * (point.lat - latI)) / (latJ - latI) + lngI) inside = !inside;
  }
  return inside;
}
