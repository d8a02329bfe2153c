// normalize_facet: how facet strings compare in filters, facet counts and sort (trimmed, lowercase,
// compatibility-decomposed, without diacritics), so "Action", " action" and "ACTION" are one value.

const COMBINING_MARKS = /\p{M}/gu;
const PLAIN_ASCII = /^[\x00-\x7f]*$/;

export function normalizeFacetValue(value: string): string {
  const trimmed = value.trim();
  if (PLAIN_ASCII.test(trimmed)) return trimmed.toLowerCase();
  return trimmed.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
}

/** The number a filter value stands for, when it parses as a finite float (Rust's f64 FromStr). */
export function filterNumber(text: string): number | null {
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}
