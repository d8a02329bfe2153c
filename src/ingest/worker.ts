// Tinypool task (dist/src/ingest/worker.js), run off the front thread: decompress, decode and validate a document
// payload, write it as an NDJSON update file. Never throws: every problem comes back as an ErrorBody.
import { asSkeinError } from '../errors/index.js';
import { csvDocumentsForUpdateFile } from './csv-payload.js';
import { decodeContent } from './decompression.js';
import { jsonDepthProblem } from './json-depth.js';
import { jsonDocumentsForUpdateFile } from './json-payload.js';
import { isUtf8 } from 'node:buffer';
import { ndjsonDocumentsForUpdateFile, ndjsonDocumentsFromLines } from './ndjson-payload.js';
import { jsonInvalidUtf8Description } from './invalid-utf8.js';
import { malformedJsonDocuments, missingPayload } from './payload-errors.js';
import type { DecodePayloadInput, DecodePayloadResult, PayloadContentType } from './payload-types.js';
import { writeUpdateFile } from './update-file-writer.js';

export type { DecodePayloadInput, DecodePayloadResult } from './payload-types.js';

export default async function decodePayload(input: DecodePayloadInput): Promise<DecodePayloadResult> {
  try {
    const raw = Buffer.from(input.bytes);
    if (raw.byteLength === 0) throw missingPayload(input.contentType);
    const payload = decodeContent(raw, input.contentEncoding, input.sizeLimit);
    if (payload.byteLength === 0) throw missingPayload(input.contentType);
    return await writeUpdateFile(input.updateFilesDir, documentsOf(payload, input.contentType, input.csvDelimiter));
  } catch (cause) {
    return { error: asSkeinError(cause).toBody() };
  }
}

function documentsOf(
  payload: Buffer,
  contentType: PayloadContentType,
  csvDelimiter: string | null,
): Iterable<unknown> | AsyncIterable<unknown> {
  switch (contentType) {
    case 'json':
      return jsonDocumentsForUpdateFile(decodeUtf8(payload, 'json'));
    case 'ndjson':
      // Line by line from the bytes once they are known to be UTF-8 (ndjson-payload.ts); else decodeUtf8 says where they are not.
      if (!isUtf8(payload)) return ndjsonDocumentsForUpdateFile(decodeUtf8(payload, 'ndjson'));
      return ndjsonDocumentsFromLines(payload, () => decodeUtf8(payload, 'ndjson'));
    case 'csv':
      return csvDocumentsForUpdateFile(payload, csvDelimiter);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(payload: Buffer, type: 'json' | 'ndjson'): string {
  let text: string;
  try {
    text = strictUtf8.decode(payload);
  } catch {
    throw malformedJsonDocuments(type, jsonInvalidUtf8Description(payload, type));
  }
  // Nesting past serde's limit is malformed, as in Meilisearch (and what reads documents recurses).
  const tooDeep = jsonDepthProblem(text);
  if (tooDeep !== null) throw malformedJsonDocuments(type, tooDeep);
  return text;
}
