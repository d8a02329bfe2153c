// The FacetStore's part of a shard snapshot (shard-snapshot.ts): per faceted field its string values
// (keys, spellings, documents), the EXISTS / NULL / EMPTY sets and every document's own values, and the
// `_geo` points. Sorted caches and distinct keys are left out: they are rebuilt on first use.
import roaring from 'roaring';
import { decodeBitmaps, encodeBitmaps } from '../snapshot/bitmap-list-codec.js';
import { FieldFacets, LazyBitmap, type DocFacetValues, type FacetStore } from './facet-store.js';
import { facetKeyOf } from '../../filter/facet-value.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';
import type { GeoShape } from '../../filter/geo-shapes.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

interface FieldSections {
  name: string;
  /** JSON: [key, [[spelling, count], ...]] per string value, in the order of `bitmapEnds`. */
  strings: number;
  bitmapBytes: number;
  bitmapEnds: number;
  /** Per document with values: its id, how many numbers and strings it has; then the numbers and string key indexes. */
  docIds: number;
  numberCounts: number;
  numbers: number;
  stringCounts: number;
  stringKeys: number;
}

export interface FacetSections {
  fields: FieldSections[];
  geoDocIds: number;
  geoPoints: number;
  /** `_geojson` points: per document its id and point count, then the [lat, lng] pairs (absent when none). */
  geojson?: { docIds: number; counts: number; points: number };
  /** `_geojson` lines and polygons: [docId, shapes] pairs as JSON (absent when none). */
  geojsonShapes?: number;
}

export function encodeFacets(writer: SnapshotWriter, facets: FacetStore): FacetSections {
  const fields = [...facets.fields].map(([name, field]) => encodeField(writer, name, field));
  const geoDocIds = new Uint32Array(facets.geo.size);
  const geoPoints = new Float64Array(facets.geo.size * 2);
  let at = 0;
  for (const [docId, point] of facets.geo) {
    geoDocIds[at] = docId;
    geoPoints[at * 2] = point.lat;
    geoPoints[at * 2 + 1] = point.lng;
    at++;
  }
  const sections: FacetSections = { fields, geoDocIds: writer.add(geoDocIds), geoPoints: writer.add(geoPoints) };
  if (facets.geojson.size > 0) sections.geojson = encodeGeojson(writer, facets);
  if (facets.geojsonShapes.size > 0) sections.geojsonShapes = writer.addJson([...facets.geojsonShapes]);
  return sections;
}

function encodeGeojson(writer: SnapshotWriter, facets: FacetStore): NonNullable<FacetSections['geojson']> {
  const docIds = new Uint32Array(facets.geojson.size);
  const counts = new Uint32Array(facets.geojson.size);
  let total = 0;
  for (const points of facets.geojson.values()) total += points.length;
  const coordinates = new Float64Array(total * 2);
  let at = 0;
  let pointAt = 0;
  for (const [docId, points] of facets.geojson) {
    docIds[at] = docId;
    counts[at++] = points.length;
    for (const point of points) {
      coordinates[pointAt++] = point.lat;
      coordinates[pointAt++] = point.lng;
    }
  }
  return { docIds: writer.add(docIds), counts: writer.add(counts), points: writer.add(coordinates) };
}

function encodeField(writer: SnapshotWriter, name: string, field: FieldFacets): FieldSections {
  const keyIndex = new Map<string, number>();
  const strings: [string, [string, number][]][] = [];
  const bitmaps: RoaringBitmap32[] = [field.exists.read(), field.nulls.read(), field.empties.read()];
  for (const [key, facet] of field.strings) {
    keyIndex.set(key, strings.length);
    strings.push([key, [...facet.spellings]]);
    bitmaps.push(facet.docs.read());
  }
  const encoded = encodeBitmaps(bitmaps);
  const docIds = new Uint32Array(field.values.size);
  const numberCounts = new Uint32Array(field.values.size);
  const stringCounts = new Uint32Array(field.values.size);
  let numberTotal = 0;
  let stringTotal = 0;
  for (const own of field.values.values()) {
    numberTotal += own.numbers.length;
    stringTotal += own.strings.length;
  }
  const numbers = new Float64Array(numberTotal);
  const stringKeys = new Uint32Array(stringTotal);
  let at = 0;
  let numberAt = 0;
  let stringAt = 0;
  for (const [docId, own] of field.values) {
    docIds[at] = docId;
    numberCounts[at] = own.numbers.length;
    stringCounts[at] = own.strings.length;
    for (const number of own.numbers) numbers[numberAt++] = number;
    for (const key of own.strings) {
      const index = keyIndex.get(key);
      if (index === undefined) throw new Error(`facet value ${key} of document ${docId} has no entry`);
      stringKeys[stringAt++] = index;
    }
    at++;
  }
  return {
    name, strings: writer.addJson(strings), bitmapBytes: writer.add(encoded.bytes), bitmapEnds: writer.add(encoded.ends),
    docIds: writer.add(docIds), numberCounts: writer.add(numberCounts), numbers: writer.add(numbers),
    stringCounts: writer.add(stringCounts), stringKeys: writer.add(stringKeys),
  };
}

