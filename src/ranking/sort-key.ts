// Absolute, order-preserving score entries for one sort criterion (ranking-rule.ts invariant 4):
// [class, v0, v1, ... v(STRING_CHUNKS-1)], compared lexicographically, lower is better.
// class 0 = number (v0 = value, or -value for desc), 1 = string, 2 = no sortable value (always last).
// A string is its first 3 × STRING_CHUNKS UTF-16 units (72), three per double (17 bits each: unit + 1,
// so a shorter string sorts before its extensions), each unit moved so that units compare in code point
// order as milli's UTF-8 bytes do (surrogates after U+E000..U+FFFF); desc negates every entry. Milli
// compares up to 468 bytes (MAX_FACET_VALUE_LENGTH): strings equal on the 72 units share a bucket here.
// 1 shard and N shards still agree because the key depends on the document alone.

import { codePointRank } from '../filter/facet-value.js';

export const STRING_CHUNKS = 24;
export const SORT_KEY_WIDTH = 1 + STRING_CHUNKS;
const UNITS_PER_CHUNK = 3;
const UNIT_RANGE = 2 ** 17;

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
  for (let chunk = 0; chunk < STRING_CHUNKS; chunk++) {
    let encoded = 0;
    for (let unit = 0; unit < UNITS_PER_CHUNK; unit++) {
      const at = chunk * UNITS_PER_CHUNK + unit;
      const code = at < value.length ? codePointRank(value.charCodeAt(at)) + 1 : 0;
      encoded = encoded * UNIT_RANGE + code;
    }
    key[1 + chunk] = direction === 'asc' || encoded === 0 ? encoded : -encoded;
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
