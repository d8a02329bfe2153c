// Writes decoded documents as NDJSON into <update-files>/<uuid>.ndjson and makes the file durable (file and
// directory fsynced) before the task referencing it is enqueued: a task must never point at a lost file.
// A line starting with a space (EXACT_NUMBERS_MARK) holds a number that JSON.parse would round or
// rewrite (exact-json.ts): the scheduler parses only those lines with parseExactJson, the others
// with JSON.parse alone (a JSON.stringify output or a copy the scanner found exact).
import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DocumentText } from './canonical-elements.js';

const FLUSH_CHARS = 1 << 20;

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
    let pending = '';
    for await (const document of documents) {
      if (!(document instanceof DocumentText)) pending += JSON.stringify(document) + '\n';
      else if (document.exactNumbers) pending += EXACT_NUMBERS_MARK + document.json + '\n';
      else pending += document.json + '\n';
      documentCount++;
      if (pending.length >= FLUSH_CHARS) {
        await file.write(pending);
        pending = '';
      }
    }
    if (pending.length > 0) await file.write(pending);
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

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
