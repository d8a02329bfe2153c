// filterableAttributes / sortableAttributes patterns: plain names (a name also covers its nested
// fields: `a` covers `a.b`), `*` wildcards (`*`, `pre*`, `*suf`, `*mid*`), and filterable rule objects
// `{attributePatterns: [...]}`. Used by the front (validation) and the shard (which fields to index).
import { selectsField } from '../documents/flatten.js';
import { FieldSelection } from '../documents/projection.js';

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

/**
 * An attributesToSearchOn name against a field, as milli's match_pattern (its Match) in
 * attributes_to_search_on: `*` every field, `*mid*` a field containing `mid`, `*suf` / `pre*` a field
 * ending / starting so, else the name itself; a `*` elsewhere is a plain character. Linear in the
 * field (the glob of matchesPattern cost the front up to ~20 ms on 1,000 names of 500 stars each).
 */
export function matchesSearchOnName(name: string, field: string): boolean {
  if (name === '*') return true;
  const leading = name.startsWith('*');
  const trailing = name.endsWith('*');
  if (leading && trailing) return field.includes(name.slice(1, -1));
  if (leading) return field.endsWith(name.slice(1));
  if (trailing) return field.startsWith(name.slice(0, -1));
  return name === field;
}

/**
 * Patterns compiled for lookups, so a field is matched in time linear in its own length (plus the
 * rare patterns with a `*` inside): plain names by the field's dotted prefixes in a Set, `pre*` by the
 * field's prefixes, `*suf` by its suffixes. Matching field by pattern made a settings update with
 * tens of thousands of attributes take minutes in the shard workers (every field of every document
 * against every pattern) and held up every other index's searches meanwhile.
 */
export class PatternSet {
  readonly size: number;
  private readonly all: boolean;
  private readonly names: FieldSelection;
  private readonly prefixes = new Set<string>();
  private readonly suffixes = new Set<string>();
  private readonly others: string[] = [];
  private prefixLengths: number[] = [];
  private suffixLengths: number[] = [];

  constructor(patterns: readonly string[]) {
    this.size = patterns.length;
    const names: string[] = [];
    for (const pattern of patterns) {
      const star = pattern.indexOf('*');
      if (star < 0) names.push(pattern);
      else if (pattern === '*') names.push('*');
      else if (star === pattern.length - 1 && pattern.indexOf('*') === star) this.prefixes.add(pattern.slice(0, -1));
      else if (star === 0 && pattern.indexOf('*', 1) < 0) this.suffixes.add(pattern.slice(1));
      else this.others.push(pattern);
    }
    this.names = new FieldSelection(names);
    this.all = this.names.all;
    this.prefixLengths = [...new Set([...this.prefixes].map((prefix) => prefix.length))];
    this.suffixLengths = [...new Set([...this.suffixes].map((suffix) => suffix.length))];
  }

  matches(field: string): boolean {
    if (this.all || this.names.selects(field)) return true;
    for (const length of this.prefixLengths) if (length <= field.length && this.prefixes.has(field.slice(0, length))) return true;
    for (const length of this.suffixLengths) if (length <= field.length && this.suffixes.has(field.slice(field.length - length))) return true;
    for (const pattern of this.others) if (matchesPattern(pattern, field)) return true;
    return false;
  }
}

export function matchesAnyPattern(patterns: readonly string[] | PatternSet, field: string): boolean {
  if (patterns instanceof PatternSet) return patterns.matches(field);
  for (const pattern of patterns) if (matchesPattern(pattern, field)) return true;
  return false;
}

/** `` `a`, `b` `` as Meilisearch lists available attributes (sorted). */
export function listForMessage(patterns: readonly string[]): string {
  return [...new Set(patterns)].sort().map((pattern) => `\`${pattern}\``).join(', ');
}
