// Writes decoded documents as NDJSON into <update-files>/<uuid>.ndjson and makes the file durable (file and
// directory fsynced) before the task referencing it is enqueued: a task must never point at a lost file.
import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DocumentText } from './canonical-elements.js';

const FLUSH_CHARS = 1 << 20;

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
      pending += (document instanceof DocumentText ? document.json : JSON.stringify(document)) + '\n';
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
