// Hydration of search hits through the experimental `foreignKeys` setting (Meilisearch v1.39's
// search/hydration.rs, facts only): while the foreignKeys feature is on, every leaf value under a hit's
// `fieldName` (the value itself, or each element of an array, nested arrays and objects walked) that is
// a document id (an integer or a string id) is replaced by that document of `foreignIndexUid`, with the
// foreign index's displayedAttributes (no `_vectors`); an id matching no document becomes `{}`; any
// other value stays as it is. `_formatted` is hydrated alike. A foreign index that does not exist fails
// the search with index_not_found, as Meilisearch's. The documents routes do not hydrate (nor do
// Meilisearch's). Bounded: at most REQUEST_LIMITS.hydratedForeignIds distinct foreign ids are read per
// answer (each a synchronous LMDB read through the memory map, ~1-2 µs, as the hits' own reads);
// values past the bound stay ids.
import { FieldSelection, projectDocument } from '../documents/projection.js';
import { documentJson, JsonNumberText, parseStoredJson } from '../documents/exact-json.js';
import { isIntegerIdLiteral, mayBeStoredId } from '../documents/document-id.js';
import { VECTORS_FIELD } from '../documents/vectors-field.js';
import type { ForeignKey } from '../settings/index-settings.js';
import { readFeatures } from '../storage/experimental-features.js';
import { storageKeyOf } from '../storage/records.js';
import { SkeinError } from '../errors/index.js';
import type { JsonItem } from './list-body.js';
import { REQUEST_LIMITS } from './request-limits.js';
import type { FrontContext } from './route-spec.js';

const STRING_ID = /^[A-Za-z0-9_-]+$/;

/** The id a leaf value names, or null when it is no document id (left as it is). */
function foreignIdOf(value: unknown): string | null {
  if (typeof value === 'string') return STRING_ID.test(value) && mayBeStoredId(value) ? value : null;
  if (typeof value === 'number' || value instanceof JsonNumberText) {
    const literal = String(value);
    return isIntegerIdLiteral(literal) ? literal : null;
  }
  return null;
}

/** One foreign index as this answer reads it. */
interface ForeignSource {
  key: string;
  displayed: FieldSelection | null;
}

/** The hits with their foreign keys hydrated; the same array when the index has none or the feature is off. */
export function hydrateHits(context: Pick<FrontContext, 'indexes' | 'storage'>, foreignKeys: readonly ForeignKey[] | undefined,
  hits: readonly JsonItem[]): readonly JsonItem[] {
  if (foreignKeys === undefined || foreignKeys.length === 0 || hits.length === 0) return hits;
  if (!readFeatures(context.storage.meta).foreignKeys) return hits;
  const sources = new Map<string, ForeignSource>();
  for (const { foreignIndexUid } of foreignKeys) {
    if (sources.has(foreignIndexUid)) continue;
    const index = context.indexes.get(foreignIndexUid);
    if (index === null) throw new SkeinError('index_not_found', `Index \`${foreignIndexUid}\` not found.`);
    const displayed = index.settings.displayedAttributes;
    sources.set(foreignIndexUid, { key: storageKeyOf(index), displayed: displayed.includes('*') ? null : new FieldSelection(displayed) });
  }
  // This answer's reads: (foreign index, id) -> the document shown (shared by the hits naming it: they
  // are only written out after, never changed; not cloned, which would lose the exact numbers' class).
  const read = new Map<string, Record<string, unknown>>();
  const lookup = (source: ForeignSource, id: string): Record<string, unknown> | null => {
    const memo = `${source.key}\u0000${id}`;
    const known = read.get(memo);
    if (known !== undefined) return known;
    if (read.size >= REQUEST_LIMITS.hydratedForeignIds) return null;
    const docId = context.storage.externalIds.get([source.key, id]);
    const text = docId === undefined ? undefined : context.storage.documents.get([source.key, docId]);
    let document: Record<string, unknown> = {};
    if (text !== undefined) {
      document = parseStoredJson(String(text)) as Record<string, unknown>;
      delete document[VECTORS_FIELD];
      if (source.displayed !== null) document = projectDocument(document, source.displayed);
    }
    read.set(memo, document);
    return document;
  };
  const hydrate = (value: unknown, source: ForeignSource): unknown => {
    if (Array.isArray(value)) return value.map((element) => hydrate(element, source));
    if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) {
      const object = value as Record<string, unknown>;
      for (const name of Object.keys(object)) object[name] = hydrate(object[name], source);
      return object;
    }
    const id = foreignIdOf(value);
    if (id === null) return value;
    return lookup(source, id) ?? value;
  };
  const hydrateDocument = (document: Record<string, unknown>): void => {
    for (const { foreignIndexUid, fieldName } of foreignKeys) {
      const source = sources.get(foreignIndexUid)!;
      replaceAtPath(document, fieldName, (value) => hydrate(value, source));
    }
  };
  return hits.map((hit) => {
    const text = typeof hit === 'string' ? hit : Buffer.from(hit.buffer, hit.byteOffset, hit.byteLength).toString('utf8');
    const document = parseStoredJson(text) as Record<string, unknown>;
    hydrateDocument(document);
    const formatted = document._formatted;
    if (formatted !== null && typeof formatted === 'object' && !Array.isArray(formatted)) hydrateDocument(formatted as Record<string, unknown>);
    return documentJson(document);
  });
}

/**
 * Replaces the values a dotted field name reaches (`a.b`: the key `a.b`, or `b` inside `a`, through
 * arrays of objects too), as Meilisearch's permissive JSON pointer does.
 */
function replaceAtPath(object: Record<string, unknown>, path: string, replace: (value: unknown) => unknown): void {
  if (Object.hasOwn(object, path)) object[path] = replace(object[path]);
  for (let dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
    const head = path.slice(0, dot);
    if (!Object.hasOwn(object, head)) continue;
    const rest = path.slice(dot + 1);
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) replaceAtPath(value as Record<string, unknown>, rest, replace);
    };
    visit(object[head]);
  }
}
