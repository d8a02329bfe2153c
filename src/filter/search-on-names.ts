// attributesToSearchOn names against field names, as milli's match_pattern (attributes_to_search_on): `*`
// every field, `*mid*` a field containing `mid`, `*suf` / `pre*` a field ending / starting so, else the
// name itself (a `*` elsewhere is a plain character). A request holds up to 1,000 names and an index up to
// 1,000 known fields (or many more in a shard): matching each name against each field once cost the
// front ~700 ms on 1,000 alike 400-character names and fields (a million String#includes), and a shard
// as much per search (FieldRestriction read every field of every document against every name). Here:
// names deduplicated; exact names in a set; prefixes and suffixes in sorted arrays, a field or a name
// found by binary search; `*mid*` names by String#includes, their work bounded (MAX_CONTAINS_WORK):
// before any matching on the front, from the index's known fields (so a shard restricting to them never
// does more), and as it goes in a shard (a backstop for indexes past 1,000 fields).
import { SkeinError } from '../errors/index.js';

/** Characters String#includes may compare for the `*mid*` names of one request (~10-20 ms of one thread). */
export const MAX_CONTAINS_WORK = 12_000_000;

export function tooMuchContainsWork(names: number): SkeinError {
  return new SkeinError('invalid_search_attributes_to_search_on',
    `Invalid value at \`.attributesToSearchOn\`: matching its ${names} names with a leading and a trailing \`*\` against the index's fields would compare more than the ${MAX_CONTAINS_WORK} characters this server accepts; send fewer such names.`);
}

/** Field names ready for the names' lookups (the front's check: search-on-check.ts). */
export class FieldNames {
  readonly set: ReadonlySet<string>;
  /** Sorted, sorted from their end, lengths: each made on first use (a list of exact names needs none). */
  private sortedCache: string[] | null = null;
  private byEndCache: string[] | null = null;
  /** Field lengths ascending, and the sums of the lengths from each position to the end. */
  private lengths: number[] | null = null;
  private tailSums: number[] = [];

  constructor(readonly fields: readonly string[]) {
    this.set = new Set(fields);
  }

  private get sorted(): string[] {
    return (this.sortedCache ??= [...this.set].sort(compareUnits));
  }

  hasPrefix(prefix: string): boolean {
    const sorted = this.sorted;
    const at = lowerBound(sorted, prefix);
    return at < sorted.length && sorted[at]!.startsWith(prefix);
  }

  hasSuffix(suffix: string): boolean {
    // (sorted by their reversed text, compared from the end: no reversed copies)
    const byEnd = (this.byEndCache ??= [...this.set].sort(compareFromEnd));
    let low = 0;
    let high = byEnd.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareFromEnd(byEnd[middle]!, suffix) < 0) low = middle + 1;
      else high = middle;
    }
    return low < byEnd.length && byEnd[low]!.endsWith(suffix);
  }

  contains(mid: string): boolean {
    for (const field of this.set) if (field.length >= mid.length && field.includes(mid)) return true;
    return false;
  }

  /** The characters String#includes reads at most looking for `mid` in every field at least as long. */
  containsWork(mid: string): number {
    if (this.lengths === null) {
      const lengths = [...this.set].map((field) => field.length).sort((a, b) => a - b);
      this.tailSums = new Array<number>(lengths.length + 1).fill(0);
      for (let k = lengths.length - 1; k >= 0; k--) this.tailSums[k] = this.tailSums[k + 1]! + lengths[k]!;
      this.lengths = lengths;
    }
    const lengths = this.lengths;
    let low = 0;
    let high = lengths.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (lengths[middle]! < mid.length) low = middle + 1;
      else high = middle;
    }
    return this.tailSums[low]!;
  }
}

export class SearchOnNames {
  /** `*` is among the names: every field. */
  readonly all: boolean;
  readonly exact: ReadonlySet<string>;
  /** `pre*` names' prefixes, sorted; `*suf` names' suffixes reversed, sorted; `*mid*` names' middles, shortest first. */
  private readonly prefixes: string[] = [];
  private readonly suffixes: string[] = [];
  private readonly middles: string[] = [];
  /** selects() per field name, and the includes work it spent (this object's own, one search's). */
  private readonly verdicts = new Map<string, boolean>();
  private containsWork = 0;

