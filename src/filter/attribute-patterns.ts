// filterableAttributes / sortableAttributes patterns: plain names (a name also covers its nested
// fields: `a` covers `a.b`), `*` wildcards (`*`, `pre*`, `*suf`, `*mid*`), and filterable rule objects
// `{attributePatterns: [...]}`. Used by the front (validation) and the shard (which fields to index).
import { selectsField } from '../documents/flatten.js';

/** The pattern strings of a filterableAttributes setting (strings and rule objects alike). */
export function attributePatternsOf(setting: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const entry of setting) {
    if (typeof entry === 'string') out.push(entry);
    else if (entry !== null && typeof entry === 'object') {
      const patterns = (entry as { attributePatterns?: unknown }).attributePatterns;
      if (Array.isArray(patterns)) for (const pattern of patterns) if (typeof pattern === 'string') out.push(pattern);
    }
  }
  return out;
}

export function matchesPattern(pattern: string, field: string): boolean {
  if (!pattern.includes('*')) return selectsField(pattern, field);
  if (pattern === '*') return true;
  const parts = pattern.split('*');
  let at = 0;
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    if (k === 0) {
      if (!field.startsWith(part)) return false;
      at = part.length;
    } else if (k === parts.length - 1) {
      return part === '' || (field.length - part.length >= at && field.endsWith(part));
    } else {
      const found = field.indexOf(part, at);
      if (found < 0) return false;
      at = found + part.length;
    }
  }
  return at === field.length;
}

export function matchesAnyPattern(patterns: readonly string[], field: string): boolean {
  for (const pattern of patterns) if (matchesPattern(pattern, field)) return true;
  return false;
}

/** `` `a`, `b` `` as Meilisearch lists available attributes (sorted). */
export function listForMessage(patterns: readonly string[]): string {
  return [...new Set(patterns)].sort().map((pattern) => `\`${pattern}\``).join(', ');
}
