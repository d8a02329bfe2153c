// Payloads must be UTF-8: invalid bytes are refused (malformed_payload), never stored as U+FFFD. The
// check itself is a fatal TextDecoder / buffer.isUtf8 over the whole payload (native, fast); these
// functions only run once it failed, to say where, in the words of the Rust crates Meilisearch uses.
import { lineAndColumn, readValue, skipWhitespace } from './json-syntax-error.js';

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence; -1 when all are valid. */
export function firstInvalidUtf8Offset(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let at = start;
  while (at < end) {
    const byte = bytes[at]!;
    if (byte < 0x80) {
      at++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (byte >= 0xc2 && byte <= 0xdf) length = 2;
    else if (byte >= 0xe0 && byte <= 0xef) {
      length = 3;
      if (byte === 0xe0) low = 0xa0;
      if (byte === 0xed) high = 0x9f; // no surrogates
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      length = 4;
      if (byte === 0xf0) low = 0x90;
      if (byte === 0xf4) high = 0x8f;
    } else return at;
    if (at + length > end) return at;
    const second = bytes[at + 1]!;
    if (second < low || second > high) return at;
    for (let k = 2; k < length; k++) {
      const next = bytes[at + k]!;
      if (next < 0x80 || next > 0xbf) return at;
    }
    at += length;
  }
  return -1;
}

/**
 * serde_json's message for a JSON / NDJSON document payload with invalid UTF-8: "invalid unicode code
 * point at line L column C". Meilisearch reads each element of an array (and each NDJSON value) as a raw
 * value, whose bytes are checked once it ends: the position is just after that value. A lone object is
 * parsed whole, strings checked as they are read: just after the string holding the bad byte, as for
 * any other JSON body (`documents` false).
 */
export function jsonInvalidUtf8Description(bytes: Uint8Array, type: 'json' | 'ndjson', documents = true): string {
  const bad = firstInvalidUtf8Offset(bytes);
  // Byte offsets are character offsets in latin1, and JSON's structure is ASCII.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let after: number | null = null;
  if (documents) after = type === 'ndjson' ? endOfValueAround(text, 0, bad, true) : topLevelEnd(text, bad);
  after ??= endOfStringAround(text, bad);
  const { line, column } = lineAndColumn(text, Math.max(0, after - 1));
  return `invalid unicode code point at line ${line} column ${column}`;
}

/** For a JSON array: the end of the element holding `bad`; for an object: the end of the string holding it. */
function topLevelEnd(text: string, bad: number): number | null {
  const start = skipWhitespace(text, 0);
  if (text[start] !== '[') return null;
  return endOfValueAround(text, start + 1, bad, false);
}

/** Walks consecutive values (separated by whitespace, or by commas in an array) to the one whose bytes hold `bad`. */
function endOfValueAround(text: string, from: number, bad: number, stream: boolean): number | null {
  let at = from;
  try {
    for (;;) {
      at = skipWhitespace(text, at);
      if (at >= text.length) return null;
      const end = readValue(text, at);
      if (bad < end) return end;
      at = skipWhitespace(text, end);
      if (!stream) {
        if (text[at] !== ',') return null;
        at++;
      }
    }
  } catch {
    return null;
  }
}

/** Just after the closing quote of the string holding `bad` (or the end of the text). */
function endOfStringAround(text: string, bad: number): number {
  for (let at = bad; at < text.length; at++) {
    const char = text[at];
    if (char === '\\') at++;
    else if (char === '"') return at + 1;
  }
  return text.length;
}

/**
 * The csv crate's message for a record with invalid UTF-8 (Meilisearch reads CSV into StringRecords):
 * "CSV parse error: record R (line L, field: F, byte: B): invalid utf-8: invalid UTF-8 in field F near
 * byte index V", R counting records from 0 (the header), L the record's first line, B its first byte,
 * V the valid length of the field's content.
 */
export function csvInvalidUtf8Description(bytes: Uint8Array, delimiter: string): string {
  const bad = firstInvalidUtf8Offset(bytes);
  const separator = delimiter.charCodeAt(0);
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let record = 0;
  let line = 1;
  for (;;) {
    // Blank lines are skipped; they count as lines, not records.
    while (at < bytes.length && (bytes[at] === 0x0a || bytes[at] === 0x0d)) {
      if (bytes[at] === 0x0a) line++;
      at++;
    }
    const recordStart = at;
    const recordLine = line;
    let field = 0;
    let fieldStart = at;
    let contentLength = 0;
    let quoted = false;
    let badField = -1;
    let validUpTo = 0;
    for (; at < bytes.length; at++) {
      const byte = bytes[at]!;
      if (at === bad && badField < 0) {
        badField = field;
        validUpTo = contentLength;
      }
      if (quoted) {
        if (byte === 0x22) {
          if (bytes[at + 1] === 0x22) {
            at++;
            contentLength++;
          } else quoted = false;
        } else {
          if (byte === 0x0a) line++;
          contentLength++;
        }
        continue;
      }
      if (byte === 0x22 && at === fieldStart) {
        quoted = true;
      } else if (byte === separator) {
        field++;
        fieldStart = at + 1;
        contentLength = 0;
      } else if (byte === 0x0a || byte === 0x0d) {
        break;
      } else {
        contentLength++;
      }
    }
    if (badField >= 0 || at >= bytes.length) {
      const fieldIndex = Math.max(0, badField);
      return `CSV parse error: record ${record} (line ${recordLine}, field: ${fieldIndex}, byte: ${recordStart}): ` +
        `invalid utf-8: invalid UTF-8 in field ${fieldIndex} near byte index ${validUpTo}`;
    }
    record++;
  }
}
