// CSV: records are found with csv-parse, using the options the server's own CSV reader uses
// (src/ingest/csv-payload.ts), and kept as their raw text. Batches go to the server as text/csv with the
// header line in front, so the server types the cells (`price:number`, `available:boolean`, empty = null)
// exactly as it does for any CSV payload. Each record is checked here with the server's typing functions
// first, so a bad cell is reported with its line in the file (and can be skipped with --skip-invalid).
import { parse, CsvError } from 'csv-parse';
import { once } from 'node:events';
import { SkeinError } from '../errors/index.js';
import { parseCsvHeader, typeCsvCell, type CsvField } from '../ingest/csv-typing.js';
import { ImportFailure } from './import-failure.js';
import type { ReadPosition, SourceItem } from './records.js';

export interface CsvHeader {
  /** The header line as in the file (with its line terminator). */
  raw: string;
  /** The line terminator a record without one gets in a batch. */
  terminator: string;
  fields: CsvField[];
}

/** The header, when it was read; set by csvRecords as soon as it reads it. */
export interface CsvHeaderSlot {
  header: CsvHeader | null;
}

interface RawRecord {
  record: string[];
  raw: string;
  info: { bytes: number; lines: number };
}

export async function* csvRecords(
  chunks: AsyncIterable<Buffer>,
  start: ReadPosition,
  delimiter: string,
  slot: CsvHeaderSlot,
  maxRecordBytes: number,
): AsyncGenerator<SourceItem> {
  const parser = parse({
    delimiter,
    bom: true,
    skip_empty_lines: true,
    relax_quotes: true,
    relax_column_count: true,
    raw: true,
    info: true,
    max_record_size: maxRecordBytes,
  });
  const feeding = (async () => {
    try {
      for await (const chunk of chunks) {
        if (!parser.write(chunk)) await once(parser, 'drain');
      }
      parser.end();
    } catch (cause) {
      parser.destroy(cause as Error);
    }
  })();
  let previousLines = 0;
  try {
    for await (const item of parser as AsyncIterable<RawRecord>) {
      const { record, raw, info } = item;
      const endLine = start.line + info.lines;
      const line = start.line + previousLines + leadingBlankLines(raw);
      previousLines = info.lines;
      const end = { offset: start.offset + info.bytes, line: endsWithNewline(raw) ? endLine : endLine - 1 };
      if (slot.header === null) {
        slot.header = { raw, terminator: terminatorOf(raw), fields: record.map(parseCsvHeader) };
        continue;
      }
      const problem = recordProblem(slot.header.fields, record, line);
      if (problem !== null) {
        yield { kind: 'invalid', line, end, reason: problem };
        continue;
      }
      const text = endsWithNewline(raw) ? raw : raw + slot.header.terminator;
      yield { kind: 'record', bytes: Buffer.from(text, 'utf8'), line, end };
    }
  } catch (cause) {
    if (cause instanceof ImportFailure) throw cause;
    if (cause instanceof CsvError) {
      const lines = (cause as CsvError & { lines?: number }).lines;
      throw new ImportFailure(`${lines === undefined ? '' : `line ${start.line - 1 + lines}: `}malformed CSV: ${cause.message}`);
    }
    throw cause;
  } finally {
    parser.destroy();
    await feeding;
  }
  if (slot.header === null && start.offset === 0) throw new ImportFailure('the file is empty: expected a CSV header line');
}

function recordProblem(fields: CsvField[], record: string[], line: number): string | null {
  if (record.length !== fields.length) {
    return `the record has ${record.length} field${record.length === 1 ? '' : 's'}, the header has ${fields.length}`;
  }
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.type === 'string') continue;
    try {
      typeCsvCell(record[i]!, field.type, line);
    } catch (cause) {
      if (cause instanceof SkeinError) return cause.message;
      throw cause;
    }
  }
  return null;
}

function endsWithNewline(raw: string): boolean {
  const last = raw.charCodeAt(raw.length - 1);
  return last === 10 || last === 13;
}

function terminatorOf(headerRaw: string): string {
  if (headerRaw.endsWith('\r\n')) return '\r\n';
  if (headerRaw.endsWith('\r')) return '\r';
  return '\n';
}

function leadingBlankLines(raw: string): number {
  let count = 0;
  for (let at = 0; at < raw.length; at++) {
    const code = raw.charCodeAt(at);
    if (code === 10) count++;
    else if (code !== 13) break;
  }
  return count;
}
