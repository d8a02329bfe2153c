// CSV cells are strings; typed headers (`price:number`, `available:boolean`) say how to convert them
// (reference formats.md §2, Meilisearch's read_csv). Pure functions; the reader is in csv-payload.ts.
import { JsonNumberText, serdeFloatText } from '../documents/exact-json.js';
import { malformedCsv } from './payload-errors.js';

export type CsvFieldType = 'string' | 'number' | 'boolean';

export interface CsvField {
  name: string;
  type: CsvFieldType;
}

/** Splits on the LAST colon; an unknown suffix keeps the whole header as a string field (`a:b` stays `a:b`). */
export function parseCsvHeader(header: string): CsvField {
  const colon = header.lastIndexOf(':');
  if (colon === -1) return { name: header, type: 'string' };
  const suffix = header.slice(colon + 1);
  if (suffix === 'string' || suffix === 'number' || suffix === 'boolean') {
    return { name: header.slice(0, colon), type: suffix };
  }
  return { name: header, type: 'string' };
}

/**
 * Converts one cell. `line` is the 1-based record number after the header, as Meilisearch counts it.
 * Strings are kept raw (not trimmed) and only an empty cell is null; numbers and booleans are trimmed first.
 */
export function typeCsvCell(value: string, type: CsvFieldType, line: number): string | number | JsonNumberText | boolean | null {
  if (type === 'string') return value === '' ? null : value;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (type === 'boolean') {
    if (trimmed === 'true') return true;
    if (trimmed === 'false') return false;
    throw malformedCsv(
      `Error parsing boolean ${rustDebugString(value)} at line ${line}: provided string was not \`true\` or \`false\``,
    );
  }
  const number = parseRustNumber(trimmed);
  if (number === undefined) {
    throw malformedCsv(`Error parsing number ${rustDebugString(value)} at line ${line}: invalid float literal`);
  }
  return number;
}

const RUST_INTEGER = /^[+-]?\d+$/;
// Rust's f64::from_str: optional sign, digits with optional dot/exponent, or inf/infinity/nan (any case).
const RUST_FLOAT = /^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$/i;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/**
 * i64 first, then f64, like Rust's `parse::<i64>()` / `parse::<f64>()`; undefined when neither accepts it.
 * A value JavaScript would print otherwise than serde_json (an i64 beyond 2^53, an integral float
 * such as 1.0) is the JsonNumberText of serde's text.
 */
export function parseRustNumber(text: string): number | JsonNumberText | null | undefined {
  if (RUST_INTEGER.test(text)) {
    const number = Number(text);
    if (Number.isSafeInteger(number)) return number;
    const exact = BigInt(text);
    if (exact >= I64_MIN && exact <= I64_MAX) return new JsonNumberText(exact.toString());
    return floatNumber(number);
  }
  if (!RUST_FLOAT.test(text)) return undefined;
  const lower = text.toLowerCase().replace(/^\+/, '');
  const value = lower.endsWith('inf') || lower.endsWith('infinity') || lower.endsWith('nan') ? NaN : Number(text);
  // serde_json turns non-finite floats into null.
  return Number.isFinite(value) ? floatNumber(value) : null;
}

function floatNumber(value: number): number | JsonNumberText {
  const text = serdeFloatText(value);
  return text === String(value) ? value : new JsonNumberText(text);
}

/** Rust's `{:?}` of a String: double quotes, with quotes, backslashes and control characters escaped. */
export function rustDebugString(value: string): string {
  return JSON.stringify(value);
}
