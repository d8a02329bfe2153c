// NDJSON payloads, read like serde's value stream: objects separated by any whitespace, so blank lines,
// several objects on one line and pretty-printed objects spanning lines are all accepted.
import { isAscii } from 'node:buffer';
import { DocumentText, documentTextAt, newBackslashCursor } from './canonical-elements.js';
import { jsonDepthProblem } from './json-depth.js';
import { SyntaxProblem, lineAndColumn, readValue, skipWhitespace } from './json-syntax-error.js';
import { isDocumentObject, type JsonDocument } from './json-payload.js';
import { malformedJsonDocuments, NOT_OBJECTS } from './payload-errors.js';

export function* ndjsonDocuments(text: string): Generator<JsonDocument> {
  for (const { document } of ndjsonValues(text)) yield document;
}

/**
 * The documents for the update file: a line's own text when canonical, numbers kept as written
 * (canonical-elements.ts). From `from` (a character offset at the start of a line; 0: the whole text).
 */
export function* ndjsonDocumentsForUpdateFile(text: string, from = 0): Generator<JsonDocument | DocumentText> {
  const backslashes = newBackslashCursor();
  for (const { document, start } of ndjsonValues(text, from)) {
    yield documentTextAt(text, start, document, backslashes) ?? document;
  }
}

/**
 * The same documents read from the payload's bytes one line at a time, for the usual payload of one
 * object per line: a line of ASCII bytes becomes a one-byte string (latin1), another line is decoded
 * alone. Decoding the whole payload made one two-byte string of it as soon as one line was not ASCII
 * (2% of npm's rows are not), which every later step (parse, scan, the file's write, the scheduler's
 * read) then paid for. From the first line this path does not take as it is (not one JSON value, not
 * an object, nested too deep), the documents are those of ndjsonDocumentsForUpdateFile over
 * `wholeText()` (the whole payload decoded and checked, which throws what the payload is refused for)
 * from that line on: errors, their lines and columns, are the whole text's, as if read that way from
 * the start. `payload` must be valid UTF-8.
 */
export function* ndjsonDocumentsFromLines(payload: Buffer, wholeText: () => string): Generator<JsonDocument | DocumentText> {
  let lineStart = 0;
  while (lineStart < payload.length) {
    let lineEnd = payload.indexOf(NEWLINE, lineStart);
    if (lineEnd < 0) lineEnd = payload.length;
    let start = lineStart;
    while (start < lineEnd && isJsonWhitespace(payload[start]!)) start++;
    if (start < lineEnd) {
      const line = isAscii(payload.subarray(start, lineEnd)) ? payload.toString('latin1', start, lineEnd) : payload.toString('utf8', start, lineEnd);
      const value = jsonDepthProblem(line) === null ? tryParse(line) : NOT_PARSED;
      if (value === NOT_PARSED || !isDocumentObject(value)) {
        // The line's offset in the decoded text: the length of its decoded prefix (lines begin on a character).
        yield* ndjsonDocumentsForUpdateFile(wholeText(), lineStart === 0 ? 0 : payload.toString('utf8', 0, lineStart).length);
        return;
      }
      yield documentTextAt(line, 0, value, newBackslashCursor()) ?? value;
    }
    lineStart = lineEnd + 1;
  }
}

const NEWLINE = 0x0a;
const NOT_PARSED = Symbol('not parsed');

/** JSON's whitespace (serde's and skipWhitespace's): space, tab, carriage return, line feed. */
function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

function tryParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return NOT_PARSED;
  }
}

function* ndjsonValues(text: string, from = 0): Generator<{ document: JsonDocument; start: number }> {
  let at = skipWhitespace(text, from);
  while (at < text.length) {
    const lineEnd = nextLineEnd(text, at);
    // Fast path: the usual one-object-per-line; the slow scanner only runs on lines JSON.parse rejects.
    const fromLine = tryParse(text.slice(at, lineEnd));
    let value: unknown;
    const start = at;
    if (fromLine !== NOT_PARSED) {
      value = fromLine;
      at = lineEnd;
    } else {
      const end = scanValue(text, at);
      value = JSON.parse(text.slice(at, end));
      at = end;
    }
    if (!isDocumentObject(value)) throw malformedJsonDocuments('ndjson', NOT_OBJECTS);
    yield { document: value, start };
    at = skipWhitespace(text, at);
  }
}

function nextLineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline;
}

function scanValue(text: string, at: number): number {
  try {
    return readValue(text, at);
  } catch (cause) {
    if (!(cause instanceof SyntaxProblem)) throw cause;
    const { line, column } = lineAndColumn(text, cause.offset);
    throw malformedJsonDocuments('ndjson', `${cause.description} at line ${line} column ${column}`);
  }
}
