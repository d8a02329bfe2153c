// Writes decoded documents as NDJSON into <update-files>/<uuid>.ndjson and makes the file durable (file and
// directory fsynced) before the task referencing it is enqueued: a task must never point at a lost file.
// A line starting with a space (EXACT_NUMBERS_MARK) holds a number that JSON.parse would round or
// rewrite (exact-json.ts): the scheduler parses only those lines with parseExactJson, the others
// with JSON.parse alone (a JSON.stringify output or a copy the scanner found exact).
import { randomUUID } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DocumentText } from './canonical-elements.js';

/**
 * Bytes gathered before each write to the file. The lines are written into this buffer one by one
 * (a one-byte string copies as it is): concatenated into one string first, a single line that was
 * not ASCII made the whole rope a two-byte string to flatten and encode again.
 */
const FLUSH_BYTES = 1 << 20;
/** UTF-8 bytes per UTF-16 code unit at most: what a line may take before it is encoded. */
const MAX_UTF8_PER_UNIT = 3;
const NEWLINE = 0x0a;

/** Leads an update file line whose numbers must be read with parseExactJson; JSON ignores it. */
export const EXACT_NUMBERS_MARK = ' ';

export interface WrittenUpdateFile {
  updateFile: string;
  documentCount: number;
}

export async function writeUpdateFile(
  directory: string,
  documents: Iterable<unknown> | AsyncIterable<unknown>,
): Promise<WrittenUpdateFile> {
  const updateFile = `${randomUUID()}.ndjson`;
  const path = join(directory, updateFile);
  const file = await open(path, 'wx');
  let documentCount = 0;
  try {
    // Owner: this call; FLUSH_BYTES plus one line's room, reused after each write, dropped at the end.
    const buffer = Buffer.allocUnsafe(FLUSH_BYTES + FLUSH_BYTES / 4);
    let used = 0;
    for await (const document of documents) {
      let json: string;
      let exact = false;
      if (!(document instanceof DocumentText)) json = JSON.stringify(document);
      else {
        json = document.json;
        exact = document.exactNumbers;
      }
      documentCount++;
      const most = json.length * MAX_UTF8_PER_UNIT + 2;
      if (used + most > buffer.length) {
        await writeAll(file, buffer, used);
        used = 0;
        if (most > buffer.length) {
          // A line larger than the buffer goes to the file as it is.
          await file.write(exact ? EXACT_NUMBERS_MARK + json + '\n' : json + '\n');
          continue;
        }
      }
      if (exact) used += buffer.write(EXACT_NUMBERS_MARK, used, 'latin1');
      used += buffer.write(json, used, 'utf8');
      buffer[used++] = NEWLINE;
      if (used >= FLUSH_BYTES) {
        await writeAll(file, buffer, used);
        used = 0;
      }
    }
    if (used > 0) await writeAll(file, buffer, used);
    await file.sync();
  } catch (cause) {
    await file.close().catch(() => undefined);
    await rm(path, { force: true });
    throw cause;
  }
  await file.close();
  await syncDirectory(directory);
  return { updateFile, documentCount };
}

/** The first `length` bytes of `buffer`, all of them (a write may take fewer). */
async function writeAll(file: FileHandle, buffer: Buffer, length: number): Promise<void> {
  let written = 0;
  while (written < length) written += (await file.write(buffer, written, length - written)).bytesWritten;
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
