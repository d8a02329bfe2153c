// Absolute, order-preserving score entries for one sort criterion (ranking-rule.ts invariant 4):
// [class, v0, v1, ... v(STRING_CHUNKS-1)], compared lexicographically, lower is better.
// class 0 = number (v0 = value, or -value for desc), 1 = string, 2 = no sortable value (always last).
// A string is milli's facet key: the UTF-8 bytes of its normalized value cut to MAX_FACET_VALUE_LENGTH
// (468 bytes, at a character boundary: facet-value.ts), six bytes per double (each byte + 1 in base 257,
// so a shorter string sorts before its extensions): byte order is milli's order; strings equal on
// their 468 bytes share a bucket, as in milli. desc negates every entry.
// 1 shard and N shards still agree because the key depends on the document alone.

import { facetKeyBytes, MAX_FACET_VALUE_LENGTH } from '../../filter/facet-value.js';

const BYTES_PER_CHUNK = 6;
const BYTE_RANGE = 257;
export const STRING_CHUNKS = Math.ceil(MAX_FACET_VALUE_LENGTH / BYTES_PER_CHUNK);
export const SORT_KEY_WIDTH = 1 + STRING_CHUNKS;

export type SortDirection = 'asc' | 'desc';

export function numberSortKey(value: number, direction: SortDirection): number[] {
  const key = new Array<number>(SORT_KEY_WIDTH).fill(0);
  key[0] = 0;
  key[1] = direction === 'asc' ? value : -value;
  if (Object.is(key[1], -0)) key[1] = 0;
  return key;
}

export function stringSortKey(value: string, direction: SortDirection): number[] {
  const key = new Array<number>(SORT_KEY_WIDTH).fill(0);
  key[0] = 1;
  const bytes = facetKeyBytes(value);
  for (let chunk = 0; chunk * BYTES_PER_CHUNK < bytes.length; chunk++) {
    let encoded = 0;
    for (let k = 0; k < BYTES_PER_CHUNK; k++) {
      const at = chunk * BYTES_PER_CHUNK + k;
      encoded = encoded * BYTE_RANGE + (at < bytes.length ? bytes[at]! + 1 : 0);
    }
    key[1 + chunk] = direction === 'asc' ? encoded : -encoded;
  }
  return key;
}

export function missingSortKey(): number[] {
  const key = new Array<number>(SORT_KEY_WIDTH).fill(0);
  key[0] = 2;
  return key;
}

export function compareSortKeys(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}

export interface SortCriterion {
  /** The field, or null for `_geoPoint(lat, lng)`. */
  field: string | null;
  point: { lat: number; lng: number } | null;
  direction: SortDirection;
}
