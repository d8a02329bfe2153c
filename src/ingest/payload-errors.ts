// The errors a document payload can produce, with Meilisearch's exact messages (reference errors.md, formats.md).
import { SkeinError } from '../errors/index.js';
import type { PayloadContentType } from './payload-types.js';
import { formatByteSize } from '../config/byte-size.js';

export const NOT_OBJECTS = 'data are neither an object nor a list of objects';

export function missingPayload(type: PayloadContentType): SkeinError {
  return new SkeinError('missing_payload', `A ${type} payload is missing.`);
}

/** A JSON/NDJSON payload that serde would reject: the detail is a serde-style message. */
export function malformedJsonDocuments(type: PayloadContentType, detail: string): SkeinError {
  return new SkeinError(
    'malformed_payload',
    `The \`${type}\` payload provided is malformed. \`Couldn't serialize document value: ${truncateDetail(detail)}\`.`,
  );
}

/** CSV problems (reader errors, bad typed cells) use milli's other format: a colon, no "Couldn't serialize". */
export function malformedCsv(detail: string): SkeinError {
  return new SkeinError('malformed_payload', `The \`csv\` payload provided is malformed: \`${detail}\`.`);
}

export function payloadTooLarge(limit: number): SkeinError {
  return new SkeinError(
    'payload_too_large',
    `The provided payload reached the size limit. The maximum accepted payload size is ${formatByteSize(limit)}.`,
  );
}

export function corruptedEncoding(encoding: string): SkeinError {
  return new SkeinError('bad_request', `Can not decode content-encoding \`${encoding}\`: the stream is corrupted.`);
}

export function unsupportedEncoding(encoding: string): SkeinError {
  return new SkeinError(
    'bad_request',
    `The Content-Encoding \`${encoding}\` is not supported. Accepted values are: \`gzip\`, \`deflate\`, \`br\`.`,
  );
}

// Meilisearch truncates long serde messages (they can quote user input): 50 first chars + "..." + 85 last.
const KEEP_PREFIX = 50;
const KEEP_SUFFIX = 85;
const ELLIPSIS = '...';

export function truncateDetail(detail: string): string {
  if (detail.length <= KEEP_PREFIX + KEEP_SUFFIX + ELLIPSIS.length) return detail;
  return detail.slice(0, KEEP_PREFIX) + ELLIPSIS + detail.slice(detail.length - KEEP_SUFFIX);
}
