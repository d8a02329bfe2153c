// The external id of a document (formats.md §4): the primary key's value, an integer (kept as its
// decimal string) or a string of [A-Za-z0-9_-] of 1..511 bytes. `1` and `"1"` are the same document.
import { echoJson, SkeinError } from '../errors/index.js';

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

export function validDocumentId(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && DOCUMENT_ID.test(value) && Buffer.byteLength(value) <= MAX_DOCUMENT_ID_BYTES) return value;
  throw new SkeinError('invalid_document_id',
    `Document identifier \`${echoJson(value, DOCUMENT_ECHO_CHARS)}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`);
}
