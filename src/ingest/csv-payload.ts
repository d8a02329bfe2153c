// Streams CSV records out of a decoded payload with csv-parse and turns them into documents.
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { setOwn } from '../documents/own-fields.js';
import { SkeinError } from '../errors/index.js';
import { parseCsvHeader, typeCsvCell, type CsvField } from './csv-typing.js';
import { containsNumberText, stringifyExactJson } from '../documents/exact-json.js';
import { DocumentText } from './canonical-elements.js';
import { csvInvalidUtf8Description } from './invalid-utf8.js';
import { malformedCsv } from './payload-errors.js';

const CHUNK_BYTES = 64 * 1024;

export async function* csvDocuments(payload: Buffer, delimiter: string | null): AsyncGenerator<Record<string, unknown>> {
  // csv-parse would decode invalid bytes as U+FFFD; the csv crate refuses them.
  if (!isUtf8(payload)) throw malformedCsv(csvInvalidUtf8Description(payload, delimiter ?? ','));
  const parser = parse({
    delimiter: delimiter ?? ',',
    bom: true,
    // Like Rust's csv crate: blank lines are skipped and stray quotes inside fields are kept as text.
    skip_empty_lines: true,
    relax_quotes: true,
  });
  Readable.from(chunksOf(payload)).pipe(parser);
  let fields: CsvField[] | null = null;
  let line = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (fields === null) {
        fields = record.map(parseCsvHeader);
        continue;
      }
      line++;
      yield csvRecordToDocument(fields, record, line);
    }
  } catch (cause) {
    if (cause instanceof SkeinError) throw cause;
    if (cause instanceof CsvError) throw malformedCsv(describeCsvError(cause));
    throw cause;
  } finally {
    parser.destroy();
  }
}

export function csvRecordToDocument(fields: CsvField[], record: string[], line: number): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  // Every header is present in every document, null when empty (a duplicated header: the last one wins).
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    setOwn(document, field.name, typeCsvCell(record[i] ?? '', field.type, line));
  }
  return document;
}

/** The documents for the update file: a record with a number JavaScript would write otherwise is written with serde's text. */
export async function* csvDocumentsForUpdateFile(payload: Buffer, delimiter: string | null): AsyncGenerator<Record<string, unknown> | DocumentText> {
  for await (const document of csvDocuments(payload, delimiter)) {
    yield containsNumberText(document) ? new DocumentText(stringifyExactJson(document), true) : document;
  }
}

/** The Rust csv crate's wording for ragged rows; other reader errors keep csv-parse's text. */
export function describeCsvError(error: CsvError): string {
  const info = error as CsvError & { records?: number; lines?: number; bytes?: number; record?: unknown[] };
  if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' && Array.isArray(info.record)) {
    const expected = /expect (\d+)/.exec(error.message)?.[1] ?? '?';
    return (
      `CSV error: record ${info.records ?? '?'} (line: ${info.lines ?? '?'}, byte: ${info.bytes ?? '?'}): ` +
      `found record with ${info.record.length} fields, but the previous record has ${expected} fields`
    );
  }
  return `CSV error: ${error.message}`;
}

function* chunksOf(payload: Buffer): Generator<Buffer> {
  for (let start = 0; start < payload.byteLength; start += CHUNK_BYTES) {
    yield payload.subarray(start, start + CHUNK_BYTES);
  }
}
