// The faceted values of one shard: for every filterable / sortable / distinct field, bitmaps of
// documents per normalized string and per number, sorted arrays for ranges and sort, the
// EXISTS / IS NULL / IS EMPTY sets, each document's own values, and `_geo` points.
import roaring from 'roaring';
import { flattenDocument } from '../../documents/flatten.js';
import { geojsonPointsOf, geoPointOf } from '../../documents/geo-field.js';
import { geojsonShapesOf, type GeoShape } from '../../filter/geo-shapes.js';
import { alphaNumberOf, compareCodePoints, facetKeyOf, normalizeFacetValue } from '../../filter/facet-value.js';
import { DistinctKeyTable } from './distinct.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * A bitmap whose additions are buffered in a JS array and applied in one addMany when it is read:
 * a bulk load then costs one native call per bitmap instead of one per document and value.
 */
export class LazyBitmap {
  private pending: number[] = [];

  /** `bitmap`: the documents to start with (a restored snapshot's). */
  constructor(private readonly bitmap = new RoaringBitmap32()) {}

  add(docId: number): void {
    this.pending.push(docId);
  }

  remove(docId: number): void {
    this.read().remove(docId);
  }

  /** The bitmap itself: do not mutate. */
  read(): RoaringBitmap32 {
    if (this.pending.length > 0) {
      this.bitmap.addMany(this.pending);
      this.pending = [];
    }
    return this.bitmap;
  }
}

export interface DocFacetValues {
  numbers: number[];
  /** Facet keys: normalized strings cut as milli's (facet-value.ts facetKeyOf; booleans as "true" / "false"). */
  strings: string[];
}

export interface StringFacet {
  docs: LazyBitmap;
  /** Original spellings with how many documents use each; the smallest one is shown. */
  spellings: Map<string, number>;
}

export interface GeoPoint {
  lat: number;
  lng: number;
}

export class FieldFacets {
  readonly strings = new Map<string, StringFacet>();
  readonly exists = new LazyBitmap();
  readonly nulls = new LazyBitmap();
  readonly empties = new LazyBitmap();
  readonly values = new Map<number, DocFacetValues>();
  private sortedNumbersCache: { values: Float64Array; docIds: Uint32Array } | null = null;
  private sortedStringsCache: string[] | null = null;
  private numberBlocksCache: DocBlocks | null = null;
  private stringIndexCache: StringIndex | null = null;
  private alphaOrderCache: AlphaOrder | null = null;
  private stringRunsCache: StringRuns | null = null;
  /** Kept across writes, told of each (distinct.ts DistinctKeyTable: owner, lifetime and size there). */
  private distinctKeyTable: DistinctKeyTable | null = null;

