// A document's `_vectors` as Meilisearch shows it without embedders (milli keeps `_vectors` entries of
// embedders it does not know in the stored document): hidden unless `retrieveVectors` is true; with
// true, the document's `_vectors` object (or `{}`) moves after its other fields, even when
// attributesToRetrieve / `fields` leave it out of the selection (search/mod.rs HitMaker::make_hit,
// routes/indexes/documents.rs some_documents).
import { JsonNumberText, numbersPrintAsWritten, parseExactJson, stringifyExactJson } from './exact-json.js';

export const VECTORS_FIELD = '_vectors';

/** The `_vectors` a hit shows with retrieveVectors: the stored object, or `{}` for anything else. */
export function vectorsOf(stored: Record<string, unknown>): Record<string, unknown> {
  const value = stored[VECTORS_FIELD];
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsonNumberText)
    ? value as Record<string, unknown> : {};
}

/**
 * attributesToRetrieve for a search of an index: unchanged when no document has `_vectors` and none
 * is asked for (the stored text stays the hit); otherwise the selection without `_vectors` (every
 * top-level field when it was "all"), so the shards project it away or put it back last.
 */
export function retrievalWithVectors(effective: string[] | null, fieldDistribution: Readonly<Record<string, number>> | undefined, retrieveVectors: boolean): string[] | null {
  if (!retrieveVectors && !((fieldDistribution?.[VECTORS_FIELD] ?? 0) > 0)) return effective;
  const names = effective ?? Object.keys(fieldDistribution ?? {});
  return names.filter((name) => name !== VECTORS_FIELD && !name.startsWith(`${VECTORS_FIELD}.`));
}

/** A document's JSON text (already projected by `fields`) with `_vectors` hidden, or shown last. */
export function documentTextWithVectors(text: string, retrieveVectors: boolean): string {
  if (!retrieveVectors && !text.includes(`"${VECTORS_FIELD}"`)) return text;
  const exact = !numbersPrintAsWritten(text);
  const document = (exact ? parseExactJson(text) : JSON.parse(text)) as Record<string, unknown>;
  if (!retrieveVectors && !Object.prototype.hasOwnProperty.call(document, VECTORS_FIELD)) return text;
  const vectors = vectorsOf(document);
  delete document[VECTORS_FIELD];
  if (retrieveVectors) document[VECTORS_FIELD] = vectors;
  return exact ? stringifyExactJson(document) : JSON.stringify(document);
}
