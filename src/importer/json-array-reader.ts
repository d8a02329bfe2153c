// A JSON array of documents, streamed: a byte-level splitter finds where each top-level element starts
// and ends (strings, escapes and nesting tracked; nothing parsed but the element itself, to check it is an
// object). Memory is bounded by the largest element (`maxRecordBytes`; a larger one is reported invalid
// and skipped, never held). A file holding a single object is one document, as the server takes it.
// No streaming JSON parser is installed; this splitter keeps the element's bytes as they are in the file.
import { ImportFailure } from './import-failure.js';
import { jsonObjectProblem, type ReadPosition, type SourceItem } from './records.js';

const enum State { Start, FirstElement, NextElement, InElement, AfterElement, End }

const SPACE = 32, TAB = 9, LF = 10, CR = 13;
const QUOTE = 34, BACKSLASH = 92, COMMA = 44;
const OPEN_BRACE = 123, CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;

function isSpace(byte: number): boolean {
  return byte === SPACE || byte === LF || byte === CR || byte === TAB;
}

export class JsonArraySplitter {
  private state: State;
  private line: number;
  private offset: number;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The element is a bare scalar (number, true, ...): it ends at a delimiter, which is not part of it. */
  private bareScalar = false;
  private single = false;
  private parts: Buffer[] = [];
  private partBytes = 0;
  private oversized = false;
  private elementLine = 0;
  private atContentStart: boolean;

  /** `start.offset` 0: the beginning of the file; else just after an element (where an import stopped). */
  constructor(start: ReadPosition, private readonly maxRecordBytes: number) {
    this.state = start.offset === 0 ? State.Start : State.AfterElement;
    this.line = start.line;
    this.offset = start.offset;
    this.atContentStart = start.offset === 0;
  }

  push(chunk: Buffer): SourceItem[] {
    const out: SourceItem[] = [];
    let elementStart = this.state === State.InElement ? 0 : -1;
    let at = 0;
    if (this.atContentStart) {
      this.atContentStart = false;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) at = 3;
    }
    const length = chunk.length;
    while (at < length) {
      const byte = chunk[at]!;
      if (this.state === State.InElement) {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.inString = false;
            if (this.depth === 0) {
              out.push(this.finishElement(chunk, elementStart, at + 1));
              elementStart = -1;
            }
          } else if (byte === LF) this.line++;
          at++;
          continue;
        }
        if (this.bareScalar) {
          if (byte === COMMA || byte === CLOSE_BRACKET || isSpace(byte)) {
            out.push(this.finishElement(chunk, elementStart, at));
            elementStart = -1;
            continue; // the delimiter is read again in AfterElement
          }
          at++;
          continue;
        }
        if (byte === QUOTE) this.inString = true;
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
        else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
          this.depth--;
          if (this.depth === 0) {
            out.push(this.finishElement(chunk, elementStart, at + 1));
            elementStart = -1;
          }
        } else if (byte === LF) this.line++;
        at++;
        continue;
      }
      if (isSpace(byte)) {
        if (byte === LF) this.line++;
        at++;
        continue;
      }
      switch (this.state) {
        case State.Start:
          if (byte === OPEN_BRACKET) this.state = State.FirstElement;
          else if (byte === OPEN_BRACE) {
            this.single = true;
            elementStart = at;
            this.beginElement(byte);
          } else throw this.unexpected(byte, 'a JSON array of documents (`[`) or one document (`{`)');
          at++;
          break;
        case State.FirstElement:
        case State.NextElement:
          if (byte === CLOSE_BRACKET) {
            if (this.state === State.NextElement) throw this.unexpected(byte, 'a document after `,`');
            this.state = State.End;
            at++;
            break;
          }
          if (byte === COMMA) throw this.unexpected(byte, 'a document');
          elementStart = at;
          this.beginElement(byte);
          at++;
          break;
        case State.AfterElement:
          if (byte === COMMA) this.state = State.NextElement;
          else if (byte === CLOSE_BRACKET) this.state = State.End;
          else throw this.unexpected(byte, '`,` or `]` after a document');
          at++;
          break;
        case State.End:
          throw this.unexpected(byte, 'nothing after the end of the array');
      }
    }
    if (this.state === State.InElement && elementStart !== -1) this.keep(chunk.subarray(elementStart));
    this.offset += length;
    return out;
  }

  /** At the end of the content: throws when the array is not complete. */
  end(): SourceItem[] {
    switch (this.state) {
      case State.End:
        return [];
      case State.AfterElement:
        if (this.single) return [];
        break;
      case State.InElement:
        if (this.bareScalar) {
          const item = this.finishElement(Buffer.alloc(0), 0, 0);
          if (!this.single) throw new ImportFailure(`line ${this.line}: the file ends inside the array (no \`]\`)`);
          return [item];
        }
        throw new ImportFailure(`line ${this.elementLine}: the file ends inside the document that starts on this line`);
      case State.Start:
        throw new ImportFailure('the file is empty: expected a JSON array of documents');
      default:
        break;
    }
    throw new ImportFailure(`line ${this.line}: the file ends inside the array (no \`]\`)`);
  }

  private beginElement(byte: number): void {
    this.state = State.InElement;
    this.elementLine = this.line;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.bareScalar = false;
    this.parts = [];
    this.partBytes = 0;
    this.oversized = false;
    if (byte === QUOTE) this.inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth = 1;
    else this.bareScalar = true;
  }

  private keep(bytes: Buffer): void {
    if (this.oversized) return;
    this.partBytes += bytes.length;
    if (this.partBytes > this.maxRecordBytes) {
      this.oversized = true;
      this.parts = [];
    } else {
      this.parts.push(bytes);
    }
  }

  private finishElement(chunk: Buffer, elementStart: number, endInChunk: number): SourceItem {
    this.keep(chunk.subarray(Math.max(elementStart, 0), endInChunk));
    this.state = this.single ? State.End : State.AfterElement;
    const end = { offset: this.offset + endInChunk, line: this.line };
    const line = this.elementLine;
    if (this.oversized) {
      this.parts = [];
      return { kind: 'invalid', line, end, reason: `the document is larger than the largest record allowed (${this.maxRecordBytes} bytes)` };
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    const problem = jsonObjectProblem(bytes);
    if (problem !== null) return { kind: 'invalid', line, end, reason: problem };
    return { kind: 'record', bytes, line, end };
  }

  private unexpected(byte: number, expected: string): ImportFailure {
    const shown = byte >= 32 && byte < 127 ? `\`${String.fromCharCode(byte)}\`` : `byte 0x${byte.toString(16)}`;
    return new ImportFailure(`line ${this.line}: expected ${expected}, found ${shown}`);
  }
}

export async function* jsonArrayRecords(
  chunks: AsyncIterable<Buffer>,
  start: ReadPosition,
  maxRecordBytes: number,
): AsyncGenerator<SourceItem> {
  const splitter = new JsonArraySplitter(start, maxRecordBytes);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  yield* splitter.end();
}