  add(docId: number, value: unknown): void {
    this.exists.add(docId);
    const own: DocFacetValues = { numbers: [], strings: [] };
    if (value === null) this.nulls.add(docId);
    else if (value === '' || (Array.isArray(value) && value.length === 0)
      || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0)) this.empties.add(docId);
    this.collect(docId, value, own);
    if (own.numbers.length > 0 || own.strings.length > 0) {
      this.values.set(docId, own);
      this.distinctKeyTable?.set(docId, own);
      this.invalidate();
    }
  }

  remove(docId: number): void {
    this.exists.remove(docId);
    this.nulls.remove(docId);
    this.empties.remove(docId);
    const own = this.values.get(docId);
    if (!own) return;
    this.values.delete(docId);
    this.distinctKeyTable?.clear(docId);
    for (const key of own.strings) {
      const facet = this.strings.get(key);
      if (!facet) continue;
      facet.docs.remove(docId);
      if (facet.docs.read().isEmpty) this.strings.delete(key);
    }
    this.invalidate();
  }

  /** Every (number, document) pair sorted by number (then document), for equality, ranges, sort and stats. */
  sortedNumbers(): { values: Float64Array; docIds: Uint32Array } {
    if (this.sortedNumbersCache) return this.sortedNumbersCache;
    let count = 0;
    for (const own of this.values.values()) count += own.numbers.length;
    const unsortedValues = new Float64Array(count);
    const unsortedDocIds = new Uint32Array(count);
    let at = 0;
    for (const [docId, own] of this.values) {
      for (const number of own.numbers) {
        unsortedValues[at] = number;
        unsortedDocIds[at++] = docId;
      }
    }
    const order = new Uint32Array(count).map((_, k) => k);
    order.sort((a, b) => unsortedValues[a]! - unsortedValues[b]! || unsortedDocIds[a]! - unsortedDocIds[b]!);
    const values = new Float64Array(count);
    const docIds = new Uint32Array(count);
    for (let k = 0; k < count; k++) {
      values[k] = unsortedValues[order[k]!]!;
      docIds[k] = unsortedDocIds[order[k]!]!;
    }
    this.sortedNumbersCache = { values, docIds };
    return this.sortedNumbersCache;
  }

  /** Each document's distinct key as a number (distinct.ts), made on first use. */
  distinctKeys(): DistinctKeyTable {
    if (this.distinctKeyTable === null || this.distinctKeyTable.worn(this.values.size)) this.distinctKeyTable = DistinctKeyTable.of(this.values);
    return this.distinctKeyTable;
  }

  /**
   * The documents of each string value in sortedStrings() order, for a sort walking the values
   * (sort-order.ts): one typed array instead of a bitmap operation per value. Owner: this field, like
   * its other caches; made on first use after a write, dropped by the next (invalidate). Size: 4 bytes
   * per (document, value) pair and 5 per value.
   */
  stringRuns(): StringRuns {
    if (this.stringRunsCache) return this.stringRunsCache;
    const keys = this.sortedStrings();
    const indexOf = new Map<string, number>();
    for (let k = 0; k < keys.length; k++) indexOf.set(keys[k]!, k);
    let count = 0;
    for (const own of this.values.values()) count += own.strings.length;
    // (value index, document) pairs packed in one number each: sorted, they are the runs in order.
    const pairs = new Float64Array(count);
    let at = 0;
    for (const [docId, own] of this.values) for (const key of own.strings) pairs[at++] = indexOf.get(key)! * 2 ** 32 + docId;
    pairs.sort();
    const docIds = new Uint32Array(count);
    const starts = new Uint32Array(keys.length + 1);
    let run = 0;
    for (let k = 0; k < count; k++) {
      const pair = pairs[k]!;
      const index = Math.floor(pair / 2 ** 32);
      while (run <= index) starts[run++] = k;
      docIds[k] = pair - index * 2 ** 32;
    }
    while (run <= keys.length) starts[run++] = count;
    const sameKeyAsPrevious = new Uint8Array(keys.length);
    let previous = keys.length > 0 ? facetKeyOf(keys[0]!) : '';
    for (let k = 1; k < keys.length; k++) {
      const key = facetKeyOf(keys[k]!);
      if (key === previous) sameKeyAsPrevious[k] = 1;
      previous = key;
    }
    this.stringRunsCache = { docIds, starts, sameKeyAsPrevious };
    return this.stringRunsCache;
  }

  /** Normalized string values in ascending order. */
  sortedStrings(): string[] {
    this.sortedStringsCache ??= [...this.strings.keys()].sort(compareStrings);
    return this.sortedStringsCache;
  }

  /**
   * The string values in a facet distribution's alpha order (filter/facet-value.ts compareFacetSortKeys):
   * keys that read as numbers first, by number then key, then the others in key order (a shard shows one
   * spelling per key). Owner: this field, like its other caches. Made on first use after a write (a
   * displaySpelling per value, a sort of the numeric keys), dropped by the next (invalidate). Size: two
   * arrays of one entry per distinct string value.
   */
  alphaOrder(): AlphaOrder {
    if (this.alphaOrderCache) return this.alphaOrderCache;
    const numeric: { key: string; number: number }[] = [];
    const others: string[] = [];
    for (const key of this.sortedStrings()) {
      const number = alphaNumberOf(key);
      if (number !== null) numeric.push({ key, number });
      else others.push(key);
    }
    numeric.sort((a, b) => a.number - b.number || compareCodePoints(a.key, b.key));
    const facets: StringFacet[] = [];
    const spellings: string[] = [];
    for (const key of [...numeric.map((entry) => entry.key), ...others]) {
      const facet = this.strings.get(key)!;
      facets.push(facet);
      spellings.push(displaySpelling(facet));
    }
    this.alphaOrderCache = { facets, spellings, numericCount: numeric.length };
    return this.alphaOrderCache;
  }

  /** Documents whose numbers fall in [low, high] (bounds inclusive unless said otherwise). */
  numberRange(low: number, high: number, lowInclusive = true, highInclusive = true): RoaringBitmap32 {
    const { values, docIds } = this.sortedNumbers();
    const from = lowerBound(values, low, !lowInclusive);
    const to = lowerBound(values, high, highInclusive);
    if (from >= to) return new RoaringBitmap32();
    return (this.numberBlocksCache ??= new DocBlocks(docIds)).slice(from, to);
  }

  /** Each normalized string's documents end to end in key order, so a range of keys is one slice. */
  stringIndex(): StringIndex {
    if (this.stringIndexCache) return this.stringIndexCache;
    const keys = this.sortedStrings();
    const starts = new Uint32Array(keys.length + 1);
    let total = 0;
    for (let k = 0; k < keys.length; k++) {
      starts[k] = total;
      total += this.strings.get(keys[k]!)!.docs.read().size;
    }
    starts[keys.length] = total;
    const docIds = new Uint32Array(total);
    for (let k = 0; k < keys.length; k++) docIds.set(this.strings.get(keys[k]!)!.docs.read().toUint32Array(), starts[k]!);
    this.stringIndexCache = { keys, starts, docIds, blocks: null };
    return this.stringIndexCache;
  }

  /**
   * Documents with a normalized string value in the key range (null = unbounded): binary searches
   * and one slice, whatever the number of keys (a scan of every key per condition made a filter of
   * 2,000 string ranges over 30k names take 62 s).
   */
  stringRange(lowKey: string | null, highKey: string | null, lowInclusive: boolean, highInclusive: boolean): RoaringBitmap32 {
    const index = this.stringIndex();
    const from = lowKey === null ? 0 : stringBound(index.keys, lowKey, !lowInclusive);
    const to = highKey === null ? index.keys.length : stringBound(index.keys, highKey, highInclusive);
    if (from >= to) return new RoaringBitmap32();
    return (index.blocks ??= new DocBlocks(index.docIds)).slice(index.starts[from]!, index.starts[to]!);
  }

  private collect(docId: number, value: unknown, own: DocFacetValues): void {
    if (Array.isArray(value)) {
      for (const element of value) this.collect(docId, element, own);
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      if (!own.numbers.includes(value)) own.numbers.push(value);
    } else if (typeof value === 'string' || typeof value === 'boolean') {
      const original = String(value).trim();
      // milli's key: the normalized value cut to 468 bytes, so values equal on those are one value.
      const key = facetKeyOf(normalizeFacetValue(original));
      if (own.strings.includes(key)) return;
      own.strings.push(key);
      let facet = this.strings.get(key);
      if (!facet) this.strings.set(key, (facet = { docs: new LazyBitmap(), spellings: new Map() }));
      facet.docs.add(docId);
      facet.spellings.set(original, (facet.spellings.get(original) ?? 0) + 1);
    }
  }

  private invalidate(): void {
    this.sortedNumbersCache = null;
    this.sortedStringsCache = null;
    this.numberBlocksCache = null;
    this.stringIndexCache = null;
    this.alphaOrderCache = null;
    this.stringRunsCache = null;
  }
}

