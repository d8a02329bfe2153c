// The filter expression parser (grammar of Meilisearch's filter-parser crate, search-semantics.md §8):
//   expression = or;  or = and ("OR" and)*;  and = not ("AND" not)*;  not = "NOT" not | primary
// Recursive descent over the characters; every failure is a FilterSyntaxError pointing at the
// failing part with Meilisearch's diagnostic text.
import type { CompareOperator, FilterNode, Token } from './filter-ast.js';
import { escapeDebug, FilterSyntaxError } from './filter-error.js';
import { filterNumber } from './facet-value.js';

const MAX_DEPTH = 150;
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IN', 'TO', 'EXISTS', 'IS', 'NULL', 'EMPTY', 'CONTAINS', 'STARTS', 'WITH']);
const OPERATIONS = 'Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, '
  + '`IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `CONTAINS`, `NOT CONTAINS`, `STARTS WITH`, `NOT STARTS WITH`, '
  + '`_geoRadius`, `_geoBoundingBox` or `_geoPolygon`';

/** Parses one filter string; null when it is empty or only whitespace (no filter). */
export function parseFilterString(source: string): FilterNode | null {
  if (source.trim() === '') return null;
  const parser = new FilterParser(source);
  const node = parser.expression(0);
  parser.skipSpace();
  if (!parser.atEnd()) {
    const rest = parser.rest();
    parser.fail(`Found unexpected characters at the end of the filter: \`${escapeDebug(rest)}\`. You probably forgot an \`OR\` or an \`AND\` rule.`, parser.pos, source.length);
  }
  return node;
}

/** The character (whole code point) at `at`, or undefined past the end. */
function codePointAt(text: string, at: number): string | undefined {
  const code = text.codePointAt(at);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && (/[\p{L}\p{N}_.\-]/u.test(char));
}

class FilterParser {
  pos = 0;

  constructor(readonly source: string) {}

  atEnd(): boolean {
    return this.pos >= this.source.length;
  }

  rest(): string {
    return this.source.slice(this.pos);
  }

  fail(diagnostic: string, start: number, end: number): never {
    throw new FilterSyntaxError(diagnostic, this.source, start, end);
  }

  skipSpace(): void {
    while (this.pos < this.source.length && /\s/.test(this.source[this.pos]!)) this.pos++;
  }

  /** The token of the word just consumed by keyword(). */
  lastWord(word: string): Token {
    return { text: word, start: this.pos - word.length, end: this.pos, source: this.source };
  }

  /** Consumes the keyword (after spaces) when it stands alone (not the start of a longer word). */
  keyword(word: string): boolean {
    const save = this.pos;
    this.skipSpace();
    if (this.source.startsWith(word, this.pos) && !isWordChar(this.source[this.pos + word.length])) {
      this.pos += word.length;
      return true;
    }
    this.pos = save;
    return false;
  }

  symbol(text: string): boolean {
    const save = this.pos;
    this.skipSpace();
    if (this.source.startsWith(text, this.pos)) {
      this.pos += text.length;
      return true;
    }
    this.pos = save;
    return false;
  }

  expression(depth: number): FilterNode {
    if (depth > MAX_DEPTH) {
      this.fail('The filter exceeded the maximum depth limit. Try rewriting the filter so that it contains fewer nested conditions.', this.pos, this.source.length);
    }
    const children = [this.and(depth)];
    while (this.keyword('OR')) children.push(this.and(depth));
    return children.length === 1 ? children[0]! : { kind: 'or', children };
  }

