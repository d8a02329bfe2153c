// JSON payloads: an array of objects or one object (= one document). Anything else is malformed.

import { canonicalElementTexts, DocumentText } from './canonical-elements.js';
import { describeJsonSyntaxError } from './json-syntax-error.js';
import { malformedJsonDocuments, NOT_OBJECTS } from './payload-errors.js';

export type JsonDocument = Record<string, unknown>;

export function isDocumentObject(value: unknown): value is JsonDocument {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The documents a parsed JSON payload holds, or null when its shape is not an object / a list of objects. */
export function documentsOfJsonValue(value: unknown): JsonDocument[] | null {
  if (isDocumentObject(value)) return [value];
  if (Array.isArray(value) && value.every(isDocumentObject)) return value;
  return null;
}

export function jsonDocuments(text: string): JsonDocument[] {
  const documents = documentsOfJsonValue(parseJson(text, 'json'));
  if (documents === null) throw malformedJsonDocuments('json', NOT_OBJECTS);
  return documents;
}

/** The payload's documents for the update file: their own text where it is already canonical. */
export function jsonDocumentsForUpdateFile(text: string): (JsonDocument | DocumentText)[] {
  const documents = jsonDocuments(text);
  const texts = canonicalElementTexts(text, documents);
  if (texts === null) return documents;
  return documents.map((document, k) => texts[k] ?? document);
}

/** JSON.parse with serde-style messages on failure. */
export function parseJson(text: string, type: 'json' | 'ndjson'): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    if (!(cause instanceof SyntaxError)) throw cause;
    throw malformedJsonDocuments(type, describeJsonSyntaxError(text) ?? cause.message);
  }
}