/** The spelling shown for a string facet value: the smallest one in use (same on every shard layout). */
export function displaySpelling(facet: StringFacet): string {
  let best: string | null = null;
  for (const [spelling, count] of facet.spellings) if (count > 0 && (best === null || spelling < best)) best = spelling;
  return best ?? '';
}

export class FacetStore {
  readonly fields = new Map<string, FieldFacets>();
  readonly geo = new Map<number, GeoPoint>();
  /** `_geojson` points (Point / MultiPoint geometries) for `_geoPolygon`, when `_geojson` is filterable. */
  readonly geojson = new Map<number, GeoPoint[]>();
  /** `_geojson` lines and polygons (filter/geo-shapes.ts), when `_geojson` is filterable. */
  readonly geojsonShapes = new Map<number, GeoShape[]>();

  constructor(private readonly isFaceted: (field: string) => boolean, private readonly geoEnabled: boolean,
    private readonly geojsonEnabled = false) {}

  field(name: string): FieldFacets | undefined {
    return this.fields.get(name);
  }

  upsert(docId: number, document: Record<string, unknown>): void {
    for (const [name, value] of flattenDocument(document)) {
      if (!this.isFaceted(name)) continue;
      // `_geo` is a location, filtered and sorted through `geo` only (never a facet value).
      if (this.geoEnabled && (name === '_geo' || name.startsWith('_geo.'))) continue;
      if (this.geojsonEnabled && (name === '_geojson' || name.startsWith('_geojson.'))) continue;
      let field = this.fields.get(name);
      if (!field) this.fields.set(name, (field = new FieldFacets()));
      field.add(docId, value);
    }
    if (this.geoEnabled) {
      const point = geoPointOf(document['_geo']);
      if (point) this.geo.set(docId, point);
    }
    if (this.geojsonEnabled) {
      const points = geojsonPointsOf(document['_geojson']);
      if (points.length > 0) this.geojson.set(docId, points);
      const shapes = geojsonShapesOf(document['_geojson']);
      if (shapes.length > 0) this.geojsonShapes.set(docId, shapes);
    }
  }

