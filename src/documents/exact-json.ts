// Numbers kept as written. JSON.parse turns every number into a double, so JSON.stringify writes
// 9007199254740993 as 9007199254740992, 1.0 as 1, 1e300 as 1e+300 and -0.0 as 0, and two documents
// whose ids differ beyond 2^53 become one. Meilisearch keeps integers exactly (u64 / i64) and writes
// floats back as serde_json does (1.0 stays 1.0); keeping the literal text gives those answers.
//
// The fast path stays JSON.parse / JSON.stringify: a text whose number tokens all print back as
// written (numbersPrintAsWritten) needs nothing else. Only the other texts go through parseExactJson,
// where each such number becomes a JsonNumberText holding its literal, and stringifyExactJson, which
// writes the literal back. A JsonNumberText is a leaf: projection and formatting treat it as a number.

import { setOwn } from './own-fields.js';

/** A JSON number whose literal JavaScript would not print back as written (its double is `value`). */
export class JsonNumberText {
  constructor(readonly text: string) {}

  get value(): number {
    return Number(this.text);
  }

  toString(): string {
    return this.text;
  }
}

/** Whether `String(Number(token))` is the token itself, i.e. JSON.parse then JSON.stringify keep it. */
export function printsAsWritten(token: string): boolean {
  // Short integers (not -0) always do; the usual case, decided without a conversion.
  if (token.length <= 15) {
    let plain = true;
    for (let i = token.charCodeAt(0) === 0x2d ? 1 : 0; i < token.length; i++) {
      const code = token.charCodeAt(i);
      if (code < 0x30 || code > 0x39) {
        plain = false;
        break;
      }
    }
    if (plain) return token !== '-0';
  }
  return String(Number(token)) === token;
}

/** End of the number token starting at `at` (a `-` or a digit). */
export function numberTokenEnd(text: string, at: number): number {
  let end = at + 1;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    const numeric = (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === 0x2d;
    if (!numeric) break;
  }
  return end;
}

/** End of the string token whose opening quote is at `at` (just after its closing quote); -1 when unterminated. */
export function stringTokenEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let i = quote - 1; i > at && text.charCodeAt(i) === 0x5c; i--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * Whether every number token of the JSON text in [start, end) prints back as written once parsed, so
 * JSON.parse and JSON.stringify are exact for it. Strings are skipped whole (their digits are text).
 */
export function numbersPrintAsWritten(text: string, start = 0, end = text.length): boolean {
  let at = start;
  while (at < end) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      const after = stringTokenEnd(text, at);
      if (after < 0) return true;
      at = after;
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const tokenEnd = numberTokenEnd(text, at);
      if (!printsAsWritten(text.slice(at, tokenEnd))) return false;
      at = tokenEnd;
    } else {
      at++;
    }
  }
  return true;
}

/**
 * JSON.parse, except that numbers which would not print back as written are JsonNumberText. The text
 * must be valid JSON (callers parse it with JSON.parse first, which reports syntax errors).
 */
export function parseExactJson(text: string, start = 0, end = text.length): unknown {
  const reader = new ExactReader(text, end);
  reader.at = start;
  const value = reader.value();
  reader.skipWhitespace();
  if (reader.at !== end) throw new SyntaxError(`Unexpected text at ${reader.at}`);
  return value;
}

class ExactReader {
  at = 0;
  constructor(readonly text: string, readonly end: number) {}

  skipWhitespace(): void {
    while (this.at < this.end) {
      const code = this.text.charCodeAt(this.at);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      this.at++;
    }
  }

