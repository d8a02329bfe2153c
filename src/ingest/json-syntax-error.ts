// JSON.parse says what is wrong in V8's words; Meilisearch users see serde_json's words
// ("expected `,` or `]` at line 1 column 4"). Only called once JSON.parse has failed, so speed is irrelevant:
// this re-reads the text with a small validator and reports the first problem the way serde would.

class SyntaxProblem extends Error {
  constructor(readonly description: string, readonly offset: number) {
    super(description);
  }
}

/** serde_json-style description of the first syntax error in `text`, or null when `text` is valid JSON. */
export function describeJsonSyntaxError(text: string): string | null {
  try {
    const end = readValue(text, skipWhitespace(text, 0));
    const rest = skipWhitespace(text, end);
    if (rest < text.length) throw new SyntaxProblem('trailing characters', rest);
    return null;
  } catch (cause) {
    if (!(cause instanceof SyntaxProblem)) throw cause;
    const { line, column } = lineAndColumn(text, cause.offset);
    return `${cause.description} at line ${line} column ${column}`;
  }
}

/**
 * Reads one JSON value starting at `start` (whitespace already skipped) and returns the offset just after it.
 * Exported for the NDJSON reader, which splits a stream of concatenated values.
 */
export function readValue(text: string, start: number): number {
  if (start >= text.length) throw new SyntaxProblem('EOF while parsing a value', text.length);
  const char = text[start];
  if (char === '{') return readObject(text, start);
  if (char === '[') return readArray(text, start);
  if (char === '"') return readString(text, start);
  if (char === '-' || isDigit(char)) return readNumber(text, start);
  for (const literal of ['true', 'false', 'null']) {
    if (char === literal[0]) return readLiteral(text, start, literal);
  }
  throw new SyntaxProblem('expected value', start);
}

export { SyntaxProblem };

function readObject(text: string, start: number): number {
  let at = skipWhitespace(text, start + 1);
  if (text[at] === '}') return at + 1;
  for (;;) {
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing an object', text.length);
    if (text[at] !== '"') throw new SyntaxProblem(text[at] === '}' ? 'trailing comma' : 'key must be a string', at);
    at = skipWhitespace(text, readString(text, at));
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing an object', text.length);
    if (text[at] !== ':') throw new SyntaxProblem('expected `:`', at);
    at = skipWhitespace(text, readValue(text, skipWhitespace(text, at + 1)));
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing an object', text.length);
    if (text[at] === '}') return at + 1;
    if (text[at] !== ',') throw new SyntaxProblem('expected `,` or `}`', at);
    at = skipWhitespace(text, at + 1);
  }
}

function readArray(text: string, start: number): number {
  let at = skipWhitespace(text, start + 1);
  if (text[at] === ']') return at + 1;
  for (;;) {
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing a list', text.length);
    if (text[at] === ']') throw new SyntaxProblem('trailing comma', at);
    at = skipWhitespace(text, readValue(text, at));
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing a list', text.length);
    if (text[at] === ']') return at + 1;
    if (text[at] !== ',') throw new SyntaxProblem('expected `,` or `]`', at);
    at = skipWhitespace(text, at + 1);
  }
}

const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

function readString(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing a string', text.length);
    const code = text.charCodeAt(at);
    if (code === 0x22) return at + 1;
    if (code < 0x20) throw new SyntaxProblem('control character (\\u0000-\\u001F) found while parsing a string', at);
    if (code === 0x5c) {
      const escaped = text[at + 1];
      if (escaped === undefined) throw new SyntaxProblem('EOF while parsing a string', text.length);
      if (escaped === 'u') {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          if (at + 6 > text.length) throw new SyntaxProblem('EOF while parsing a string', text.length);
          throw new SyntaxProblem('invalid escape', at + 1);
        }
        at += 6;
        continue;
      }
      if (!SIMPLE_ESCAPES.has(escaped)) throw new SyntaxProblem('invalid escape', at + 1);
      at += 2;
      continue;
    }
    at++;
  }
}

function readNumber(text: string, start: number): number {
  let at = start;
  if (text[at] === '-') at++;
  if (at >= text.length) throw new SyntaxProblem('EOF while parsing a value', text.length);
  if (text[at] === '0') {
    at++;
    if (isDigit(text[at])) throw new SyntaxProblem('invalid number', at);
  } else if (isDigit(text[at])) {
    while (isDigit(text[at])) at++;
  } else {
    throw new SyntaxProblem('invalid number', at);
  }
  if (text[at] === '.') {
    at++;
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing a value', text.length);
    if (!isDigit(text[at])) throw new SyntaxProblem('invalid number', at);
    while (isDigit(text[at])) at++;
  }
  if (text[at] === 'e' || text[at] === 'E') {
    at++;
    if (text[at] === '+' || text[at] === '-') at++;
    if (at >= text.length) throw new SyntaxProblem('EOF while parsing a value', text.length);
    if (!isDigit(text[at])) throw new SyntaxProblem('invalid number', at);
    while (isDigit(text[at])) at++;
  }
  return at;
}

function readLiteral(text: string, start: number, literal: string): number {
  for (let i = 1; i < literal.length; i++) {
    if (start + i >= text.length) throw new SyntaxProblem('EOF while parsing a value', text.length);
    if (text[start + i] !== literal[i]) throw new SyntaxProblem('expected ident', start + i);
  }
  return start + literal.length;
}

export function skipWhitespace(text: string, start: number): number {
  let at = start;
  while (at < text.length) {
    const char = text[at];
    if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') break;
    at++;
  }
  return at;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

/** serde counts lines from 1 and columns from 1 at the offending character (0 when the line is empty at EOF). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = offset >= text.length ? end - lineStart : offset - lineStart + 1;
  return { line, column };
}