  delete(docId: number): void {
    for (const field of this.fields.values()) field.remove(docId);
    this.geo.delete(docId);
    this.geojson.delete(docId);
    this.geojsonShapes.delete(docId);
  }
}


/** First index whose value is >= target (or > target when `strict`). */
function lowerBound(values: Float64Array, target: number, strict: boolean): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const value = values[middle]!;
    if (value < target || (strict && value === target)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * FieldFacets.stringRuns: the documents of sortedStrings()[k] are docIds[starts[k], starts[k + 1]) (ascending,
 * a document once per time it holds the value); sameKeyAsPrevious[k]: values k - 1 and k are one key on milli's
 * 468 bytes (facetKeyOf), which a sort groups as one.
 */
export interface StringRuns {
  docIds: Uint32Array;
  starts: Uint32Array;
  sameKeyAsPrevious: Uint8Array;
}

/** FieldFacets.alphaOrder: the values and their shown spellings; the first numericCount have keys that read as numbers. */
export interface AlphaOrder {
  facets: StringFacet[];
  spellings: string[];
  numericCount: number;
}

export interface StringIndex {
  /** Normalized keys, ascending. */
  keys: string[];
  /** [k]: where key k's documents start in docIds (keys.length + 1 entries). */
  starts: Uint32Array;
  docIds: Uint32Array;
  blocks: DocBlocks | null;
}

/**
 * A value-ordered document list cut in blocks, for slices of it as bitmaps (ranges of values). A bitmap
 * made from ids in value order (not ascending) costs ~25 ns an id, so a filter of 2,000 `x > k` over
 * 30k documents took 1.8 s made that way. Here a slice is the whole blocks inside it plus at most two
 * partial blocks added from the list; when no document appears twice (one value each), the whole
 * blocks are one difference of two prefix bitmaps (the documents before block j), a few µs whatever
 * their size; else a union of the blocks.
 */
export class DocBlocks {
  private readonly blockSize: number;
  /** [j]: the documents of block j (multi-valued lists), or of blocks [0, j) (one value each), j up to the block count. */
  private readonly bitmaps: RoaringBitmap32[] = [];
  private readonly prefixes: boolean;

  constructor(private readonly docIds: Uint32Array) {
    // 64 blocks: 64 prefix bitmaps of at most every document (8 bytes a document when dense).
    this.blockSize = Math.max(256, Math.ceil(docIds.length / 64));
    const all = new RoaringBitmap32(docIds);
    this.prefixes = all.size === docIds.length;
    let prefix = new RoaringBitmap32();
    if (this.prefixes) this.bitmaps.push(prefix);
    for (let start = 0; start < docIds.length; start += this.blockSize) {
      const block = new RoaringBitmap32(docIds.subarray(start, Math.min(docIds.length, start + this.blockSize)));
      if (!this.prefixes) {
        this.bitmaps.push(block);
        continue;
      }
      prefix = RoaringBitmap32.or(prefix, block);
      prefix.runOptimize();
      this.bitmaps.push(prefix);
    }
  }

  /** The documents of docIds[from, to). */
  slice(from: number, to: number): RoaringBitmap32 {
    if (from >= to) return new RoaringBitmap32();
    const size = this.blockSize;
    const firstWhole = Math.ceil(from / size);
    const endWhole = Math.floor(to / size);
    if (firstWhole >= endWhole) return new RoaringBitmap32(this.docIds.subarray(from, to));
    let out: RoaringBitmap32;
    if (this.prefixes) out = RoaringBitmap32.andNot(this.bitmaps[endWhole]!, this.bitmaps[firstWhole]!);
    else out = endWhole - firstWhole === 1 ? this.bitmaps[firstWhole]!.clone() : RoaringBitmap32.orMany(this.bitmaps.slice(firstWhole, endWhole));
    if (from < firstWhole * size) out.addMany(this.docIds.subarray(from, firstWhole * size));
    if (endWhole * size < to) out.addMany(this.docIds.subarray(endWhole * size, to));
    return out;
  }
}

/** First index whose key is >= target (or > target when `strict`), in keys sorted by compareStrings. */
function stringBound(keys: readonly string[], target: string, strict: boolean): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const key = keys[middle]!;
    const order = compareCodePoints(key, target);
    if (order < 0 || (strict && order === 0)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The order of normalized strings: code point order, as milli's facet keys (ranges and sort). */
export function compareStrings(a: string, b: string): number {
  return compareCodePoints(a, b);
}
