// A shard's SortOrder (ranking/rules/sort.ts) for one criterion: a field's values (numbers first, then
// normalized strings, then documents without a value) or the distance to a `_geoPoint`. A big universe
// is walked in the field's sorted values so the bucket sort can stop after a few groups; a small one
// is keyed document by document and sorted. Both give the same keys (sort-key.ts).
import roaring from 'roaring';
import type { SortGroup, SortOrder } from '../../ranking/rules/sort.js';
import {
  compareSortKeys, missingSortKey, numberSortKey, SORT_KEY_WIDTH, stringSortKey, type SortCriterion, type SortDirection,
} from '../../ranking/rules/sort-key.js';
import type { FacetStore, FieldFacets } from './facet-store.js';
import { haversineMeters } from '../../filter/geo-distance.js';
import { compareCodePoints } from '../../filter/facet-value.js';
import type { SearchBudget } from '../search/search-budget.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** When universe.size × this ≤ the field's valued documents, the universe is keyed document by document (else walked). */
const WALK_RATIO = 16;
/** Documents ordered in the first round of a geo sort (rounds double). */
const GEO_CHUNK = 256;

/** Documents keyed (or measured) between two yield points of the search's budget. */
const YIELD_EVERY = 4096;

/** `budget`: the search's, whose yield points the orders call while keying many documents (they cannot stop early: the sort rule does, per group). */
export function sortOrderFor(store: FacetStore, criterion: SortCriterion, budget: SearchBudget | null = null): SortOrder {
  if (criterion.point) return new GeoSortOrder(store, criterion.point, criterion.direction, budget);
  return new FieldSortOrder(store.field(criterion.field!), criterion.direction, budget);
}

/** The key of one document for a field (asc: its smallest value, desc: its largest; numbers first). */
export function fieldSortKey(field: FieldFacets | undefined, docId: number, direction: SortDirection): number[] {
  const values = field?.values.get(docId);
  if (!values) return missingSortKey();
  if (values.numbers.length > 0) {
    return numberSortKey(direction === 'asc' ? Math.min(...values.numbers) : Math.max(...values.numbers), direction);
  }
  let best = values.strings[0]!;
  for (const value of values.strings) if (direction === 'asc' ? compareCodePoints(value, best) < 0 : compareCodePoints(value, best) > 0) best = value;
  return stringSortKey(best, direction);
}

class FieldSortOrder implements SortOrder {
  readonly width = SORT_KEY_WIDTH;
  constructor(private readonly field: FieldFacets | undefined, private readonly direction: SortDirection,
    private readonly budget: SearchBudget | null) {}

  groups(universe: RoaringBitmap32): Iterator<SortGroup> {
    if (!this.field) return [{ docIds: universe, key: missingSortKey() }][Symbol.iterator]();
    const valueCount = this.field.values.size;
    if (universe.size * WALK_RATIO <= valueCount) return keyedGroups(universe, (docId) => fieldSortKey(this.field, docId, this.direction), this.budget);
    return this.walk(universe);
  }

  /**
   * The field's values in order (numbers, then strings), each group the universe's documents holding the
   * value and no earlier one. Membership and what was yielded are bit sets over the universe's ids (one
   * array read per document of a value, not bitmap operations per value: the groups of a field of
   * 100,000 names cost ~40 ms a search for 1,000 hits that way).
   */
  private *walk(universe: RoaringBitmap32): Generator<SortGroup> {
    const field = this.field!;
    const asc = this.direction === 'asc';
    const step = asc ? 1 : -1;
    const universeIds = universe.toUint32Array();
    const words = universeIds.length === 0 ? 0 : (universeIds[universeIds.length - 1]! >>> 5) + 1;
    const member = new Uint32Array(words);
    for (let k = 0; k < universeIds.length; k++) member[universeIds[k]! >>> 5]! |= 1 << (universeIds[k]! & 31);
    const seen = new Uint32Array(words);
    let left = universeIds.length;
    const picked: number[] = [];
    /** Takes the documents of docIds[from, to) in the universe and not yielded yet into `picked`. */
    const take = (docIds: Uint32Array, from: number, to: number) => {
      for (let p = from; p < to; p++) {
        const docId = docIds[p]!;
        const word = docId >>> 5;
        const bit = 1 << (docId & 31);
        if (word >= words || (member[word]! & bit) === 0 || (seen[word]! & bit) !== 0) continue;
        seen[word]! |= bit;
        picked.push(docId);
      }
    };
    const { values, docIds } = field.sortedNumbers();
    for (let k = asc ? 0 : values.length - 1, visited = 0; asc ? k < values.length : k >= 0;) {
      const value = values[k]!;
      const first = k;
      while ((asc ? k < values.length : k >= 0) && values[k] === value) k += step;
      if (++visited % YIELD_EVERY === 0) this.budget?.yieldPoint();
      picked.length = 0;
      if (asc) take(docIds, first, k);
      else take(docIds, k + 1, first + 1);
      if (picked.length === 0) continue;
      left -= picked.length;
      yield { docIds: new RoaringBitmap32(picked), key: numberSortKey(value, this.direction) };
      if (left === 0) return;
    }
    const strings = field.sortedStrings();
    const runs = field.stringRuns();
    for (let k = asc ? 0 : strings.length - 1, visited = 0; asc ? k < strings.length : k >= 0; k += step) {
      if (++visited % YIELD_EVERY === 0) this.budget?.yieldPoint();
      // Values equal on milli's 468 bytes are one key there (adjacent in code point order): one group,
      // keyed by the value met first.
      const key = strings[k]!;
      picked.length = 0;
      take(runs.docIds, runs.starts[k]!, runs.starts[k + 1]!);
      while (asc ? k + 1 < strings.length && runs.sameKeyAsPrevious[k + 1] === 1 : k > 0 && runs.sameKeyAsPrevious[k] === 1) {
        k += step;
        take(runs.docIds, runs.starts[k]!, runs.starts[k + 1]!);
      }
      if (picked.length === 0) continue;
      left -= picked.length;
      yield { docIds: new RoaringBitmap32(picked), key: stringSortKey(key, this.direction) };
      if (left === 0) return;
    }
    picked.length = 0;
    for (let k = 0; k < universeIds.length; k++) {
      const docId = universeIds[k]!;
      if ((seen[docId >>> 5]! & (1 << (docId & 31))) === 0) picked.push(docId);
    }
    if (picked.length > 0) yield { docIds: new RoaringBitmap32(picked), key: missingSortKey() };
  }
}

