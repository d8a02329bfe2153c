// Content-Type checks, decompression and JSON parsing of request bodies, with Meilisearch's messages.
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import { SkeinError } from '../../errors/index.js';
import { jsonInvalidUtf8Description } from '../../ingest/invalid-utf8.js';
import { decodeContent } from '../../ingest/decompression.js';
import { corruptedEncoding, payloadTooLarge } from '../../ingest/payload-errors.js';
import { jsonDepthProblem } from '../../ingest/json-depth.js';
import { describeJsonSyntaxError } from '../../ingest/json-syntax-error.js';

export const DOCUMENT_CONTENT_TYPES = ['application/json', 'application/x-ndjson', 'text/csv'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];

/** `type/subtype` in lowercase, parameters (`; charset=utf-8`) dropped. */
export function mimeEssence(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function acceptedList(types: readonly string[]): string {
  return types.map((type) => `\`${type}\``).join(', ');
}

export function missingContentType(accepted: readonly string[]): SkeinError {
  return new SkeinError('missing_content_type',
    `A Content-Type header is missing. Accepted values for the Content-Type header are: ${acceptedList(accepted)}`);
}

export function invalidContentType(given: string, accepted: readonly string[]): SkeinError {
  return new SkeinError('invalid_content_type',
    `The Content-Type \`${given}\` is invalid. Accepted values for the Content-Type header are: ${acceptedList(accepted)}`);
}

/** JSON routes accept any `.../json` or `.../*+json` type, as actix' Json extractor does. */
export function checkJsonContentType(contentType: string | null): void {
  if (contentType === null) throw missingContentType(['application/json']);
  const subtype = mimeEssence(contentType).split('/')[1] ?? '';
  if (subtype !== 'json' && !subtype.endsWith('+json')) throw invalidContentType(contentType, ['application/json']);
}

export function documentContentType(contentType: string | null): DocumentContentType {
  if (contentType === null) throw missingContentType(DOCUMENT_CONTENT_TYPES);
  const essence = mimeEssence(contentType);
  const known = DOCUMENT_CONTENT_TYPES.find((type) => type === essence);
  if (!known) throw invalidContentType(contentType, DOCUMENT_CONTENT_TYPES);
  return known;
}

// Compressed JSON bodies are decoded with the ingest pool's decoder, so both speak the same errors.
export { decodeContent } from '../../ingest/decompression.js';
export { payloadTooLarge } from '../../ingest/payload-errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; invalid UTF-8 is malformed_payload (serde_json's words), never U+FFFD. */
function strictUtf8Text(body: Buffer): string {
  try {
    return strictUtf8.decode(body);
  } catch {
    // A route body is parsed whole by serde_json, strings checked as they are read: a lone object's rule.
    throw new SkeinError('malformed_payload', `The json payload provided is malformed. \`${jsonInvalidUtf8Description(body, 'json', false)}\`.`);
  }
}

const ASYNC_DECODERS: Record<string, (bytes: Buffer, options: ZlibOptions & BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/**
 * Output bytes per thread-pool round trip. Node's default (16 KiB) made a 26 MB inflation 1,600 round
 * trips, each waiting for the front's event loop: 8.2 s with the loop busy in 5 ms slices, 160 ms with
 * 1 MiB (a fuzz request went unanswered for 15 s under load).
 */
export const OFF_THREAD_ZLIB_CHUNK_BYTES = 2 ** 20;

/**
 * decodeContent's answers, the inflating done on libuv's thread pool: a 97 KB gzip body inflates to
 * 95 MiB, which held the front thread for the time it took. The output stops one byte past the
 * payload limit (413 payload_too_large), so a decompression bomb is never inflated further.
 */
export async function decodeContentOffThread(bytes: Buffer, encoding: string | null, sizeLimit: number): Promise<Buffer> {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  const decoder = Object.hasOwn(ASYNC_DECODERS, name) ? ASYNC_DECODERS[name] : undefined;
  if (decoder === undefined || bytes.byteLength === 0) return decodeContent(bytes, encoding, sizeLimit);
  let decoded: Buffer;
  try {
    decoded = await decoder(bytes, { maxOutputLength: sizeLimit + 1, chunkSize: OFF_THREAD_ZLIB_CHUNK_BYTES });
  } catch (cause) {
    if (cause instanceof RangeError || (cause as { code?: string } | null)?.code === 'ERR_BUFFER_TOO_LARGE') throw payloadTooLarge(sizeLimit);
    throw corruptedEncoding(name);
  }
  if (decoded.byteLength > sizeLimit) throw payloadTooLarge(sizeLimit);
  return decoded;
}

/** Parses a JSON route body: empty -> missing_payload, bad syntax or nesting deeper than serde's limit -> malformed_payload. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new SkeinError('missing_payload', 'A json payload is missing.');
  const text = strictUtf8Text(body);
  const tooDeep = jsonDepthProblem(text);
  if (tooDeep !== null) throw new SkeinError('malformed_payload', `The json payload provided is malformed. \`${tooDeep}\`.`);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new SkeinError('malformed_payload',
      `The json payload provided is malformed. \`${describeJsonSyntaxError(text) ?? (cause as Error).message}\`.`);
  }
}
