// NDJSON: one document per line. Lines are split on \n (a trailing \r is dropped), blank lines are
// skipped, each line is checked to be one JSON object. A line longer than `maxRecordBytes` is never held
// whole: it is reported invalid and its bytes are dropped as they come.
import { jsonObjectProblem, type ReadPosition, type SourceItem } from './records.js';

export async function* ndjsonRecords(
  chunks: AsyncIterable<Buffer>,
  start: ReadPosition,
  maxRecordBytes: number,
): AsyncGenerator<SourceItem> {
  let chunkOffset = start.offset;
  let line = start.line;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  const item = (bytes: Buffer, end: number, terminated: boolean): SourceItem | null => {
    const here = line;
    const endPosition = { offset: end, line: terminated ? here + 1 : here };
    if (oversized) {
      return { kind: 'invalid', line: here, end: endPosition, reason: `the line is longer than the largest record allowed (${maxRecordBytes} bytes)` };
    }
    let body = bytes;
    if (body.length > 0 && body[body.length - 1] === 13) body = body.subarray(0, body.length - 1);
    if (here === 1 && body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
    if (isBlank(body)) return null;
    const problem = jsonObjectProblem(body);
    if (problem !== null) return { kind: 'invalid', line: here, end: endPosition, reason: problem };
    return { kind: 'record', bytes: body, line: here, end: endPosition };
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1) {
        if (from < chunk.length && !oversized) {
          pending.push(chunk.subarray(from));
          pendingBytes += chunk.length - from;
          if (pendingBytes > maxRecordBytes) {
            oversized = true;
            pending = [];
          }
        }
        break;
      }
      const piece = chunk.subarray(from, newline);
      if (!oversized && pendingBytes + piece.length > maxRecordBytes) oversized = true;
      const bytes = oversized ? Buffer.alloc(0) : pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      const out = item(bytes, chunkOffset + newline + 1, true);
      if (out !== null) yield out;
      line++;
      pending = [];
      pendingBytes = 0;
      oversized = false;
      from = newline + 1;
    }
    chunkOffset += chunk.length;
  }
  if (pendingBytes > 0 || oversized) {
    const out = item(Buffer.concat(pending), chunkOffset, false);
    if (out !== null) yield out;
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  return true;
}
