// Flattening of nested documents into dotted field names, as Meilisearch indexes them:
// {"a": {"b": 1, "c": [{"d": 2}]}} has the fields a, a.b, a.c and a.c.d (a.c.d = [2]).

export type FlatDocument = Map<string, unknown>;

/**
 * Every field path of the document with its value. An object contributes its own path and its
 * children's; an array of objects contributes, under each child path, the array of the children's values.
 */
export function flattenDocument(document: Record<string, unknown>): FlatDocument {
  const out: FlatDocument = new Map();
  for (const [key, value] of Object.entries(document)) visit(key, value, out);
  return out;
}

function visit(path: string, value: unknown, out: FlatDocument): void {
  out.set(path, value);
  if (value === null || typeof value !== 'object') return;
  const children = new Map<string, unknown[]>();
  const collect = (object: Record<string, unknown>) => {
    for (const [key, child] of Object.entries(object)) {
      const list = children.get(key) ?? [];
      list.push(child);
      children.set(key, list);
    }
  };
  if (Array.isArray(value)) {
    for (const element of value) if (element !== null && typeof element === 'object' && !Array.isArray(element)) collect(element as Record<string, unknown>);
    for (const [key, values] of children) visit(`${path}.${key}`, values.length === 1 ? values[0] : values, out);
  } else {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) visit(`${path}.${key}`, child, out);
  }
}

/** True when `field` is `selector` or nested under it (`a` selects `a.b`), or selector is `*`. */
export function selectsField(selector: string, field: string): boolean {
  return selector === '*' || selector === field || (field.startsWith(selector) && field.charCodeAt(selector.length) === 46);
}