export function restoreFacets(reader: SnapshotReader, sections: FacetSections, target: FacetStore): void {
  for (const fieldSections of sections.fields) target.fields.set(fieldSections.name, restoreField(reader, fieldSections));
  const geoDocIds = reader.uint32(sections.geoDocIds);
  const geoPoints = float64(reader, sections.geoPoints);
  if (geoPoints.length !== geoDocIds.length * 2) throw new SnapshotFormatError('geo points');
  for (let k = 0; k < geoDocIds.length; k++) target.geo.set(geoDocIds[k]!, { lat: geoPoints[k * 2]!, lng: geoPoints[k * 2 + 1]! });
  if (sections.geojson) {
    const docIds = reader.uint32(sections.geojson.docIds);
    const counts = reader.uint32(sections.geojson.counts);
    const coordinates = float64(reader, sections.geojson.points);
    if (counts.length !== docIds.length) throw new SnapshotFormatError('geojson points');
    let pointAt = 0;
    for (let k = 0; k < docIds.length; k++) {
      const points = [];
      for (let n = 0; n < counts[k]!; n++, pointAt += 2) {
        if (pointAt + 1 >= coordinates.length) throw new SnapshotFormatError('geojson points');
        points.push({ lat: coordinates[pointAt]!, lng: coordinates[pointAt + 1]! });
      }
      target.geojson.set(docIds[k]!, points);
    }
  }
  if (sections.geojsonShapes !== undefined) {
    const pairs = reader.json(sections.geojsonShapes) as [number, GeoShape[]][];
    if (!Array.isArray(pairs)) throw new SnapshotFormatError('geojson shapes');
    for (const [docId, shapes] of pairs) target.geojsonShapes.set(docId, shapes);
  }
}

function restoreField(reader: SnapshotReader, sections: FieldSections): FieldFacets {
  const field = new FieldFacets();
  const strings = reader.json(sections.strings) as [string, [string, number][]][];
  const bitmaps = decodeBitmaps(reader.bytes(sections.bitmapBytes), reader.uint32(sections.bitmapEnds));
  if (!Array.isArray(strings) || bitmaps.length !== strings.length + 3) throw new SnapshotFormatError('facet strings');
  field.exists.read().orInPlace(bitmaps[0]!);
  field.nulls.read().orInPlace(bitmaps[1]!);
  field.empties.read().orInPlace(bitmaps[2]!);
  const keys = strings.map(([key]) => key);
  // A snapshot from before facet keys were cut as milli's (facet-value.ts facetKeyOf) is rebuilt from LMDB.
  if (keys.some((key) => facetKeyOf(key) !== key)) throw new SnapshotFormatError('facet keys longer than 468 bytes');
  strings.forEach(([key, spellings], k) => field.strings.set(key, { docs: new LazyBitmap(bitmaps[k + 3]!), spellings: new Map(spellings) }));
  const docIds = reader.uint32(sections.docIds);
  const numberCounts = reader.uint32(sections.numberCounts);
  const stringCounts = reader.uint32(sections.stringCounts);
  const numbers = float64(reader, sections.numbers);
  const stringKeys = reader.uint32(sections.stringKeys);
  if (numberCounts.length !== docIds.length || stringCounts.length !== docIds.length) throw new SnapshotFormatError('facet values');
  let numberAt = 0;
  let stringAt = 0;
  for (let k = 0; k < docIds.length; k++) {
    const own: DocFacetValues = { numbers: Array.from(numbers.subarray(numberAt, numberAt += numberCounts[k]!)), strings: [] };
    for (const end = stringAt + stringCounts[k]!; stringAt < end; stringAt++) {
      const key = keys[stringKeys[stringAt]!];
      if (key === undefined) throw new SnapshotFormatError('facet value index');
      own.strings.push(key);
    }
    field.values.set(docIds[k]!, own);
  }
  if (numberAt !== numbers.length || stringAt !== stringKeys.length) throw new SnapshotFormatError('facet value counts');
  return field;
}

function float64(reader: SnapshotReader, section: number): Float64Array {
  const bytes = reader.bytes(section);
  if (bytes.byteLength % 8 !== 0) throw new SnapshotFormatError('float section length');
  return bytes.byteOffset % 8 === 0 ? new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8) : new Float64Array(bytes.slice().buffer);
}
