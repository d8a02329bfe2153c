// What the format readers yield: one document's bytes as they are in the file (never re-serialized, so
// numbers keep their literal text and the server parses exactly what the file says), or an invalid record
// with its line. Offsets are decompressed bytes from the start of the content; lines are 1-based.
import { isUtf8 } from 'node:buffer';

export interface ReadPosition {
  /** Byte offset of the next byte to read. */
  offset: number;
  /** Line number of that byte. */
  line: number;
}

export interface DocumentRecord {
  kind: 'record';
  bytes: Buffer;
  /** Line where the record starts. */
  line: number;
  /** Position just after the record (where a resumed import starts reading). */
  end: ReadPosition;
}

export interface InvalidRecord {
  kind: 'invalid';
  line: number;
  end: ReadPosition;
  reason: string;
}

export type SourceItem = DocumentRecord | InvalidRecord;

/** Null when `bytes` is one JSON object, else why not (JSON.parse's message, or what it is instead). */
export function jsonObjectProblem(bytes: Buffer): string | null {
  if (!isUtf8(bytes)) return 'not valid UTF-8';
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    return `invalid JSON: ${(cause as Error).message}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `a document must be a JSON object, found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`;
  }
  return null;
}

export function countNewlines(bytes: Buffer, from = 0, to = bytes.length): number {
  let count = 0;
  for (let at = bytes.indexOf(10, from); at !== -1 && at < to; at = bytes.indexOf(10, at + 1)) count++;
  return count;
}
