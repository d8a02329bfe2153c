// `_geojson` lines and polygons (issue 22). Meilisearch v1.53 indexes any GeoJSON geometry of a
// document in cellulite and its geo filters keep the documents whose geometry INTERSECTS the filter's
// shape (its tests: a `_geoBoundingBox` over middle Europe answers France, whose north lies outside
// the box): `_geoPolygon` (in_shape), `_geoBoundingBox` (in_shape with the box as a polygon) and
// `_geoRadius` (in_circle). Points stay in FacetStore.geojson; this file is the lines and polygons:
// extraction and the intersection tests, in the longitude/latitude plane (as geo_types' polygons),
// the circle by distance to the shape in a local equirectangular projection around its centre.
import { finiteCoordinate, geojsonGeometries, pointInPolygon, type GeoPoint } from '../documents/geo-field.js';
import { haversineMeters } from './geo-distance.js';

/** A line (one ring: its path) or a polygon (rings: the outer one, then holes). */
export interface GeoShape {
  kind: 'line' | 'polygon';
  rings: GeoPoint[][];
}

function position(item: unknown): GeoPoint | null {
  if (!Array.isArray(item) || item.length < 2 || typeof item[0] === 'string' || typeof item[1] === 'string') return null;
  const lng = finiteCoordinate(item[0]);
  const lat = finiteCoordinate(item[1]);
  return lat === null || lng === null ? null : { lat, lng };
}

function path(items: unknown): GeoPoint[] {
  return Array.isArray(items) ? items.map(position).filter((point): point is GeoPoint => point !== null) : [];
}

function polygon(rings: unknown): GeoShape | null {
  if (!Array.isArray(rings)) return null;
  const paths = rings.map(path).filter((ring) => ring.length >= 3);
  return paths.length === 0 ? null : { kind: 'polygon', rings: paths };
}

/** The lines and polygons of a `_geojson` value (its points: geojsonPointsOf). */
export function geojsonShapesOf(value: unknown): GeoShape[] {
  return geojsonGeometries(value).flatMap(shapesOfGeometry);
}

function shapesOfGeometry(record: Record<string, unknown>): GeoShape[] {
  const coordinates = record['coordinates'];
  switch (record['type']) {
    case 'LineString': {
      const line = path(coordinates);
      return line.length >= 2 ? [{ kind: 'line', rings: [line] }] : [];
    }
    case 'MultiLineString':
      return Array.isArray(coordinates) ? coordinates.map(path).filter((line) => line.length >= 2).map((line) => ({ kind: 'line' as const, rings: [line] })) : [];
    case 'Polygon': {
      const shape = polygon(coordinates);
      return shape ? [shape] : [];
    }
    case 'MultiPolygon':
      return Array.isArray(coordinates) ? coordinates.map(polygon).filter((shape): shape is GeoShape => shape !== null) : [];
    default:
      return [];
  }
}

/** Segments (a, b) and (c, d) cross or touch, in the longitude/latitude plane. */
function segmentsIntersect(a: GeoPoint, b: GeoPoint, c: GeoPoint, d: GeoPoint): boolean {
  const cross = (p: GeoPoint, q: GeoPoint, r: GeoPoint) => (q.lng - p.lng) * (r.lat - p.lat) - (q.lat - p.lat) * (r.lng - p.lng);
  const onSegment = (p: GeoPoint, q: GeoPoint, r: GeoPoint) => Math.min(p.lng, q.lng) <= r.lng && r.lng <= Math.max(p.lng, q.lng)
    && Math.min(p.lat, q.lat) <= r.lat && r.lat <= Math.max(p.lat, q.lat);
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (d1 === 0 && onSegment(c, d, a)) || (d2 === 0 && onSegment(c, d, b)) || (d3 === 0 && onSegment(a, b, c)) || (d4 === 0 && onSegment(a, b, d));
}

/** Consecutive vertex pairs of a path; closed: the last back to the first too. */
function* segmentsOf(ring: readonly GeoPoint[], closed: boolean): Generator<[GeoPoint, GeoPoint]> {
  for (let k = 0; k + 1 < ring.length; k++) yield [ring[k]!, ring[k + 1]!];
  if (closed && ring.length > 2) yield [ring[ring.length - 1]!, ring[0]!];
}

/** Whether the point lies in the polygon shape: in its outer ring and in none of its holes. */
function pointInShape(point: GeoPoint, shape: GeoShape): boolean {
  if (shape.kind !== 'polygon') return false;
  const [outer, ...holes] = shape.rings.map((ring) => ring.map((vertex) => [vertex.lat, vertex.lng] as const));
  return pointInPolygon(point, outer!) && !holes.some((hole) => pointInPolygon(point, hole));
}

/** Whether the shape intersects the polygon of [lat, lng] vertices (the filter's `_geoPolygon` or box). */
export function shapeIntersectsPolygon(shape: GeoShape, vertices: readonly (readonly [number, number])[]): boolean {
  const area: GeoPoint[] = vertices.map(([lat, lng]) => ({ lat, lng }));
  // A vertex of the shape inside the area, or an edge of each crossing.
  if (shape.rings.some((ring) => ring.some((point) => pointInPolygon(point, vertices)))) return true;
  for (const ring of shape.rings) {
    for (const [a, b] of segmentsOf(ring, shape.kind === 'polygon')) {
      for (const [c, d] of segmentsOf(area, true)) if (segmentsIntersect(a, b, c, d)) return true;
    }
  }
  // The area wholly inside the polygon shape.
  return area.length > 0 && pointInShape(area[0]!, shape);
}

/** `_geoBoundingBox` as polygons (two when it crosses the antimeridian: left > right). */
export function boxPolygons(top: number, bottom: number, left: number, right: number): [number, number][][] {
  const box = (west: number, east: number): [number, number][] => [[top, west], [top, east], [bottom, east], [bottom, west]];
  return left > right ? [box(left, 180), box(-180, right)] : [box(left, right)];
}

/** Whether the shape comes within `meters` of the centre (the centre inside a polygon: distance 0). */
export function shapeWithinRadius(shape: GeoShape, lat: number, lng: number, meters: number): boolean {
  const centre = { lat, lng };
  if (pointInShape(centre, shape)) return true;
  // Local equirectangular projection around the centre, in meters: the nearest point of each segment, then its true distance.
  const metersPerDegree = (Math.PI / 180) * 6_371_000;
  const scaleLng = Math.cos((lat * Math.PI) / 180) * metersPerDegree;
  for (const ring of shape.rings) {
    if (ring.length === 1 && haversineMeters(lat, lng, ring[0]!.lat, ring[0]!.lng) <= meters) return true;
    for (const [a, b] of segmentsOf(ring, shape.kind === 'polygon')) {
      const ax = (a.lng - lng) * scaleLng;
      const ay = (a.lat - lat) * metersPerDegree;
      const bx = (b.lng - lng) * scaleLng;
      const by = (b.lat - lat) * metersPerDegree;
      const dx = bx - ax;
      const dy = by - ay;
      const length = dx * dx + dy * dy;
      const t = length === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length));
      const nearest = { lat: a.lat + t * (b.lat - a.lat), lng: a.lng + t * (b.lng - a.lng) };
      if (haversineMeters(lat, lng, nearest.lat, nearest.lng) <= meters) return true;
    }
  }
  return false;
}

