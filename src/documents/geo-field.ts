// A document's `_geo` and `_geojson` read as Meilisearch reads them. `_geo` is null (no location) or
// `{lat, lng}` where each is a finite number or a string Rust parses as one (milli's
// extract_geo_coordinates / extract_finite_float_from_value); anything else fails the task with
// `invalid_document_geo_field`, but only while geo is enabled (`_geo` filterable or sortable), as
// Meilisearch extracts `_geo` only then. `_geojson` points feed `_geoPolygon`.
import { SkeinError } from '../errors/index.js';
import { echo, echoJson } from '../errors/echo.js';
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

export const GEOJSON_FIELD = '_geojson';

/** Meilisearch's is_geojson_filtering_enabled: `_geojson` a plain entry of filterableAttributes (has_geojson). */
export function isGeojsonEnabled(settings: IndexSettings): boolean {
  return (settings.filterableAttributes ?? []).includes(GEOJSON_FIELD);
}

/** Which of a document's geo fields indexing reads (and so checks) under these settings. */
export interface GeoChecks {
  geo: boolean;
  geojson: boolean;
}

export function geoChecksOf(settings: IndexSettings): GeoChecks {
  return { geo: isGeoEnabled(settings), geojson: isGeojsonEnabled(settings) };
}

/** checkGeoField and checkGeojsonField, each while its extractor runs. */
export function checkGeoFields(document: Record<string, unknown>, externalId: string, indexUid: string, checks: GeoChecks): void {
  if (checks.geo) checkGeoField(document, externalId, indexUid);
  if (checks.geojson) checkGeojsonField(document, indexUid);
}

/**
 * Throws the error that fails the task when the document's `_geojson` is one milli's GeoJsonExtractor
 * refuses: it parses the value with the geojson crate (0.24) and converts it to a geo_types geometry,
 * and a geojson::Error is a UserError::GeoJsonError, code `invalid_document_geo_field`, its message the
 * crate's own (no document id). Checked in the crate's order; unclosed rings pass (geo_types closes them).
 * One walk over the value, depth bounded by the payload's (ingest/json-depth.ts).
 */
export function checkGeojsonField(document: Record<string, unknown>, indexUid: string): void {
  if (!Object.prototype.hasOwnProperty.call(document, GEOJSON_FIELD)) return;
  const problem = geojsonProblem(document[GEOJSON_FIELD]);
  if (problem !== null) throw new SkeinError('invalid_document_geo_field', `Index \`${indexUid}\`: ${problem}`);
}

const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']);

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsonNumberText);
}

function isJsonNumber(value: unknown): boolean {
  return typeof value === 'number' || value instanceof JsonNumberText;
}