class GeoSortOrder implements SortOrder {
  readonly width = SORT_KEY_WIDTH;
  constructor(private readonly store: FacetStore, private readonly point: { lat: number; lng: number },
    private readonly direction: SortDirection, private readonly budget: SearchBudget | null) {}

  /**
   * Distances in one typed array; the documents are ordered chunk by chunk (the nearest CHUNK first,
   * then twice as many...), since the bucket sort usually stops after the first few groups.
   */
  *groups(universe: RoaringBitmap32): Generator<SortGroup> {
    const docIds = universe.toUint32Array();
    const sign = this.direction === 'asc' ? 1 : -1;
    const scores = new Float64Array(docIds.length);
    for (let k = 0; k < docIds.length; k++) {
      if (k % YIELD_EVERY === YIELD_EVERY - 1) this.budget?.yieldPoint();
      const location = this.store.geo.get(docIds[k]!);
      scores[k] = location ? sign * haversineMeters(this.point.lat, this.point.lng, location.lat, location.lng) : Infinity;
    }
    const sortedScores = scores.slice().sort();
    let done = 0;
    let below = -Infinity;
    for (let chunk = GEO_CHUNK; done < docIds.length; chunk *= 2) {
      // Every score in (below, ceiling]: whole runs of equal scores, so groups never straddle chunks.
      const ceiling = sortedScores[Math.min(docIds.length - 1, done + chunk - 1)]!;
      const picked: number[] = [];
      for (let k = 0; k < docIds.length; k++) if (scores[k]! > below && scores[k]! <= ceiling) picked.push(k);
      picked.sort((a, b) => scores[a]! - scores[b]! || docIds[a]! - docIds[b]!);
      for (let start = 0; start < picked.length;) {
        const score = scores[picked[start]!]!;
        let end = start + 1;
        while (end < picked.length && scores[picked[end]!] === score) end++;
        const group = new RoaringBitmap32();
        for (let k = start; k < end; k++) group.add(docIds[picked[k]!]!);
        yield { docIds: group, key: score === Infinity ? missingSortKey() : numberSortKey(sign * score, this.direction) };
        start = end;
      }
      done += picked.length;
      below = ceiling;
    }
  }
}

/** Keys every document of the universe, sorts, and yields runs of equal keys. */
function* keyedGroups(universe: RoaringBitmap32, keyOf: (docId: number) => number[], budget: SearchBudget | null): Generator<SortGroup> {
  const docIds = universe.toUint32Array();
  const keys = Array.from(docIds, (docId, k) => {
    if (k % YIELD_EVERY === YIELD_EVERY - 1) budget?.yieldPoint();
    return keyOf(docId);
  });
  const order = Array.from(docIds.keys());
  order.sort((a, b) => compareSortKeys(keys[a]!, keys[b]!) || docIds[a]! - docIds[b]!);
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && compareSortKeys(keys[order[start]!]!, keys[order[end]!]!) === 0) end++;
    const group = new RoaringBitmap32();
    for (let k = start; k < end; k++) group.add(docIds[order[k]!]!);
    yield { docIds: group, key: keys[order[start]!]! };
    start = end;
  }
}
