// distinctAttribute / `distinct`: only the best-ranked document per value of the field; documents
// without a value are all kept. A document's distinct key is its first number, else its first
// normalized string (the same on every shard, so the front can drop cross-shard duplicates).
import type roaring from 'roaring';
import type { DocFacetValues, FieldFacets } from './facet-store.js';
import type { SearchBudget } from '../search/search-budget.js';

export type DistinctKeyOf = (docId: number) => string | null;

/**
 * Each document's distinct key as a small number, so counting the keys of a search's matches reads a
 * typed array instead of a map and a string set per document (a placeholder search with distinct on a
 * field of 100,000 values cost ~150 ms that way). Owner: its field (FieldFacets.distinctKeys), made on
 * a distinct search's first use, then told of every write to the field: a key never seen gets the next
 * number, a removed document's number is cleared, and a key no document holds any more keeps its
 * number until the table is made again (once there are more numbers than twice the documents with
 * values, plus 1,024). Size: 4 bytes per document id up to the largest, and one string per number.
 */
export class DistinctKeyTable {
  /** Per document id, its key's number + 1 (0: no key). */
  private numbers = new Int32Array(1024);
  /** The key of each number. */
  readonly keys: string[] = [];
  private readonly numberOfKey = new Map<string, number>();

  static of(values: ReadonlyMap<number, DocFacetValues>): DistinctKeyTable {
    const table = new DistinctKeyTable();
    for (const [docId, own] of values) table.set(docId, own);
    return table;
  }

  /** A document's values were written (all of them: a document's first number, else its first string, is its key). */
  set(docId: number, own: DocFacetValues): void {
    const key = own.numbers.length > 0 ? `n${own.numbers[0]}` : own.strings.length > 0 ? `s${own.strings[0]}` : null;
    if (key === null) {
      this.clear(docId);
      return;
    }
    let number = this.numberOfKey.get(key);
    if (number === undefined) {
      number = this.keys.length;
      this.keys.push(key);
      this.numberOfKey.set(key, number);
    }
    if (docId >= this.numbers.length) {
      const grown = new Int32Array(Math.max(docId + 1, this.numbers.length * 2));
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[docId] = number + 1;
  }

  clear(docId: number): void {
    if (docId < this.numbers.length) this.numbers[docId] = 0;
  }

  /** The document's key number, -1 without one. */
  numberOf(docId: number): number {
    return docId < this.numbers.length ? this.numbers[docId]! - 1 : -1;
  }

  keyOf(docId: number): string | null {
    const number = this.numberOf(docId);
    return number < 0 ? null : this.keys[number]!;
  }

  /** Numbers of keys gone outweigh the documents: made again from the field's values (FieldFacets.distinctKeys). */
  worn(documents: number): boolean {
    return this.keys.length > 2 * documents + 1024;
  }
}

/** A field's distinct keys as a search reads them: each document's key, and the count of a search's matches. */
export interface DistinctKeys {
  keyOf: DistinctKeyOf;
  /**
   * The matching documents once one per key is kept: how many keys they hold and how many have none.
   * `listKeys`: the keys too (when another shard's or worker's documents may share them). Counting
   * stops once both add up to `cap` (the count shown is capped there).
   */
  count(universe: roaring.RoaringBitmap32, budget: SearchBudget | null, listKeys: boolean, cap?: number): DistinctCount;
}

export interface DistinctCount {
  keyCount: number;
  withoutKey: number;
  /** The keys, when listed. */
  keys: string[] | null;
}

/** A field the shard holds no value of: every document is keyless. */
const NO_KEYS: DistinctKeys = {
  keyOf: () => null,
  count: (universe, _budget, listKeys, cap = Infinity) => ({ keyCount: 0, withoutKey: Math.min(universe.size, cap), keys: listKeys ? [] : null }),
};

export function distinctKeysOf(field: FieldFacets | undefined): DistinctKeys {
  if (field === undefined) return NO_KEYS;
  return {
    keyOf: (docId) => field.distinctKeys().keyOf(docId),
    count: (universe, budget, listKeys, cap = Infinity) => countDistinct(field.distinctKeys(), universe, budget, listKeys, cap),
  };
}

/** Documents keyed between two yield points of the search's budget. */
const KEYS_PER_STEP = 16384;

/**
 * DistinctKeys.count. Past the budget's deadline the documents not keyed yet count as keyless (each its
 * own hit): the count is an estimate then, as Meilisearch's estimatedTotalHits of a degraded search.
 */
function countDistinct(table: DistinctKeyTable, universe: roaring.RoaringBitmap32, budget: SearchBudget | null, listKeys: boolean, cap: number): DistinctCount {
  const seen = new Uint8Array(table.keys.length);
  const keys: string[] | null = listKeys ? [] : null;
  let keyCount = 0;
  let withoutKey = 0;
  const docIds = universe.toUint32Array();
  for (let k = 0; k < docIds.length; k++) {
    if (budget !== null && k % KEYS_PER_STEP === KEYS_PER_STEP - 1 && budget.passed()) {
      withoutKey += docIds.length - k;
      break;
    }
    const number = table.numberOf(docIds[k]!);
    if (number < 0) withoutKey++;
    else if (seen[number] === 0) {
      seen[number] = 1;
      keyCount++;
      keys?.push(table.keys[number]!);
    } else continue;
    if (keyCount + withoutKey >= cap) break;
  }
  return { keyCount, withoutKey, keys };
}

/** Keeps, in order, the first item of each key (items without a key are all kept). */
export function keepFirstPerKey<T>(items: readonly T[], keyOf: (item: T) => string | null | undefined, limit = Infinity): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    if (out.length >= limit) break;
    const key = keyOf(item);
    if (key !== null && key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(item);
  }
  return out;
}
