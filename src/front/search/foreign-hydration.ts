// Hydration of search hits through the experimental `foreignKeys` setting (Meilisearch v1.39's
// search/hydration.rs, facts only): while the foreignKeys feature is on, every leaf value under a hit's
// `fieldName` (the value itself, or each element of an array, nested arrays and objects walked) that is
// a document id (an integer or a string id) is replaced by that document of `foreignIndexUid`, with the
// foreign index's displayedAttributes (no `_vectors`); an id matching no document becomes `{}`; any
// other value stays as it is. `_formatted` is hydrated alike. A foreign index that does not exist fails
// the search with index_not_found, as Meilisearch's. The documents routes do not hydrate (nor do
// Meilisearch's). A federated search hydrates its page after the merge, only the ids registered
// (hydrateFederatedHits), as Meilisearch's. Bounded: at most REQUEST_LIMITS.hydratedForeignIds distinct foreign ids are read per
// answer (each a synchronous LMDB read through the memory map, ~1-2 µs, as the hits' own reads);
// values past the bound stay ids.
import { FieldSelection, projectDocument } from '../../documents/projection.js';
import { documentJson, JsonNumberText, parseStoredJson } from '../../documents/exact-json.js';
import { isIntegerIdLiteral, mayBeStoredId } from '../../documents/document-id.js';
import { VECTORS_FIELD } from '../../documents/vectors-field.js';
import type { ForeignKey } from '../../settings/index-settings.js';
import { readFeatures } from '../../storage/experimental-features.js';
import { storageKeyOf } from '../../storage/records.js';
import { SkeinError } from '../../errors/index.js';
import type { JsonItem } from '../http/list-body.js';
import { REQUEST_LIMITS } from '../http/request-limits.js';
import type { FrontContext } from '../http/route-spec.js';

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

/**
 * One answer's reads of foreign documents: (foreign index, id) -> the document shown, shared by the hits
 * naming it (they are only written out after, never changed; not cloned, which would lose the exact
 * numbers' class), at most REQUEST_LIMITS.hydratedForeignIds of them.
 */
class ForeignReads {
  private readonly sources = new Map<string, ForeignSource>();
  private readonly read = new Map<string, Record<string, unknown>>();

  constructor(private readonly context: Pick<FrontContext, 'indexes' | 'storage'>) {}

  /** The foreign index; index_not_found when it does not exist, as Meilisearch's. */
  source(foreignIndexUid: string): ForeignSource {
    let source = this.sources.get(foreignIndexUid);
    if (source === undefined) {
      const index = this.context.indexes.get(foreignIndexUid);
      if (index === null) throw new SkeinError('index_not_found', `Index \`${foreignIndexUid}\` not found.`);
      const displayed = index.settings.displayedAttributes;
      source = { key: storageKeyOf(index), displayed: displayed.includes('*') ? null : new FieldSelection(displayed) };
      this.sources.set(foreignIndexUid, source);
    }
    return source;
  }

  /** The document shown for an id (`{}` when none has it), or null past the bound (the id stays). */
  lookup(source: ForeignSource, id: string): Record<string, unknown> | null {
    const memo = `${source.key}\u0000${id}`;
    const known = this.read.get(memo);
    if (known !== undefined) return known;
    if (this.read.size >= REQUEST_LIMITS.hydratedForeignIds) return null;
    const docId = this.context.storage.externalIds.get([source.key, id]);
    const text = docId === undefined ? undefined : this.context.storage.documents.get([source.key, docId]);
    let document: Record<string, unknown> = {};
    if (text !== undefined) {
      document = parseStoredJson(String(text)) as Record<string, unknown>;
      delete document[VECTORS_FIELD];
      if (source.displayed !== null) document = projectDocument(document, source.displayed);
    }
    this.read.set(memo, document);
    return document;
  }
}

/** Every leaf under the value (elements of arrays, members of objects) through `replace`. */
function mapLeaves(value: unknown, replace: (leaf: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((element) => mapLeaves(element, replace));
  if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) {
    const object = value as Record<string, unknown>;
    for (const name of Object.keys(object)) object[name] = mapLeaves(object[name], replace);
    return object;
  }
  return replace(value);
}

function textOf(hit: JsonItem): string {
  return typeof hit === 'string' ? hit : Buffer.from(hit.buffer, hit.byteOffset, hit.byteLength).toString('utf8');
}