  /** `tooMuch`: the error past MAX_CONTAINS_WORK (given the number of `*mid*` names): attributesToSearchOn's unless said. */
  constructor(names: readonly string[], private readonly tooMuch: (names: number) => SkeinError = tooMuchContainsWork) {
    const unique = new Set(names);
    this.all = unique.has('*');
    // A name with `*` equal to a field's name selects that field too (milli compares the name first).
    this.exact = unique;
    const prefixes = new Set<string>();
    const suffixes = new Set<string>();
    const middles = new Set<string>();
    for (const name of unique) {
      if (name === '*') continue;
      const leading = name.startsWith('*');
      const trailing = name.endsWith('*');
      if (leading && trailing) middles.add(name.slice(1, -1));
      else if (leading) suffixes.add(reverse(name.slice(1)));
      else if (trailing) prefixes.add(name.slice(0, -1));
    }
    this.prefixes = [...prefixes].sort(compareUnits);
    this.suffixes = [...suffixes].sort(compareUnits);
    this.middles = [...middles].sort((a, b) => a.length - b.length);
  }

  /** How many distinct `*mid*` names. */
  get containsNames(): number {
    return this.middles.length;
  }

  /** Whether `name` (one of the names) selects at least one of the fields. */
  nameMatchesAny(name: string, fields: FieldNames): boolean {
    if (name === '*' || fields.set.has(name)) return true;
    const leading = name.startsWith('*');
    const trailing = name.endsWith('*');
    if (leading && trailing) return fields.contains(name.slice(1, -1));
    if (leading) return fields.hasSuffix(name.slice(1));
    if (trailing) return fields.hasPrefix(name.slice(0, -1));
    return false;
  }

  /** The most String#includes work the `*mid*` names can cost against these fields (each field once per name). */
  containsWorkAgainst(fields: FieldNames): number {
    let work = 0;
    for (const middle of this.middles) {
      work += fields.containsWork(middle);
      if (work > MAX_CONTAINS_WORK) break;
    }
    return work;
  }

  /**
   * Whether some name selects the field (a shard's field restriction), remembered per field. Throws
   * tooMuchContainsWork past MAX_CONTAINS_WORK characters of `*mid*` matching in all.
   */
  selects(field: string): boolean {
    if (this.all || this.exact.has(field)) return true;
    let verdict = this.verdicts.get(field);
    if (verdict === undefined) {
      verdict = (this.prefixes.length > 0 && hasPrefixOf(this.prefixes, field))
        || (this.suffixes.length > 0 && hasPrefixOf(this.suffixes, reverse(field))) || this.containsOneOf(field);
      this.verdicts.set(field, verdict);
    }
    return verdict;
  }

  private containsOneOf(field: string): boolean {
    for (const middle of this.middles) {
      if (middle.length > field.length) break;
      this.containsWork += field.length;
      if (this.containsWork > MAX_CONTAINS_WORK) throw this.tooMuch(this.middles.length);
      if (field.includes(middle)) return true;
    }
    return false;
  }
}

/**
 * Whether one of the sorted `prefixes` starts `text`. The largest prefix not above `text` either starts
 * it, or shares a shorter common part with it: every prefix of `text` in the list is then at most that
 * part, so the search goes on below it (each step shortens the part).
 */
function hasPrefixOf(prefixes: readonly string[], text: string): boolean {
  let target = text;
  let end = prefixes.length;
  while (end > 0) {
    // the last prefix <= target, among prefixes[0, end)
    let low = 0;
    let high = end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareUnits(prefixes[middle]!, target) <= 0) low = middle + 1;
      else high = middle;
    }
    if (low === 0) return false;
    const candidate = prefixes[low - 1]!;
    if (text.startsWith(candidate)) return true;
    let common = 0;
    while (common < candidate.length && common < target.length && candidate.charCodeAt(common) === target.charCodeAt(common)) common++;
    target = text.slice(0, common);
    end = low - 1;
  }
  return false;
}

/** First index whose value is >= target (UTF-16 unit order). */
function lowerBound(sorted: readonly string[], target: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareUnits(sorted[middle]!, target) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** compareUnits of the two texts reversed, without reversing them. */
function compareFromEnd(a: string, b: string): number {
  let i = a.length - 1;
  let j = b.length - 1;
  while (i >= 0 && j >= 0) {
    const x = a.charCodeAt(i--);
    const y = b.charCodeAt(j--);
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The text's UTF-16 units in reverse order (suffixes as prefixes; never shown). */
function reverse(text: string): string {
  return text.split('').reverse().join('');
}
