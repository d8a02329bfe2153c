// Response compression (spec §4.1): a body is compressed when Accept-Encoding names br, gzip or
// deflate (negotiator parses it). Among acceptable encodings of equal quality gzip goes first (universally
// decoded), then br, then deflate; at the levels Meilisearch's HTTP layer (actix-http's encoder) uses: gzip
// and deflate at zlib's fastest level (1), brotli at quality 3 (a search answer of 20 npm hits, 3 KB: gzip
// 21-23 µs against 25-26 at zlib's default level, brotli 33 against 46 at quality 4, on the front thread,
// for every browser's search). Small bodies are compressed inline; large ones on libuv's thread pool so
// the front thread keeps serving (all of them there cost the front as much, and more CPU in all: DECISIONS).
import { promisify } from 'node:util';
import NegotiatorClass from 'negotiator';
import { brotliCompress, brotliCompressSync, constants, deflate, deflateSync, gzip, gzipSync } from 'node:zlib';

export type ResponseEncoding = 'gzip' | 'br' | 'deflate';

const PREFERENCE: readonly ResponseEncoding[] = ['gzip', 'br', 'deflate'];
/** Beyond this many bytes, compression leaves the front thread. */
export const INLINE_COMPRESSION_LIMIT = 64 * 1024;
/** actix-http's: brotli quality 3 (window 22, brotli's default), gzip and deflate at Compression::fast(). */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } };
const ZLIB_OPTIONS = { level: constants.Z_BEST_SPEED };

/**
 * The encoding to answer with, or null for identity (negotiator: q-values, `gzip;q=0` refuses gzip,
 * `*`, names in any case); on equal quality the PREFERENCE order decides.
 */
export function negotiateEncoding(acceptEncoding: string | null): ResponseEncoding | null {
  if (!acceptEncoding) return null;
  const found = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encoding(AVAILABLE, { preferred: AVAILABLE });
  return found === undefined || found === 'identity' ? null : found as ResponseEncoding;
}

/** negotiator 1.x takes the tie-break order as `preferred` (its @types do not say so yet). */
type NegotiatorWithPreference = { encoding(available: string[], options: { preferred: string[] }): string | undefined };
const Negotiator = NegotiatorClass as unknown as new (request: { headers: Record<string, string> }) => NegotiatorWithPreference;
/** Identity last: chosen only when nothing else is acceptable. */
const AVAILABLE = [...PREFERENCE, 'identity'];

/**
 * negotiateEncoding per Accept-Encoding value, remembered: clients send the same few values on every
 * request, and a Map lookup is ~10x cheaper than parsing (negotiator or the hand-written parser it
 * replaced, DECISIONS.md). Bounded: emptied when it holds MAX_REMEMBERED values (clients sending
 * random values only make it parse). Owned by the HTTP front (http-server.ts).
 */
export class EncodingNegotiation {
  private readonly remembered = new Map<string, ResponseEncoding | null>();

  negotiate(acceptEncoding: string): ResponseEncoding | null {
    if (acceptEncoding === '') return null;
    let encoding = this.remembered.get(acceptEncoding);
    if (encoding === undefined) {
      encoding = negotiateEncoding(acceptEncoding);
      if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
      this.remembered.set(acceptEncoding, encoding);
    }
    return encoding;
  }
}

const MAX_REMEMBERED = 64;

/** `body`: read before this returns (a reused buffer may be given). */
export function compressSync(body: string | Buffer, encoding: ResponseEncoding): Buffer {
  switch (encoding) {
    case 'gzip': return gzipSync(body, ZLIB_OPTIONS);
    case 'br': return brotliCompressSync(body, BROTLI_OPTIONS);
    case 'deflate': return deflateSync(body, ZLIB_OPTIONS);
  }
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const deflateAsync = promisify(deflate);

/** Output bytes per thread-pool round trip (each waits for the front's event loop; Node's default is 16 KiB). */
const OFF_THREAD_CHUNK_BYTES = 256 * 1024;

export function compressAsync(body: string | Buffer, encoding: ResponseEncoding): Promise<Buffer> {
  switch (encoding) {
    case 'gzip': return gzipAsync(body, { ...ZLIB_OPTIONS, chunkSize: OFF_THREAD_CHUNK_BYTES });
    case 'br': return brotliAsync(body, { ...BROTLI_OPTIONS, chunkSize: OFF_THREAD_CHUNK_BYTES });
    case 'deflate': return deflateAsync(body, { ...ZLIB_OPTIONS, chunkSize: OFF_THREAD_CHUNK_BYTES });
  }
}