  private and(depth: number): FilterNode {
    const children = [this.not(depth)];
    while (this.keyword('AND')) children.push(this.not(depth));
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  private not(depth: number): FilterNode {
    if (depth > MAX_DEPTH) {
      this.fail('The filter exceeded the maximum depth limit. Try rewriting the filter so that it contains fewer nested conditions.', this.pos, this.source.length);
    }
    if (this.keyword('NOT')) {
      const inner = this.not(depth + 1);
      return inner.kind === 'not' ? inner.child : { kind: 'not', child: inner };
    }
    return this.primary(depth);
  }

  private primary(depth: number): FilterNode {
    // Meilisearch shows a `_foreign(..)` condition's errors from its primary on: the spaces before it
    // only at the start of the text (elsewhere the keyword or parenthesis before took them).
    const entry = this.pos;
    this.skipSpace();
    const start = this.pos;
    if (this.symbol('(')) {
      const inner = this.expression(depth + 1);
      if (!this.symbol(')')) this.fail(`Expression \`${escapeDebug(this.source.slice(start))}\` is missing the following closing delimiter: \`)\`.`, start, this.source.length);
      return inner;
    }
    if (this.startsWithWord('_geoRadius')) return this.geoRadius();
    if (this.startsWithWord('_geoBoundingBox')) return this.geoBoundingBox();
    if (this.startsWithWord('_geoPolygon')) return this.geoPolygon();
    if (this.atEnd() || !this.startsValue()) {
      this.invalidPrimary(start);
    }
    const field = this.value(true);
    // A bare `_foreign` no field form follows is the `_foreign(field, filter)` condition (Meilisearch tries it after them).
    const notAField = (): FilterNode => {
      if (field.text === '_foreign' && !this.quotedAt(field)) return this.foreign(entry === 0 ? 0 : start, field.end, depth);
      this.invalidPrimary(start);
    };
    const operator = this.compareOperator();
    if (operator) return { kind: 'compare', field, operator, value: this.value(false) };
    if (this.keyword('IN')) return { kind: 'in', field, values: this.valueList() };
    if (this.keyword('EXISTS')) return { kind: 'exists', field };
    if (this.keyword('CONTAINS')) return { kind: 'contains', field, keyword: this.lastWord('CONTAINS'), value: this.value(false) };
    if (this.startsWithPhrase('STARTS', 'WITH')) return { kind: 'startsWith', field, value: this.value(false) };
    const save = this.pos;
    if (this.keyword('IS')) {
      const negated = this.keyword('NOT');
      let node: FilterNode | null = null;
      if (this.keyword('NULL')) node = { kind: 'isNull', field };
      else if (this.keyword('EMPTY')) node = { kind: 'isEmpty', field };
      if (node) return negated ? { kind: 'not', child: node } : node;
      this.pos = save;
      return notAField();
    }
    if (this.keyword('NOT')) {
      if (this.keyword('IN')) return { kind: 'not', child: { kind: 'in', field, values: this.valueList() } };
      if (this.keyword('EXISTS')) return { kind: 'not', child: { kind: 'exists', field } };
      if (this.keyword('CONTAINS')) return { kind: 'not', child: { kind: 'contains', field, keyword: this.lastWord('CONTAINS'), value: this.value(false) } };
      if (this.startsWithPhrase('STARTS', 'WITH')) return { kind: 'not', child: { kind: 'startsWith', field, value: this.value(false) } };
      this.pos = save;
      return notAField();
    }
    // `field from TO to`
    this.skipSpace();
    if (this.startsValue() && !this.startsWithAnyKeyword()) {
      const from = this.value(false);
      if (this.keyword('TO')) return { kind: 'range', field, from, to: this.value(false) };
    }
    this.pos = save;
    return notAField();
  }

  /**
   * `_foreign(field, filter)` from the end of the word `_foreign` (filter-parser's parse_foreign): once
   * the word is read the rest must parse, and any failure inside is its one error, at the failing part;
   * the tokens inside show the text from `shownFrom` (Meilisearch's span extra), nested ones their own.
   */
  private foreign(shownFrom: number, wordEnd: number, depth: number): FilterNode {
    this.pos = wordEnd;
    try {
      const expect = (char: string): void => {
        if (this.source[this.pos] !== char) this.fail('', this.pos, this.source.length);
        this.pos++;
      };
      expect('(');
      this.skipSpace();
      const field = this.value(true);
      this.skipSpace();
      expect(',');
      this.skipSpace();
      // (depth + 1: each nesting counts, so the depth limit bounds the recursion)
      const filter = this.expression(depth + 1);
      this.skipSpace();
      expect(')');
      const node: FilterNode = { kind: 'foreign', field, filter };
      showTokensFrom(node, shownFrom);
      return node;
    } catch (cause) {
      if (!(cause instanceof FilterSyntaxError)) throw cause;
      const found = escapeDebug(this.source.slice(cause.start, cause.end));
      throw new FilterSyntaxError(`Was expecting a field name and an condition inside \`_foreign(..)\` filter but instead found \`${found}\`.`,
        this.source, cause.start, cause.end, cause.shownFrom ?? shownFrom);
    }
  }

  private invalidPrimary(start: number): never {
    const text = this.source.slice(start);
    const tail = text.trim() === '' ? 'but instead got nothing.' : `at \`${escapeDebug(text)}\`.`;
    this.fail(`${OPERATIONS} ${tail}`, start, this.source.length);
  }

  private compareOperator(): CompareOperator | null {
    for (const operator of ['!=', '>=', '<=', '=', '>', '<'] as const) if (this.symbol(operator)) return operator;
    return null;
  }

  private startsWithWord(word: string): boolean {
    this.skipSpace();
    return this.source.startsWith(word, this.pos) && !isWordChar(this.source[this.pos + word.length]);
  }

  private startsWithPhrase(first: string, second: string): boolean {
    const save = this.pos;
    if (this.keyword(first) && this.keyword(second)) return true;
    this.pos = save;
    return false;
  }

  private startsWithAnyKeyword(): boolean {
    for (const word of KEYWORDS) if (this.startsWithWord(word)) return true;
    return false;
  }

  private startsValue(): boolean {
    const char = this.source[this.pos];
    return char === '"' || char === "'" || isWordChar(char);
  }

  private quotedAt(token: Token): boolean {
    const char = this.source[token.start - 1];
    return char === '"' || char === "'";
  }

  /** A quoted string or a bare word; `isField` only changes which errors apply. */
  private value(isField: boolean): Token {
    this.skipSpace();
    const start = this.pos;
    const quote = this.source[start];
    if (quote === '"' || quote === "'") return this.quoted(quote);
    // filter-parser's parse_value: a value (field names too) starting with `_geoPoint` / `_geoDistance`, or
    // the word `_geo`, is refused, the error spanning the rest of the text.
    if (quote === '_') {
      const reserved = this.source.startsWith('_geoPoint', start) ? '_geoPoint' : this.source.startsWith('_geoDistance', start) ? '_geoDistance'
        : this.source.startsWith('_geo', start) && !isWordChar(codePointAt(this.source, start + 4)) ? '_geo' : null;
      if (reserved !== null) {
        this.fail(`\`${reserved}\` is a reserved keyword and thus can't be used as a filter expression. Use the \`_geoRadius(latitude, longitude, distance)\` or \`_geoBoundingBox([latitude, longitude], [latitude, longitude])\` built-in rules to filter on \`_geo\` coordinates.`, start, this.source.length);
      }
    }
    if (this.startsWithWord('_geoRadius')) this.fail('The `_geoRadius` filter is an operation and can\'t be used as a value.', start, this.source.length);
    if (this.startsWithWord('_geoBoundingBox')) this.fail('The `_geoBoundingBox` filter is an operation and can\'t be used as a value.', start, this.source.length);
    let end = start;
    while (end < this.source.length) {
      const char = String.fromCodePoint(this.source.codePointAt(end)!);
      if (!isWordChar(char)) break;
      end += char.length;
    }
    if (end === start) {
      const rest = this.source.slice(start);
      if (rest.trim() === '') this.fail('Was expecting a value but instead got nothing.', start, this.source.length);
      const word = /^\S*/.exec(rest)![0];
      this.fail(`Was expecting a value but instead got \`${escapeDebug(word)}\`.`, start, start + word.length);
    }
    const text = this.source.slice(start, end);
    if (KEYWORDS.has(text)) {
      const kind = isField ? 'a field name or a value' : 'a field name or a value';
      this.fail(`Was expecting a value but instead got \`${text}\`, which is a reserved keyword. To use \`${text}\` as ${kind}, surround it by quotes.`, start, end);
    }
    this.pos = end;
    return { text, start, end, source: this.source };
  }

  private quoted(quote: string): Token {
    const start = this.pos;
    let text = '';
    let k = start + 1;
    while (k < this.source.length) {
      const char = this.source[k]!;
      if (char === '\\' && this.source[k + 1] === quote) {
        text += quote;
        k += 2;
        continue;
      }
      if (char === quote) {
        this.pos = k + 1;
        // The span inside the quotes, as Meilisearch's tokens (its errors point there).
        return { text, start: start + 1, end: k, source: this.source };
      }
      text += char;
      k++;
    }
    this.fail(`Expression \`${escapeDebug(this.source.slice(start))}\` is missing the following closing delimiter: \`${quote}\`.`, start, this.source.length);
  }

  private valueList(): Token[] {
    const open = this.pos;
    if (!this.symbol('[')) this.fail('Expected `[` after `IN` keyword.', open, this.source.length);
    const values: Token[] = [];
    for (;;) {
      if (this.symbol(']')) return values;
      this.skipSpace();
      if (this.atEnd()) this.fail('Expected matching `]` after the list of field names given to `IN[`', open, this.source.length);
      if (!this.startsValue()) {
        const rest = this.rest();
        this.fail(`Expected only comma-separated field names inside \`IN[..]\` but instead found \`${escapeDebug(rest)}\`.`, this.pos, this.source.length);
      }
      values.push(this.value(false));
      if (this.symbol(',')) continue;
      if (this.symbol(']')) return values;
      this.skipSpace();
      if (this.atEnd()) this.fail('Expected matching `]` after the list of field names given to `IN[`', open, this.source.length);
      this.fail(`Expected only comma-separated field names inside \`IN[..]\` but instead found \`${escapeDebug(this.rest())}\`.`, this.pos, this.source.length);
    }
  }

  // The geo operations follow the filter-parser crate's nom grammar, failures included: a failure
  // points at the rest of the input where parsing stopped (or at the offending number), and a list
  // element that fails after a comma gives back the comma, so the closing character fails there.

  /** nom's `ws(recognize_float)`: spaces, a float, spaces. */
  private wsFloat(): GeoStep<Token> {
    this.skipSpace();
    const start = this.pos;
    let at = start;
    const digitsFrom = (from: number) => {
      let end = from;
      while (end < this.source.length && this.source[end]! >= '0' && this.source[end]! <= '9') end++;
      return end;
    };
    if (this.source[at] === '+' || this.source[at] === '-') at++;
    const integerEnd = digitsFrom(at);
    if (integerEnd > at) {
      at = integerEnd;
      if (this.source[at] === '.') at = digitsFrom(at + 1);
    } else if (this.source[at] === '.' && digitsFrom(at + 1) > at + 1) {
      at = digitsFrom(at + 1);
    } else {
      return { ok: false, at: start, cut: false };
    }
    if (this.source[at] === 'e' || this.source[at] === 'E') {
      let exponent = at + 1;
      if (this.source[exponent] === '+' || this.source[exponent] === '-') exponent++;
      const exponentEnd = digitsFrom(exponent);
      if (exponentEnd === exponent) return { ok: false, at: exponent, cut: true };
      at = exponentEnd;
    }
    const token: Token = { text: this.source.slice(start, at), start, end: at, source: this.source };
    this.pos = at;
    this.skipSpace();
    return { ok: true, value: token };
  }

  /** nom's `separated_list1(tag(","), item)`. */
  private commaList<T>(item: () => GeoStep<T>): GeoStep<T[]> {
    const first = item();
    if (!first.ok) return first;
    const items = [first.value];
    for (;;) {
      const save = this.pos;
      if (this.source[this.pos] !== ',') return { ok: true, value: items };
      this.pos++;
      const next = item();
      if (!next.ok) {
        if (next.cut) return next;
        this.pos = save;
        return { ok: true, value: items };
      }
      items.push(next.value);
    }
  }

  /** `ws(delimited(char('['), separated_list1(tag(","), ws(recognize_float)), char(']')))`. */
  private bracketPair(): GeoStep<Token[]> {
    this.skipSpace();
    if (this.source[this.pos] !== '[') return { ok: false, at: this.pos, cut: false };
    this.pos++;
    const numbers = this.commaList(() => this.wsFloat());
    if (!numbers.ok) return numbers;
    if (this.source[this.pos] !== ']') return { ok: false, at: this.pos, cut: false };
    this.pos++;
    this.skipSpace();
    return numbers;
  }

  private geoValue(token: Token): number {
    const value = Number(token.text);
    if (!Number.isFinite(value)) this.fail('Non finite floats are not supported', token.start, token.end);
    return value;
  }

  private geoRadius(): FilterNode {
    const start = this.pos;
    this.pos += '_geoRadius'.length;
    const form = 'The `_geoRadius` filter must be in the form: `_geoRadius(latitude, longitude, radius, optionalResolution)`.';
    if (this.source[this.pos] !== '(') this.fail(form, this.pos, this.source.length);
    this.pos++;
    const args = this.commaList(() => this.wsFloat());
    if (!args.ok) this.fail(form, args.at, this.source.length);
    if (this.source[this.pos] !== ')') this.fail(form, this.pos, this.source.length);
    this.pos++;
    const numbers = args.value;
    if (numbers.length < 3 || numbers.length > 4) {
      this.fail(`Was expecting 3 or 4 arguments for \`_geoRadius\`, but instead found ${numbers.length}.`, this.pos, this.source.length);
    }
    const values = numbers.map((token) => this.geoValue(token));
    const token: Token = { text: '_geoRadius', start, end: start + '_geoRadius'.length, source: this.source };
    return { kind: 'geoRadius', token, lat: values[0]!, lng: values[1]!, meters: values[2]!, numbers };
  }

  private geoBoundingBox(): FilterNode {
    const start = this.pos;
    this.pos += '_geoBoundingBox'.length;
    const usage = 'The `_geoBoundingBox` filter expects two pairs of arguments: `_geoBoundingBox([latitude, longitude], [latitude, longitude])`.';
    if (this.source[this.pos] !== '(') this.fail(usage, this.pos, this.source.length);
    this.pos++;
    const pairs = this.commaList(() => this.bracketPair());
    if (!pairs.ok) this.fail(usage, pairs.at, this.source.length);
    if (this.source[this.pos] !== ')') this.fail(usage, this.pos, this.source.length);
    this.pos++;
    if (pairs.value.length !== 2) this.fail(usage, this.pos, this.source.length);
    this.checkPairs(pairs.value);
    const numbers = pairs.value.flat();
    const [top, right, bottom, left] = numbers.map((number) => this.geoValue(number));
    const token: Token = { text: '_geoBoundingBox', start, end: start + '_geoBoundingBox'.length, source: this.source };
    return { kind: 'geoBoundingBox', token, top: top!, right: right!, bottom: bottom!, left: left!, numbers };
  }

  private geoPolygon(): FilterNode {
    const start = this.pos;
    this.pos += '_geoPolygon'.length;
    const format = 'The `_geoPolygon` filter doesn\'t match the expected format: `_geoPolygon([latitude, longitude], [latitude, longitude])`.';
    if (this.source[this.pos] !== '(') this.fail(format, this.pos, this.source.length);
    this.pos++;
    const pairs = this.commaList(() => this.bracketPair());
    if (!pairs.ok) this.fail(format, pairs.at, this.source.length);
    // A trailing comma is tolerated.
    const save = this.pos;
    this.skipSpace();
    if (this.source[this.pos] === ',') {
      this.pos++;
      this.skipSpace();
    } else this.pos = save;
    if (this.source[this.pos] !== ')') this.fail(format, this.pos, this.source.length);
    this.pos++;
    if (pairs.value.length < 3) {
      const last = pairs.value[pairs.value.length - 1]?.at(-1);
      const diagnostic = `The \`_geoPolygon\` filter expects at least 3 points but only ${pairs.value.length} were specified`;
      if (last) this.fail(diagnostic, last.start, last.end);
      this.fail(diagnostic, this.pos, this.source.length);
    }
    this.checkPairs(pairs.value);
    const numbers = pairs.value.flat();
    const points = pairs.value.map((pair): [number, number] => [this.geoValue(pair[0]!), this.geoValue(pair[1]!)]);
    const token: Token = { text: '_geoPolygon', start, end: start + '_geoPolygon'.length, source: this.source };
    return { kind: 'geoPolygon', token, points, numbers };
  }

  private checkPairs(pairs: Token[][]): void {
    const offending = pairs.find((pair) => pair.length !== 2);
    if (offending) this.fail(`Was expecting 2 coordinates but instead found ${offending.length}.`, offending[0]!.start, offending[0]!.end);
  }
}

/** Every token of the condition shows the text from `from` on, unless it already shows its own (a nested `_foreign`). */
function showTokensFrom(node: unknown, from: number): void {
  if (Array.isArray(node)) {
    for (const item of node) showTokensFrom(item, from);
  } else if (node !== null && typeof node === 'object') {
    if ('source' in node) {
      (node as Token).shownFrom ??= from;
      return;
    }
    for (const value of Object.values(node)) showTokensFrom(value, from);
  }
}

type GeoStep<T> = { ok: true; value: T } | { ok: false; at: number; cut: boolean };