function has(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/** The geojson crate's message for the first thing it refuses in `value`, or null. */
export function geojsonProblem(value: unknown): string | null {
  if (!isJsonObject(value)) return `Expected an owned Object, but got \`${echoJson(value)}\``;
  const type = value['type'];
  if (typeof type !== 'string') return 'Encountered an unknown \'geometry\' object type: `type`';
  if (type === 'Feature') {
    const problem = featureProblem(value);
    if (problem !== null) return problem;
    // geo_types::Geometry::try_from(Feature): a feature without a geometry has nothing to convert.
    return value['geometry'] === null ? `Attempted to a convert a feature without a geometry into a geo_types::Geometry: \`${echoJson(serializedFeature(value))}\`` : null;
  }
  if (type === 'FeatureCollection') {
    const problem = bboxProblem(value);
    if (problem !== null) return problem;
    return membersProblem(value, 'features', featureProblem);
  }
  if (GEOMETRY_TYPES.has(type)) return geometryProblem(value);
  return 'Expected a Feature, FeatureCollection, or Geometry, but got an empty type';
}

/**
 * A collection's members (`features` of a FeatureCollection, `geometries` of a GeometryCollection): the
 * property present, an array, each member an object its own check accepts (the crate's order and messages).
 */
function membersProblem(record: Record<string, unknown>, key: 'features' | 'geometries',
  memberProblem: (member: Record<string, unknown>) => string | null): string | null {
  if (!has(record, key)) return `Expected a GeoJSON property for \`${key}\`, but got None`;
  const members = record[key];
  if (!Array.isArray(members)) return `Expected an Array value, but got \`${jsonKind(members)}\``;
  for (const member of members) {
    const problem = isJsonObject(member) ? memberProblem(member) : `Expected an owned Object, but got \`${echoJson(member)}\``;
    if (problem !== null) return problem;
  }
  return null;
}

function typeProblem(record: Record<string, unknown>): string | null {
  if (!has(record, 'type')) return 'Expected a GeoJSON property for `type`, but got None';
  const type = record['type'];
  return typeof type === 'string' ? null : `Expected a String value, but got a \`${echoJson(type)}\``;
}

function featureProblem(feature: Record<string, unknown>): string | null {
  const typeText = typeProblem(feature);
  if (typeText !== null) return typeText;
  if (feature['type'] !== 'Feature') return `Expected a Feature mapping, but got a \`${echo(feature['type'] as string)}\``;
  if (!has(feature, 'geometry')) return 'Expected a GeoJSON property for `geometry`, but got None';
  const geometry = feature['geometry'];
  if (isJsonObject(geometry)) {
    const problem = geometryProblem(geometry);
    if (problem !== null) return problem;
  } else if (geometry !== null) {
    return `Encountered neither object type nor null type for 'geometry' field on 'feature' object: \`${echoJson(geometry)}\``;
  }
  const properties = feature['properties'];
  if (properties !== undefined && properties !== null && !isJsonObject(properties)) {
    return `Encountered neither object type nor null type for 'properties' object: \`${echoJson(properties)}\``;
  }
  if (has(feature, 'id') && !isJsonNumber(feature['id']) && typeof feature['id'] !== 'string') {
    return `Encountered neither number type nor string type for 'id' field on 'feature' object: \`${echoJson(feature['id'])}\``;
  }
  return bboxProblem(feature);
}

function bboxProblem(record: Record<string, unknown>): string | null {
  const bbox = record['bbox'];
  if (bbox === undefined || bbox === null) return null;
  if (!Array.isArray(bbox)) return `Encountered non-array value for a 'bbox' object: \`${echoJson(bbox)}\``;
  return bbox.every(isJsonNumber) ? null : 'Encountered non-numeric value within \'bbox\' array';
}

/** How deep each geometry type's `coordinates` nest arrays of positions. */
const COORDINATE_DEPTH: Record<string, number> = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 };

function geometryProblem(geometry: Record<string, unknown>): string | null {
  const bbox = bboxProblem(geometry);
  if (bbox !== null) return bbox;
  const typeText = typeProblem(geometry);
  if (typeText !== null) return typeText;
  const type = geometry['type'] as string;
  if (type === 'GeometryCollection') return membersProblem(geometry, 'geometries', geometryProblem);
  const depth = COORDINATE_DEPTH[type];
  if (depth === undefined) return `Encountered an unknown 'geometry' object type: \`${echo(type)}\``;
  if (!has(geometry, 'coordinates')) return 'Expected a GeoJSON property for `coordinates`, but got None';
  return coordinatesProblem(geometry['coordinates'], depth);
}

function coordinatesProblem(value: unknown, depth: number): string | null {
  if (!Array.isArray(value)) return 'Expected an Array value, but got `None`';
  if (depth === 0) {
    if (value.length < 2) return `A position must contain two or more elements, but got \`${value.length}\``;
    return value.every(isJsonNumber) ? null : 'Expected a floating-point value, but got None';
  }
  for (const item of value) {
    const problem = coordinatesProblem(item, depth - 1);
    if (problem !== null) return problem;
  }
  return null;
}

/** serde_json's Value kind names, as the crate's expect_owned_array reports them. */
function jsonKind(value: unknown): string {
  if (value === null || value === undefined) return 'Null';
  if (typeof value === 'boolean') return 'Bool';
  if (isJsonNumber(value)) return 'Number';
  if (typeof value === 'string') return 'String';
  return 'Object';
}

/** A Feature as the crate serializes it: type, geometry, properties, bbox, id, then its other members. */
function serializedFeature(feature: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'Feature', geometry: null, properties: feature['properties'] ?? null };
  if (feature['bbox'] !== undefined && feature['bbox'] !== null) out['bbox'] = feature['bbox'];
  if (feature['id'] !== undefined) out['id'] = feature['id'];
  for (const key in feature) {
    if (!has(feature, key) || key === 'type' || key === 'geometry' || key === 'properties' || key === 'bbox' || key === 'id') continue;
    out[key] = feature[key];
  }
  return out;
}

/**
 * How deep Features and collections may nest in a `_geojson` value before the rest is ignored: above
 * what a payload can hold (ingest/json-depth.ts: 127 levels, two per collection), so every shape
 * Meilisearch indexes is read, and the walk's stack stays bounded whatever wrote the document.
 */
const GEOJSON_MAX_DEPTH = 64;

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
