// Response compression (spec §4.1): a body is compressed when Accept-Encoding names br, gzip or
// deflate (negotiator parses it). Among acceptable encodings of equal quality gzip goes first (universally
// decoded), then br, then deflate; at the levels Meilisearch's HTTP layer (actix-http's encoder) uses: gzip
// and deflate at zlib's fastest level (1), brotli at quality 3 (a search answer of 20 npm hits, 3 KB: gzip
// 21-23 µs against 25-26 at zlib's default level, brotli 33 against 46 at quality 4, on the front thread,
// for every browser's search). Small bodies are compressed inline; large ones on libuv's thread pool so
// the front thread keeps serving (all of them there cost the front as much, and more CPU in all: DECISIONS).
import { promisify } from 'node:util';
import NegotiatorClass from 'negotiator';
import { brotliCompress, brotliCompressSync, constants, createDeflate, createGzip, deflate, deflateSync, gzip, gzipSync } from 'node:zlib';

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

/**
 * The front's inline compression: gzip and deflate through one zlib context each, reset after every
 * answer, instead of gzipSync / deflateSync, which make a stream object and a new deflate state per
 * call (~270 KiB of deflate state allocated, initialized and freed: on an idle server a gzipped /health
 * cost the front 520-590 µs of CPU, and zlib was 508 of 1,319 µs per request in a profiled run). Brotli
 * stays brotliCompressSync (a brotli context reset per answer cost 30-145x a new one). Owner: the HTTP front (createHttpApp), one per server, on the front
 * thread; size: two zlib states and one OUTPUT_BYTES buffer, for the server's life.
 */
export class ResponseCompressors {
  private gzip: ReusedZlib | null = ReusedZlib.create(() => createGzip(ZLIB_OPTIONS));
  private deflate: ReusedZlib | null = ReusedZlib.create(() => createDeflate(ZLIB_OPTIONS));
  /** Their output, copied out per answer. */
  private readonly output = Buffer.allocUnsafe(OUTPUT_BYTES);

  /** compressSync's bytes (any of them decodes to `body`); `body` is read before this returns. */
  compress(body: string | Buffer, encoding: ResponseEncoding): Buffer {
    if (encoding === 'br') return brotliCompressSync(body, BROTLI_OPTIONS);
    const context = encoding === 'gzip' ? this.gzip : this.deflate;
    const compressed = context?.compress(typeof body === 'string' ? Buffer.from(body) : body, this.output) ?? null;
    if (compressed !== null) return compressed;
    // The context failed (it is dropped: the next answers take a new one); a Node without the internals has none, ever.
    if (context !== null) {
      if (encoding === 'gzip') this.gzip = ReusedZlib.create(() => createGzip(ZLIB_OPTIONS));
      else this.deflate = ReusedZlib.create(() => createDeflate(ZLIB_OPTIONS));
    }
    return compressSync(body, encoding);
  }
}

/** Output bytes per zlib call: an inline answer's (INLINE_COMPRESSION_LIMIT) compressed size in one call, nearly always. */
const OUTPUT_BYTES = INLINE_COMPRESSION_LIMIT + 1024;

/**
 * What ReusedZlib calls on a node:zlib object: its native handle's writeSync and reset, and the
 * Uint32Array the handle reports into ([output bytes left, input bytes left]), as node:zlib's own sync
 * path does. Not documented: ReusedZlib.create checks they are there.
 */
interface ZlibInternals {
  _handle?: { writeSync?: unknown; reset?: unknown };
  _writeState?: unknown;
  on(event: 'error', listener: (cause: Error) => void): unknown;
}

interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inputOffset: number, inputLength: number, output: Uint8Array, outputOffset: number, outputLength: number): void;
  reset(): void;
}

/** One zlib compression context used for answer after answer (ResponseCompressors). */
export class ReusedZlib {
  private failure: Error | null = null;

  private constructor(private readonly handle: ZlibHandle, private readonly state: Uint32Array) {}

  /** A context from `make`'s zlib object, or null when that object does not have what this needs. */
  static create(make: () => unknown): ReusedZlib | null {
    const engine = make() as ZlibInternals;
    const handle = engine._handle;
    const state = engine._writeState;
    if (handle === undefined || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) return null;
    const context = new ReusedZlib(handle as ZlibHandle, state);
    // The handle reports a zlib error through the object's 'error' event (no listener: an uncaught exception).
    engine.on('error', (cause) => { context.failure = cause; });
    return context;
  }

  /** `input` compressed whole (a buffer of its own), or null when zlib failed (the context is then not to be used again). */
  compress(input: Uint8Array, output: Buffer): Buffer | null {
    if (this.failure !== null) return null;
    const handle = this.handle;
    let parts: Buffer[] | null = null;
    let inputOffset = 0;
    let inputLeft = input.length;
    try {
      for (;;) {
        handle.writeSync(constants.Z_FINISH, input, inputOffset, inputLeft, output, 0, output.length);
        if (this.failure !== null) return null;
        const outputLeft = this.state[0]!;
        const left = this.state[1]!;
        const part = Buffer.from(output.subarray(0, output.length - outputLeft));
        inputOffset += inputLeft - left;
        inputLeft = left;
        if (outputLeft !== 0) {
          handle.reset();
          if (parts === null) return part;
          parts.push(part);
          return Buffer.concat(parts);
        }
        (parts ??= []).push(part);
      }
    } catch (cause) {
      this.failure = cause as Error;
      return null;
    }
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
