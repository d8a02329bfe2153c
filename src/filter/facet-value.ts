// normalize_facet: how facet strings compare in filters, facet counts and sort (trimmed,
// compatibility-decomposed, lowercase), so "Action", " action" and "ACTION" are one value. Diacritics
// stay: "café" and "cafe" are two values, and `= cafe` does not match "café", as in milli. Facet search
// alone compares without them (facetSearchForm, milli's lossy normalize_facet_string).

import { ownValue, setOwn } from '../documents/own-fields.js';

const COMBINING_MARKS = /\p{M}/gu;
const PLAIN_ASCII = /^[\x00-\x7f]*$/;

export function normalizeFacetValue(value: string): string {
  const trimmed = value.trim();
  if (PLAIN_ASCII.test(trimmed)) return trimmed.toLowerCase();
  return trimmed.normalize('NFKD').toLowerCase();
}

/** The form facet search matches a facet key and a facetQuery by: the normalized value without diacritics. */
export function facetSearchForm(normalized: string): string {
  return PLAIN_ASCII.test(normalized) ? normalized : normalized.normalize('NFKD').replace(COMBINING_MARKS, '');
}

/** The number a filter value stands for, when it parses as a finite float (Rust's f64 FromStr). */
export function filterNumber(text: string): number | null {
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/**
 * Code point order, milli's order of facet strings (their UTF-8 bytes), where JavaScript's `<` compares
 * UTF-16 units: the two differ only when a surrogate meets a unit in U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let k = 0; k < length; k++) {
    const x = a.charCodeAt(k);
    const y = b.charCodeAt(k);
    if (x !== y) return x < 0xd800 && y < 0xd800 ? x - y : codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit moved so that units compare in code point order: U+E000..U+FFFF before the surrogates. */
export function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** milli's MAX_FACET_VALUE_LENGTH: a facet string key keeps this many bytes of the normalized value. */
export const MAX_FACET_VALUE_LENGTH = 468;

const utf8 = new TextEncoder();

/** The UTF-8 bytes of a normalized value as milli keys it: cut to MAX_FACET_VALUE_LENGTH at a character boundary. */
export function facetKeyBytes(normalized: string): Uint8Array {
  const bytes = utf8.encode(normalized);
  if (bytes.length <= MAX_FACET_VALUE_LENGTH) return bytes;
  let end = MAX_FACET_VALUE_LENGTH;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** The normalized value milli keys (facetKeyBytes as a string); `value` itself when it cannot be longer. */
export function facetKeyOf(normalized: string): string {
  if (normalized.length * 3 <= MAX_FACET_VALUE_LENGTH) return normalized;
  const bytes = facetKeyBytes(normalized);
  return bytes.length === utf8.encode(normalized).length ? normalized : new TextDecoder().decode(bytes);
}

/** A facet key that reads as a number in alpha order (a finite float, as JavaScript's Number reads it): such values come first. */
export function alphaNumberOf(key: string): number | null {
  if (key.trim() === '') return null;
  const number = Number(key);
  return Number.isFinite(number) ? number : null;
}

/**
 * What the alpha order of a facet distribution's values (front/search/facet-merge.ts, shard/facets/facet-distribution.ts)
 * orders a value by, worked out once per value: its facet key (normalized, cut to 468 bytes as milli's
 * facet_id_string_docids), so that every spelling of one value sorts alike, and the number the key reads as.
 */
export interface FacetSortKey {
  value: string;
  key: string;
  number: number | null;
}

export function facetSortKeyOf(value: string): FacetSortKey {
  const key = facetKeyOf(normalizeFacetValue(value));
  return { value, key, number: alphaNumberOf(key) };
}

/**
 * The alpha order: keys that read as numbers first, by number then key; then the others by key; then by
 * spelling. A total order, the same on every shard: the values kept at maxValuesPerFacet never depend on
 * the shards' layout, and a shard's first N values are all a merge over shards can need.
 */
export function compareFacetSortKeys(a: FacetSortKey, b: FacetSortKey): number {
  if ((a.number === null) !== (b.number === null)) return a.number !== null ? -1 : 1;
  if (a.number !== null && b.number !== null && a.number !== b.number) return a.number - b.number;
  return compareCodePoints(a.key, b.key) || compareCodePoints(a.value, b.value);
}

/**
 * Adds a value's count to a distribution where one facet key may come under several spellings ("Action" /
 * "action", or two long values equal on their first 468 bytes): one bucket, shown with the smallest spelling,
 * as a single shard shows it (shard/facets/facet-store.ts displaySpelling). `shownByKey`: each key's spelling in `into`.
 */
export function addFacetCount(into: Record<string, number>, shownByKey: Map<string, string>, value: string, count: number): void {
  const key = facetKeyOf(normalizeFacetValue(value));
  const shown = shownByKey.get(key);
  if (shown === undefined) {
    shownByKey.set(key, value);
    setOwn(into, value, count);
  } else if (value < shown) {
    shownByKey.set(key, value);
    setOwn(into, value, ownValue(into, shown)! + count);
    delete into[shown];
  } else {
    setOwn(into, shown, ownValue(into, shown)! + count);
  }
}

/** Adds to a value's count in a distribution keyed by spelling (a value named `constructor` or `__proto__` included: own-fields.ts). */
export function addCount(counts: Record<string, number>, value: string, count: number): void {
  setOwn(counts, value, (ownValue(counts, value) ?? 0) + count);
}
