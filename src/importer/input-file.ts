// The file being imported: opened once to learn its size, compression (gzip by its magic bytes, not
// its name) and format, then streamed as decompressed chunks from a byte offset (for --resume).
// Offsets are always counted in DECOMPRESSED bytes from the start of the file's content.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import { ImportFailure } from './import-failure.js';

export type InputFormat = 'json' | 'ndjson' | 'csv';
export const INPUT_FORMATS: readonly InputFormat[] = ['json', 'ndjson', 'csv'];

const FORMAT_BY_EXTENSION: Record<string, InputFormat> = {
  json: 'json', ndjson: 'ndjson', jsonl: 'ndjson', csv: 'csv',
};

/** Bytes of the raw file hashed to recognise it again on --resume. */
const HEAD_BYTES = 64 * 1024;

export interface InputFile {
  path: string;
  /** Size of the file on disk (compressed bytes for gzip). */
  size: number;
  mtimeMs: number;
  gzip: boolean;
  format: InputFormat;
  /** sha256 of the first 64 KiB of the raw file. */
  headHash: string;
}

export interface InputChunks {
  chunks: AsyncIterable<Buffer>;
  /** Raw (on-disk) bytes read so far, for the progress bar. */
  rawBytesRead(): number;
  close(): void;
}

export async function openInputFile(path: string, formatOverride: InputFormat | null): Promise<InputFile> {
  let info;
  try {
    info = await stat(path);
  } catch (cause) {
    throw new ImportFailure(`cannot read ${path}: ${describeFsError(cause)}`);
  }
  if (info.isDirectory()) throw new ImportFailure(`cannot read ${path}: it is a directory`);
  let head: Buffer;
  try {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(HEAD_BYTES, info.size));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (cause) {
    throw new ImportFailure(`cannot read ${path}: ${describeFsError(cause)}`);
  }
  const gzip = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  const format = formatOverride ?? formatFromName(path, gzip);
  return {
    path, size: info.size, mtimeMs: info.mtimeMs, gzip, format,
    headHash: createHash('sha256').update(head).digest('hex'),
  };
}

function formatFromName(path: string, gzip: boolean): InputFormat {
  const parts = basename(path).toLowerCase().split('.');
  if (parts.length > 1 && (parts.at(-1) === 'gz' || parts.at(-1) === 'gzip')) parts.pop();
  const extension = parts.length > 1 ? parts.at(-1)! : '';
  const format = FORMAT_BY_EXTENSION[extension];
  if (format === undefined) {
    throw new ImportFailure(
      `cannot tell the format of ${path} from its name${gzip ? ' (gzip-compressed)' : ''}: ` +
      'name it .json, .ndjson, .jsonl or .csv (optionally .gz), or pass --format json|ndjson|csv',
      2,
    );
  }
  return format;
}

/**
 * The file's content from `offset` (decompressed bytes) on. A plain file is read from that position; a
 * gzip file is decompressed from its start and the first `offset` bytes are dropped.
 */
export function readInputFrom(input: InputFile, offset: number): InputChunks {
  // No 'data' listener on the file stream: one would switch it to flowing mode and read the whole file
  // into memory ahead of the consumer. Raw bytes are counted as the consumer takes them.
  const raw = createReadStream(input.path, { start: input.gzip ? 0 : offset, highWaterMark: 256 * 1024 });
  if (!input.gzip) {
    let rawRead = offset;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of raw) {
        rawRead += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    }
    return { chunks: wrapErrors(counted(), input.path), rawBytesRead: () => rawRead, close: () => raw.destroy() };
  }
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  raw.on('error', (cause) => gunzip.destroy(cause));
  raw.pipe(gunzip);
  return {
    chunks: wrapErrors(skipBytes(gunzip, offset), input.path),
    // The compressed bytes the decompressor has taken in.
    rawBytesRead: () => gunzip.bytesWritten,
    close: () => { raw.destroy(); gunzip.destroy(); },
  };
}

async function* skipBytes(source: AsyncIterable<Buffer>, count: number): AsyncGenerator<Buffer> {
  let toSkip = count;
  for await (const chunk of source) {
    if (toSkip >= chunk.length) {
      toSkip -= chunk.length;
      continue;
    }
    yield toSkip > 0 ? chunk.subarray(toSkip) : chunk;
    toSkip = 0;
  }
  if (toSkip > 0) throw new ImportFailure(`the file ends before byte ${count}, where the interrupted import stopped`);
}

async function* wrapErrors(source: AsyncIterable<Buffer>, path: string): AsyncGenerator<Buffer> {
  try {
    yield* source;
  } catch (cause) {
    if (cause instanceof ImportFailure) throw cause;
    const code = (cause as { code?: string }).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code === 'ERR_ZLIB_INITIALIZATION_FAILED') {
      throw new ImportFailure(`cannot decompress ${path}: ${(cause as Error).message} (a truncated or corrupt gzip file)`);
    }
    throw new ImportFailure(`cannot read ${path}: ${describeFsError(cause)}`);
  }
}

/** The bytes just before `offset` of a plain file (a record boundary check on --resume); null for gzip. */
export async function byteBefore(input: InputFile, offset: number): Promise<number | null> {
  if (input.gzip || offset === 0) return null;
  const handle = await open(input.path, 'r');
  try {
    const buffer = Buffer.alloc(1);
    const { bytesRead } = await handle.read(buffer, 0, 1, offset - 1);
    return bytesRead === 1 ? buffer[0]! : null;
  } finally {
    await handle.close();
  }
}

export function describeFsError(cause: unknown): string {
  const error = cause as NodeJS.ErrnoException;
  switch (error.code) {
    case 'ENOENT': return 'no such file';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'it is a directory';
    default: return error.message ?? String(cause);
  }
}
