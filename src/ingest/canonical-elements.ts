// The update file holds each document as JSON.stringify writes it, except for numbers JavaScript would
// rewrite (2^53+1, 1.0, 1e300, -0.0), which keep their literal (src/documents/exact-json.ts). Most clients
// send exactly that (compact JSON from a serializer), and re-serializing every parsed document was the
// largest cost of decoding a payload: this scanner finds the elements of a JSON payload that are already
// in that form, so their text is copied instead. An element is taken only when every token is one
// JSON.stringify would write identically (anything else: the parsed document is serialized as before):
//  - no whitespace outside strings;
//  - string escapes only \" \\ \b \f \n \r \t (never \u or \/, which stringify would rewrite);
//  - numbers: integers of at most 15 digits (not -0), decimals of at most 15 significant digits
//    without trailing zeros, no exponent, and at most 5 zeros after "0." (JavaScript writes smaller
//    numbers with an exponent); a double prints back as these digits exactly. Any other finite number
//    is kept as written too: the element is then still copied, or, when something else in it is not
//    canonical, re-serialized by stringifyExactJson (numbers as written) instead of JSON.stringify;
//  - as many keys as the parsed document has (a duplicated key is written once by stringify), and
//    no key starting with a digit (integer-like keys are enumerated first, so stringify reorders them).
import { numberTokenEnd, parseExactJson, printsAsWritten, stringifyExactJson } from '../documents/exact-json.js';

/**
 * A document whose text is already known: the update file writer copies it. `exactNumbers`: some number
 * in it would not print back as written from its double, so readers must parse it with parseExactJson.
 */
export class DocumentText {
  constructor(readonly json: string, readonly exactNumbers = false) {}
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * The update file text of each document of a JSON payload (an array, or one object): its own text when
 * canonical, its re-serialization with numbers as written when some number needs it, else null (write
 * JSON.stringify of the parsed document). Null when the text does not have that shape.
 */
export function canonicalElementTexts(text: string, documents: readonly unknown[]): (DocumentText | null)[] | null {
  let at = skipWhitespace(text, 0);
  if (text.charCodeAt(at) === 0x7b /* { */ && documents.length === 1) {
    const text0 = documentTextAt(text, at, documents[0]);
    return text0 === undefined ? null : [text0];
  }
  if (text.charCodeAt(at) !== 0x5b /* [ */) return null;
  const out: (DocumentText | null)[] = [];
  const backslashes: BackslashCursor = { at: -1 };
  at++;
  for (let k = 0; k < documents.length; k++) {
    at = skipWhitespace(text, at);
    if (k > 0) {
      if (text.charCodeAt(at) !== 0x2c /* , */) return null;
      at = skipWhitespace(text, at + 1);
    }
    const scan = scanElement(text, at, backslashes);
    if (scan === null) return null;
    out.push(textOfScan(text, at, scan, documents[k]));
    at = scan.end;
  }
  return out;
}

/**
 * The update file text of the one JSON value starting at `start` (an NDJSON line's, or a lone object's),
 * null when JSON.stringify of the parsed `document` is that text; undefined when the text ends first.
 * Values read in order share one `backslashes` cursor (newBackslashCursor), so the text is searched for
 * backslashes once, not from each value to its end.
 */
export function documentTextAt(text: string, start: number, document: unknown, backslashes: BackslashCursor = { at: -1 }): DocumentText | null | undefined {
  const scan = scanElement(text, start, backslashes);
  if (scan === null) return undefined;
  return textOfScan(text, start, scan, document);
}

function textOfScan(text: string, start: number, scan: ElementScan, document: unknown): DocumentText | null {
  if (scan.canonical && scan.keys === countKeys(document)) return new DocumentText(text.slice(start, scan.end), scan.exact);
  return scan.exact ? new DocumentText(stringifyExactJson(parseExactJson(text, start, scan.end)), true) : null;
}

interface ElementScan {
  end: number;
  canonical: boolean;
  /** Whether a finite number of the element would not print back as written from its double. */
  exact: boolean;
  /** Colons outside strings: the keys of every object of the element. */
  keys: number;
}

/** Position of the next backslash of the text once looked up (-1: not yet; Infinity: none left), shared by the elements. */
export interface BackslashCursor {
  at: number;
}

export function newBackslashCursor(): BackslashCursor {
  return { at: -1 };
}

/** Scans one object or array starting at `start`; null when the text ends first. */
function scanElement(text: string, start: number, backslashes: BackslashCursor): ElementScan | null {
  let depth = 0;
  let canonical = true;
  let exact = false;
  let keys = 0;
  let lastStringStart = start;
  let at = start;
  const length = text.length;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at++;
      lastStringStart = at;
      // Jump from quote to quote (indexOf is far faster than a loop over the characters of long texts),
      // stopping at each backslash before the closing quote.
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) return null;
        if (backslashes.at < at) {
          backslashes.at = text.indexOf('\\', at);
          if (backslashes.at < 0) backslashes.at = Infinity;
        }
        const backslashAt = backslashes.at;
        if (backslashAt > quote) {
          at = quote + 1;
          break;
        }
        const escaped = text.charCodeAt(backslashAt + 1);
        // " \ b f n r t
        if (escaped !== 0x22 && escaped !== 0x5c && escaped !== 0x62 && escaped !== 0x66 && escaped !== 0x6e
          && escaped !== 0x72 && escaped !== 0x74) canonical = false;
        at = backslashAt + 2;
      }
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth++;
      at++;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth--;
      at++;
      if (depth === 0) return { end: at, canonical, exact, keys };
    } else if (code === COLON) {
      keys++;
      const first = text.charCodeAt(lastStringStart);
      if (first >= 0x30 && first <= 0x39) canonical = false;
      at++;
    } else if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) {
      const end = numberTokenEnd(text, at);
      if (!isCanonicalNumberAt(text, at, end)) {
        const token = text.slice(at, end);
        if (!printsAsWritten(token)) {
          // Kept as written; a number out of the double's range is written null by JSON.stringify, as before.
          if (Number.isFinite(Number(token))) exact = true;
          else canonical = false;
        }
      }
      at = end;
    } else {
      // , true false null are written as sent; whitespace is not written by stringify.
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) canonical = false;
      at++;
    }
  }
  return null;
}

