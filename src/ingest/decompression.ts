// Request bodies may be compressed (Content-Encoding gzip, deflate = zlib stream, br); the size limit counts
// DECODED bytes, so the decoder itself is bounded and a zip bomb never gets fully inflated.
import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions, type BrotliOptions } from 'node:zlib';
import { SkeinError } from '../errors/index.js';
import { corruptedEncoding, payloadTooLarge, unsupportedEncoding } from './payload-errors.js';

type Decoder = (bytes: Buffer, options: ZlibOptions & BrotliOptions) => Buffer;

const DECODERS: Record<string, Decoder> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

export function decodeContent(bytes: Buffer, encoding: string | null, sizeLimit: number): Buffer {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  if (name === 'identity' || name === '') {
    if (bytes.byteLength > sizeLimit) throw payloadTooLarge(sizeLimit);
    return bytes;
  }
  const decoder = DECODERS[name];
  if (decoder === undefined) throw unsupportedEncoding(name);
  if (bytes.byteLength === 0) return bytes;
  try {
    // maxOutputLength is a hard cap (> 0 required); one byte over the limit is enough to know it is too large.
    const decoded = decoder(bytes, { maxOutputLength: sizeLimit + 1 });
    if (decoded.byteLength > sizeLimit) throw payloadTooLarge(sizeLimit);
    return decoded;
  } catch (cause) {
    if (cause instanceof SkeinError) throw cause;
    if (isBufferTooLarge(cause)) throw payloadTooLarge(sizeLimit);
    throw corruptedEncoding(name);
  }
}

function isBufferTooLarge(cause: unknown): boolean {
  return cause instanceof RangeError || (cause as { code?: string } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}
