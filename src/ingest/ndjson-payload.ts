// NDJSON payloads, read like serde's value stream: objects separated by any whitespace, so blank lines,
// several objects on one line and pretty-printed objects spanning lines are all accepted.
import { DocumentText, documentTextAt, newBackslashCursor } from './canonical-elements.js';
import { SyntaxProblem, lineAndColumn, readValue, skipWhitespace } from './json-syntax-error.js';
import { isDocumentObject, type JsonDocument } from './json-payload.js';
import { malformedJsonDocuments, NOT_OBJECTS } from './payload-errors.js';

export function* ndjsonDocuments(text: string): Generator<JsonDocument> {
  for (const { document } of ndjsonValues(text)) yield document;
}

/** The documents for the update file: a line's own text when canonical, numbers kept as written (canonical-elements.ts). */
export function* ndjsonDocumentsForUpdateFile(text: string): Generator<JsonDocument | DocumentText> {
  const backslashes = newBackslashCursor();
  for (const { document, start } of ndjsonValues(text)) {
    yield documentTextAt(text, start, document, backslashes) ?? document;
  }
}

function* ndjsonValues(text: string): Generator<{ document: JsonDocument; start: number }> {
  let at = skipWhitespace(text, 0);
  while (at < text.length) {
    const lineEnd = nextLineEnd(text, at);
    // Fast path: the usual one-object-per-line; the slow scanner only runs on lines JSON.parse rejects.
    const fromLine = tryParse(text.slice(at, lineEnd));
    let value: unknown;
    const start = at;
    if (fromLine.ok) {
      value = fromLine.value;
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

function tryParse(line: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(line) };
  } catch {
    return { ok: false };
  }
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
