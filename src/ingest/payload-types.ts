// The contract between the front thread and the ingest pool (tinypool, dist/src/ingest/worker.js).
import type { ErrorBody } from '../errors/index.js';

export type PayloadContentType = 'json' | 'ndjson' | 'csv';

export interface DecodePayloadInput {
  /** The raw request body as received (still compressed when contentEncoding is set); transferred. */
  bytes: ArrayBuffer;
  contentType: PayloadContentType;
  /** The `csvDelimiter` query parameter, already checked to be one ASCII char; null = `,`. */
  csvDelimiter: string | null;
  /** gzip | deflate | br | identity | null (null and identity = not compressed). */
  contentEncoding: string | null;
  /** Absolute path of <db-path>/update-files. */
  updateFilesDir: string;
  /** Maximum decoded payload size in bytes (--http-payload-size-limit). */
  sizeLimit: number;
}

export type DecodePayloadResult =
  | { updateFile: string; documentCount: number }
  | { error: ErrorBody };
