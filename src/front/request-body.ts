// Content-Type checks, decompression and JSON parsing of request bodies, with Meilisearch's messages.
import { SkeinError } from '../errors/index.js';
import { jsonInvalidUtf8Description } from '../ingest/invalid-utf8.js';
import { describeJsonSyntaxError } from '../ingest/json-syntax-error.js';

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
export { decodeContent } from '../ingest/decompression.js';
export { payloadTooLarge } from '../ingest/payload-errors.js';

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

/** Parses a JSON route body: empty -> missing_payload, bad syntax -> malformed_payload. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new SkeinError('missing_payload', 'A json payload is missing.');
  const text = strictUtf8Text(body);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new SkeinError('malformed_payload',
      `The json payload provided is malformed. \`${describeJsonSyntaxError(text) ?? (cause as Error).message}\`.`);
  }
}
