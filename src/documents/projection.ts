// Keeping only some attributes of a stored document, as attributesToRetrieve and `fields` do.
import { JsonNumberText } from './exact-json.js';
import { selectsField } from './flatten.js';

/**
 * A copy of the document with only the selected attributes. A selector names a top-level field,
 * or a dotted path into nested objects (`a.b` keeps `{a: {b}}`); `*` keeps everything.
 * Unknown names are ignored, as Meilisearch does.
 */
export function projectDocument(document: Record<string, unknown>, selectors: readonly string[] | null): Record<string, unknown> {
  if (selectors === null || selectors.includes('*')) return document;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(document)) {
    if (selectors.some((selector) => selectsField(selector, key))) {
      out[key] = value;
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsonNumberText)) {
      const nested = selectors.filter((selector) => selector.startsWith(`${key}.`)).map((selector) => selector.slice(key.length + 1));
      if (nested.length > 0) {
        const child = projectDocument(value as Record<string, unknown>, nested);
        if (Object.keys(child).length > 0) out[key] = child;
      }
    }
  }
  return out;
}
