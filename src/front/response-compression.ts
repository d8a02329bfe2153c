// Response compression (spec §4.1): a body is compressed when Accept-Encoding names br, gzip or
// deflate. Among acceptable encodings of equal quality gzip goes first (fast at its default level
// and universally decoded), then br (at a speed-oriented quality), then deflate. Small bodies are
// compressed inline; large ones on libuv's thread pool so the front thread keeps serving.
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, deflate, deflateSync, gzip, gzipSync } from 'node:zlib';

export type ResponseEncoding = 'gzip' | 'br' | 'deflate';

const PREFERENCE: readonly ResponseEncoding[] = ['gzip', 'br', 'deflate'];
/** Beyond this many bytes, compression leaves the front thread. */
export const INLINE_COMPRESSION_LIMIT = 64 * 1024;
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * The encoding to answer with, or null for identity. Honours q-values (`gzip;q=0` refuses gzip) and
 * `*`; on equal quality the PREFERENCE order decides.
 */
export function negotiateEncoding(acceptEncoding: string | null): ResponseEncoding | null {
  if (!acceptEncoding) return null;
  const quality = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [rawName, ...params] = part.trim().split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key?.trim().toLowerCase() === 'q') q = Number(value);
    }
    quality.set(name, Number.isFinite(q) ? q : 0);
  }
  let best: ResponseEncoding | null = null;
  let bestQuality = 0;
  for (const encoding of PREFERENCE) {
    const q = quality.get(encoding) ?? quality.get('*') ?? 0;
    if (q > bestQuality) {
      best = encoding;
      bestQuality = q;
    }
  }
  return best;
}

export function compressSync(body: string, encoding: ResponseEncoding): Buffer {
  switch (encoding) {
    case 'gzip': return gzipSync(body);
    case 'br': return brotliCompressSync(body, BROTLI_OPTIONS);
    case 'deflate': return deflateSync(body);
  }
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const deflateAsync = promisify(deflate);

/** Output bytes per thread-pool round trip (each waits for the front's event loop; Node's default is 16 KiB). */
const OFF_THREAD_CHUNK_BYTES = 256 * 1024;

export function compressAsync(body: string, encoding: ResponseEncoding): Promise<Buffer> {
  switch (encoding) {
    case 'gzip': return gzipAsync(body, { chunkSize: OFF_THREAD_CHUNK_BYTES });
    case 'br': return brotliAsync(body, { ...BROTLI_OPTIONS, chunkSize: OFF_THREAD_CHUNK_BYTES });
    case 'deflate': return deflateAsync(body, { chunkSize: OFF_THREAD_CHUNK_BYTES });
  }
}
