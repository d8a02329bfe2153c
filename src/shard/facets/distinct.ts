// distinctAttribute / `distinct`: only the best-ranked document per value of the field; documents
// without a value are all kept. A document's distinct key is its first number, else its first
// normalized string (the same on every shard, so the front can drop cross-shard duplicates).
import type roaring from 'roaring';
import type { FieldFacets } from './facet-store.js';
import type { SearchBudget } from '../search/search-budget.js';

export type DistinctKeyOf = (docId: number) => string | null;

export function distinctKeyOf(field: FieldFacets | undefined): DistinctKeyOf {
  return (docId) => {
    const values = field?.values.get(docId);
    if (!values) return null;
    // Cached on the document's values: counting distinct matches reads every matching document.
    if (values.distinctKey === undefined) {
      values.distinctKey = values.numbers.length > 0 ? `n${values.numbers[0]}` : values.strings.length > 0 ? `s${values.strings[0]}` : null;
    }
    return values.distinctKey;
  };
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

/** Documents keyed between two yield points of the search's budget. */
const KEYS_PER_STEP = 4096;

/**
 * The distinct keys of the matching documents, and how many matching documents have none. Past the
 * budget's deadline the documents not keyed yet count as keyless (each its own hit): the count is an
 * estimate then, as Meilisearch's estimatedTotalHits of a degraded search.
 */
export function distinctKeysOf(universe: roaring.RoaringBitmap32, keyOf: DistinctKeyOf, budget: SearchBudget | null = null): { keys: Set<string>; withoutKey: number } {
  const keys = new Set<string>();
  let withoutKey = 0;
  const docIds = universe.toUint32Array();
  for (let k = 0; k < docIds.length; k++) {
    if (budget !== null && k % KEYS_PER_STEP === KEYS_PER_STEP - 1 && budget.passed()) {
      withoutKey += docIds.length - k;
      break;
    }
    const key = keyOf(docIds[k]!);
    if (key === null) withoutKey++;
    else keys.add(key);
  }
  return { keys, withoutKey };
}