  value(): unknown {
    this.skipWhitespace();
    const code = this.text.charCodeAt(this.at);
    if (code === 0x7b) return this.object();
    if (code === 0x5b) return this.array();
    if (code === 0x22) return this.string();
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const tokenEnd = numberTokenEnd(this.text, this.at);
      const token = this.text.slice(this.at, tokenEnd);
      this.at = tokenEnd;
      const number = Number(token);
      if (Number.isNaN(number)) throw new SyntaxError(`Invalid number ${token}`);
      // Beyond the double's range: the double (JSON.stringify writes null), as JSON.parse gives.
      return printsAsWritten(token) || !Number.isFinite(number) ? number : new JsonNumberText(token);
    }
    for (const [literal, value] of LITERALS) {
      if (this.text.startsWith(literal, this.at)) {
        this.at += literal.length;
        return value;
      }
    }
    throw new SyntaxError(`Unexpected character at ${this.at}`);
  }

  string(): string {
    const after = stringTokenEnd(this.text, this.at);
    if (after < 0 || after > this.end) throw new SyntaxError('Unterminated string');
    const token = this.text.slice(this.at, after);
    this.at = after;
    return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
  }

  array(): unknown[] {
    this.at++;
    const out: unknown[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.at++);
      if (code === 0x5d) return out;
      if (code !== 0x2c) throw new SyntaxError(`Expected , or ] at ${this.at - 1}`);
    }
  }

  object(): Record<string, unknown> {
    this.at++;
    const out: Record<string, unknown> = {};
    this.skipWhitespace();
    if (this.text.charCodeAt(this.at) === 0x7d) {
      this.at++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.at) !== 0x22) throw new SyntaxError(`Expected a key at ${this.at}`);
      const key = this.string();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.at++) !== 0x3a) throw new SyntaxError(`Expected : at ${this.at - 1}`);
      setOwn(out, key, this.value());
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.at++);
      if (code === 0x7d) return out;
      if (code !== 0x2c) throw new SyntaxError(`Expected , or } at ${this.at - 1}`);
    }
  }
}

const LITERALS: [string, unknown][] = [['true', true], ['false', false], ['null', null]];


/** JSON.stringify, except that a JsonNumberText is written as its literal. */
export function stringifyExactJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: unknown, out: string[]): void {
  if (value instanceof JsonNumberText) {
    out.push(value.text);
  } else if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const element: unknown = value[i];
      if (element === undefined || typeof element === 'function' || typeof element === 'symbol') out.push('null');
      else write(element, out);
    }
    out.push(']');
  } else if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    out.push('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(child, out);
    }
    out.push('}');
  } else {
    out.push(JSON.stringify(value) ?? 'null');
  }
}

/** The document text as stored: JSON.stringify when that is exact, else with its numbers as written. */
export function documentJson(document: unknown): string {
  return containsNumberText(document) ? stringifyExactJson(document) : JSON.stringify(document);
}

/** Whether a parsed value holds a JsonNumberText anywhere. */
export function containsNumberText(value: unknown): boolean {
  if (value instanceof JsonNumberText) return true;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsNumberText);
  for (const key in value) if (Object.hasOwn(value, key) && containsNumberText((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The stored JSON text parsed: JSON.parse on the fast path, parseExactJson when some number needs its literal. */
export function parseStoredJson(text: string): unknown {
  return numbersPrintAsWritten(text) ? JSON.parse(text) : parseExactJson(text);
}

/**
 * serde_json's text of an f64 (shortest round-trip digits, like JavaScript's): fixed notation when the
 * decimal exponent is within -5..=15, with ".0" on integral values (1.0, 1234567.0), else scientific.
 * For scientific notation this writes JavaScript's "1e+300" (serde_json's zmij writer; ryu, its older
 * writer, wrote "1e300").
 */
export function serdeFloatText(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -5 || exponent > 15) return `${mantissa}e${exponent >= 0 ? '+' : '-'}${Math.abs(exponent)}`;
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let out: string;
  if (digits.length - 1 <= exponent) out = `${digits}${'0'.repeat(exponent - (digits.length - 1))}.0`;
  else if (exponent >= 0) out = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  else out = `0.${'0'.repeat(-exponent - 1)}${digits}`;
  return negative ? `-${out}` : out;
}