/** The hits with their foreign keys hydrated; the same array when the index has none or the feature is off. */
export function hydrateHits(context: Pick<FrontContext, 'indexes' | 'storage'>, foreignKeys: readonly ForeignKey[] | undefined,
  hits: readonly JsonItem[]): readonly JsonItem[] {
  if (foreignKeys === undefined || foreignKeys.length === 0 || hits.length === 0) return hits;
  if (!readFeatures(context.storage.meta).foreignKeys) return hits;
  const reads = new ForeignReads(context);
  for (const { foreignIndexUid } of foreignKeys) reads.source(foreignIndexUid);
  const hydrateDocument = (document: Record<string, unknown>): void => {
    for (const { foreignIndexUid, fieldName } of foreignKeys) {
      const source = reads.source(foreignIndexUid);
      replaceAtPath(document, fieldName, (value) => mapLeaves(value, (leaf) => {
        const id = foreignIdOf(leaf);
        return id === null ? leaf : reads.lookup(source, id) ?? leaf;
      }));
    }
  };
  return hits.map((hit) => {
    const document = parseStoredJson(textOf(hit)) as Record<string, unknown>;
    hydrateDocument(document);
    const formatted = document._formatted;
    if (formatted !== null && typeof formatted === 'object' && !Array.isArray(formatted)) hydrateDocument(formatted as Record<string, unknown>);
    return documentJson(document);
  });
}

/**
 * A federated search's page of hits hydrated after the merge, as Meilisearch's FederatedHydrationFormatter
 * (search/hydration.rs): first the ids each hit's document (not `_formatted`) holds are registered, the
 * value at the field's path, or each element of an array there until one is no id (the rest of that
 * array is not registered; a nested array or object registers nothing); then every leaf under the
 * fields, in the document and `_formatted`, whose id was registered by any hit of the page (same
 * foreign index) becomes that document (`{}` when none has it); the others stay as they are.
 * `foreignKeys` null: the hit is left as it is (a remote's).
 */
export function hydrateFederatedHits(context: Pick<FrontContext, 'indexes' | 'storage'>,
  hits: readonly { foreignKeys: readonly ForeignKey[] | null; hit: string }[]): string[] {
  if (!hits.some(({ foreignKeys }) => foreignKeys !== null && foreignKeys.length > 0)) return hits.map(({ hit }) => hit);
  if (!readFeatures(context.storage.meta).foreignKeys) return hits.map(({ hit }) => hit);
  const documents = hits.map(({ foreignKeys, hit }) => foreignKeys === null || foreignKeys.length === 0 ? null : parseStoredJson(hit) as Record<string, unknown>);
  const registered = new Set<string>();
  hits.forEach(({ foreignKeys }, k) => {
    const document = documents[k];
    if (document === null || document === undefined) return;
    for (const { foreignIndexUid, fieldName } of foreignKeys!) {
      visitAtPath(document, fieldName, (value) => {
        const values = Array.isArray(value) ? value : [value];
        for (const element of values) {
          const id = foreignIdOf(element);
          if (id === null) return;
          registered.add(`${foreignIndexUid}\u0000${id}`);
        }
      });
    }
  });
  const reads = new ForeignReads(context);
  const hydrateDocument = (document: Record<string, unknown>, foreignKeys: readonly ForeignKey[]): void => {
    for (const { foreignIndexUid, fieldName } of foreignKeys) {
      replaceAtPath(document, fieldName, (value) => mapLeaves(value, (leaf) => {
        const id = foreignIdOf(leaf);
        if (id === null || !registered.has(`${foreignIndexUid}\u0000${id}`)) return leaf;
        return reads.lookup(reads.source(foreignIndexUid), id) ?? leaf;
      }));
    }
  };
  return hits.map(({ foreignKeys, hit }, k) => {
    const document = documents[k];
    if (document === null || document === undefined) return hit;
    hydrateDocument(document, foreignKeys!);
    const formatted = document._formatted;
    if (formatted !== null && typeof formatted === 'object' && !Array.isArray(formatted)) hydrateDocument(formatted as Record<string, unknown>, foreignKeys!);
    return String(documentJson(document));
  });
}

/**
 * The values a dotted field name reaches, as permissive_json_pointer's visit_leaf_values: the key
 * itself, then for each dot from the right the object (or each object of the array) at the head.
 */
function visitAtPath(object: Record<string, unknown>, path: string, visit: (value: unknown) => void): void {
  if (Object.keys(object).length === 0) return;
  if (Object.hasOwn(object, path)) visit(object[path]);
  for (let dot = path.lastIndexOf('.'); dot >= 0; dot = dot === 0 ? -1 : path.lastIndexOf('.', dot - 1)) {
    const head = object[path.slice(0, dot)];
    const rest = path.slice(dot + 1);
    if (Array.isArray(head)) {
      for (const element of head) if (element !== null && typeof element === 'object' && !Array.isArray(element) && !(element instanceof JsonNumberText)) visitAtPath(element as Record<string, unknown>, rest, visit);
    } else if (head !== null && typeof head === 'object' && !(head instanceof JsonNumberText)) {
      visitAtPath(head as Record<string, unknown>, rest, visit);
    }
  }
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
