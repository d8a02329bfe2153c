// The external id of a document (formats.md §4): the primary key's value, an integer (kept as its
// decimal string) or a string of [A-Za-z0-9_-] of 1..511 bytes. `1` and `"1"` are the same document.
// An integer is what serde_json reads as u64 or i64 (milli's DocumentIdVisitor takes both): an integer
// literal from -2^63 to 2^64-1, except `-0` (serde reads it as the float -0.0). Floats (`1.0`, `1e3`) and
// integers beyond those bounds (floats to serde) are refused. The literal is the id, never its double:
// 9007199254740993 and 9007199254740992 are two documents.
import { echoJson, SkeinError } from '../errors/index.js';
import { JsonNumberText, serdeFloatText } from './exact-json.js';

/** Quoted ids and documents are cut longer than other values: an id just past its 511 bytes shows whole, as in Meilisearch. */
const DOCUMENT_ECHO_CHARS = 1024;

const DOCUMENT_ID = /^[A-Za-z0-9_-]+$/;
const MAX_DOCUMENT_ID_BYTES = 511;

/** The value at a primary key path; a dotted key reaches into nested objects (`product.id`). */
export function valueAtPrimaryKey(document: Record<string, unknown>, primaryKey: string): unknown {
  if (primaryKey in document) return document[primaryKey];
  let current: unknown = document;
  for (const part of primaryKey.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The external id of a document, or the SkeinError (missing_document_id / invalid_document_id) that fails its task. */
export function documentIdOf(document: Record<string, unknown>, primaryKey: string): string {
  const value = valueAtPrimaryKey(document, primaryKey);
  if (value === undefined) {
    throw new SkeinError('missing_document_id', `Document doesn't have a \`${primaryKey}\` attribute: \`${echoJson(document, DOCUMENT_ECHO_CHARS)}\`.`);
  }
  return validDocumentId(value);
}

/**
 * The id of a primary key value. A number must come from a parse that keeps the literals JavaScript
 * would rewrite (parseExactJson): a plain number is then its own literal, String(value).
 */
export function validDocumentId(value: unknown): string {
  if (typeof value === 'number' || value instanceof JsonNumberText) {
    const literal = String(value);
    if (isIntegerIdLiteral(literal)) return literal;
  } else if (typeof value === 'string' && DOCUMENT_ID.test(value) && Buffer.byteLength(value) <= MAX_DOCUMENT_ID_BYTES) {
    return value;
  }
  // serde_json shows what it read: any number that is not an integer id is an f64 (1e3 -> 1000.0, -0 -> -0.0).
  const shown = typeof value === 'number' || value instanceof JsonNumberText ? serdeFloatText(Number(String(value))) : echoJson(value, DOCUMENT_ECHO_CHARS);
  throw new SkeinError('invalid_document_id',
    `Document identifier \`${shown}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`);
}

const INTEGER_LITERAL = /^-?(0|[1-9][0-9]*)$/;
const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);

/** Whether a JSON number literal is one serde_json reads as u64 or i64. */
export function isIntegerIdLiteral(literal: string): boolean {
  if (!INTEGER_LITERAL.test(literal) || literal === '-0') return false;
  // Up to 18 digits always fit both; longer ones are compared exactly.
  if (literal.length <= 18) return true;
  const value = BigInt(literal);
  return value <= U64_MAX && value >= I64_MIN;
}

/**
 * Whether a text may be a stored external id: every stored id has at most 511 bytes (an integer's
 * decimal string is shorter), so a longer one is not looked up at all — LMDB could not even hold it
 * as a key ("String does not fit in target buffer").
 */
export function mayBeStoredId(id: string): boolean {
  return id.length <= MAX_DOCUMENT_ID_BYTES && Buffer.byteLength(id) <= MAX_DOCUMENT_ID_BYTES;
}