export function isCanonicalNumber(token: string): boolean {
  return isCanonicalNumberAt(token, 0, token.length);
}

/** Whether text[start, end) is a number as JavaScript writes it (see the rules above). */
function isCanonicalNumberAt(text: string, start: number, end: number): boolean {
  let at = start;
  const negative = text.charCodeAt(at) === 0x2d;
  if (negative) at++;
  const firstDigit = text.charCodeAt(at);
  if (firstDigit < 0x30 || firstDigit > 0x39) return false;
  const zeroInteger = firstDigit === 0x30;
  let integerDigits = 1;
  at++;
  if (!zeroInteger) while (at < end && isDigit(text.charCodeAt(at))) integerDigits++, at++;
  if (at === end) return integerDigits <= 15 && !(negative && zeroInteger);
  if (text.charCodeAt(at) !== 0x2e /* . */) return false;
  at++;
  if (at === end || text.charCodeAt(end - 1) === 0x30) return false; // no fraction digit, or a trailing zero
  let leadingZeros = 0;
  if (zeroInteger) while (at < end && text.charCodeAt(at) === 0x30) leadingZeros++, at++;
  // "0.000001" prints as written, "0.0000001" as "1e-7".
  if (leadingZeros > 5) return false;
  let fractionDigits = 0;
  for (; at < end; at++, fractionDigits++) if (!isDigit(text.charCodeAt(at))) return false;
  return (zeroInteger ? 0 : integerDigits) + fractionDigits <= 15;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Own keys of every object inside the value. */
function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const element of value) count += countKeys(element);
    return count;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    count += 1 + countKeys((value as Record<string, unknown>)[key]);
  }
  return count;
}

function skipWhitespace(text: string, at: number): number {
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    at++;
  }
  return at;
}
