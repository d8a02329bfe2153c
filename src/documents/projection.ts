// Keeping only some attributes of a stored document, as attributesToRetrieve and `fields` do.
import { JsonNumberText } from './exact-json.js';
import { setOwn } from './own-fields.js';

// Selection is linear: a field is looked up by its dotted prefixes in a Set (never against every
// selector), and the selectors under a key are grouped once. Compared selector by selector, 65,536
// `fields` over 20 documents of 600 fields held the front thread 9.6 s.

/**
 * A list of selectors compiled for lookups. `selects(field)` is `selectsField(s, field)` for some
 * selector s: s is `*`, the field itself, or one of its dotted prefixes (`a` selects `a.b`).
 */
export class FieldSelection {
  readonly all: boolean;
  private readonly exact: Set<string>;
  /** Selector suffixes by dotted prefix (`a.b.c` is `b.c` under `a` and `c` under `a.b`), made on first use. */
  private nested: Map<string, string[]> | null = null;
  private readonly under = new Map<string, FieldSelection>();

  constructor(readonly selectors: readonly string[]) {
    this.exact = new Set(selectors);
    this.all = this.exact.has('*');
  }

  selects(field: string): boolean {
    if (this.all || this.exact.has(field)) return true;
    for (let dot = field.indexOf('.'); dot >= 0; dot = field.indexOf('.', dot + 1)) {
      if (this.exact.has(field.slice(0, dot))) return true;
    }
    return false;
  }

  /** The selectors that start with `${key}.`, that prefix removed; null when there are none. */
  selectionUnder(key: string): FieldSelection | null {
    const cached = this.under.get(key);
    if (cached) return cached;
    if (this.nested === null) {
      this.nested = new Map();
      for (const selector of this.exact) {
        for (let dot = selector.indexOf('.'); dot >= 0; dot = selector.indexOf('.', dot + 1)) {
          const prefix = selector.slice(0, dot);
          const list = this.nested.get(prefix);
          if (list) list.push(selector.slice(dot + 1));
          else this.nested.set(prefix, [selector.slice(dot + 1)]);
        }
      }
    }
    const suffixes = this.nested.get(key);
    if (!suffixes) return null;
    const selection = new FieldSelection(suffixes);
    this.under.set(key, selection);
    return selection;
  }
}

/** A selection from a list, or the list's already compiled selection. */
export function fieldSelection(selectors: readonly string[] | FieldSelection): FieldSelection {
  return selectors instanceof FieldSelection ? selectors : new FieldSelection(selectors);
}

/**
 * A copy of the document with only the selected attributes. A selector names a top-level field,
 * or a dotted path into nested objects (`a.b` keeps `{a: {b}}`); `*` keeps everything.
 * Unknown names are ignored, as Meilisearch does. Callers projecting many documents with one list
 * pass its FieldSelection, compiled once.
 */
export function projectDocument(document: Record<string, unknown>, selectors: readonly string[] | FieldSelection | null): Record<string, unknown> {
  if (selectors === null) return document;
  const selection = fieldSelection(selectors);
  if (selection.all) return document;
  return project(document, selection);
}

function project(document: Record<string, unknown>, selection: FieldSelection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(document)) {
    if (selection.selects(key)) {
      setOwn(out, key, value);
    } else if (Array.isArray(value)) {
      // `doggos.name` over an array of objects keeps the array, each object projected (as milli's
      // make_document: elements keep their places, scalars stay, an object without the path is `{}`).
      const nested = selection.selectionUnder(key);
      if (nested !== null) setOwn(out, key, nested.all ? value : projectArray(value, nested));
    } else if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) {
      const nested = selection.selectionUnder(key);
      if (nested !== null) {
        const child = nested.all ? value as Record<string, unknown> : project(value as Record<string, unknown>, nested);
        if (Object.keys(child).length > 0) setOwn(out, key, child);
      }
    }
  }
  return out;
}

function projectArray(values: readonly unknown[], selection: FieldSelection): unknown[] {
  return values.map((value) => {
    if (Array.isArray(value)) return projectArray(value, selection);
    if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) return project(value as Record<string, unknown>, selection);
    return value;
  });
}
