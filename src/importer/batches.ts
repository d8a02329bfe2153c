// Records into batches, cut by document count and by body bytes (whichever comes first), and the batch
// bodies as the server takes them: NDJSON lines, a JSON array, or CSV text with the header in front.
import type { CsvHeader } from './csv-reader.js';
import type { InputFormat } from './input-file.js';
import type { DocumentRecord, InvalidRecord, ReadPosition, SourceItem } from './records.js';
import { ImportFailure } from './import-failure.js';

export interface Batch {
  /** The documents' bytes, in file order. */
  records: Buffer[];
  /** Where the file stands after each record (to split a batch the server found too large). */
  ends: ReadPosition[];
  /** The end of the previous batch (a resumed import re-reads from a batch's start). */
  start: ReadPosition;
  /** After the last record or skipped invalid record of this batch. */
  end: ReadPosition;
  firstLine: number;
  lastLine: number;
  bytes: number;
}

export const CONTENT_TYPES: Record<InputFormat, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
};

const NEWLINE = Buffer.from('\n');
const COMMA = Buffer.from(',');

/** Bytes a batch body has besides its records. */
function overhead(format: InputFormat, header: CsvHeader | null, count: number): number {
  switch (format) {
    case 'ndjson': return count; // one \n per record
    case 'json': return 2 + Math.max(count - 1, 0);
    case 'csv': return Buffer.byteLength(header?.raw ?? '');
  }
}

export function batchBody(format: InputFormat, header: CsvHeader | null, records: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  switch (format) {
    case 'ndjson':
      for (const record of records) parts.push(record, NEWLINE);
      break;
    case 'json':
      parts.push(Buffer.from('['));
      records.forEach((record, i) => {
        if (i > 0) parts.push(COMMA);
        parts.push(record);
      });
      parts.push(Buffer.from(']'));
      break;
    case 'csv':
      parts.push(Buffer.from(header!.raw, 'utf8'), ...records);
      break;
  }
  return Buffer.concat(parts);
}

/** `batch` cut in two halves (for a server answering 413); null when it holds one record. */
export function splitBatch(batch: Batch, format: InputFormat, header: CsvHeader | null): [Batch, Batch] | null {
  const count = batch.records.length;
  if (count < 2) return null;
  const half = Math.ceil(count / 2);
  const part = (from: number, to: number, start: ReadPosition, end: ReadPosition): Batch => {
    const records = batch.records.slice(from, to);
    const recordBytes = records.reduce((sum, record) => sum + record.length, 0);
    return {
      records, ends: batch.ends.slice(from, to), start, end,
      firstLine: from === 0 ? batch.firstLine : batch.ends[from - 1]!.line,
      lastLine: to === count ? batch.lastLine : batch.ends[to - 1]!.line,
      bytes: recordBytes + overhead(format, header, records.length),
    };
  };
  const middle = batch.ends[half - 1]!;
  return [part(0, half, batch.start, middle), part(half, count, middle, batch.end)];
}

export interface BatchLimits {
  maxDocuments: number;
  maxBytes: number;
}

export interface InvalidPolicy {
  skip: boolean;
  /** Called for every invalid record that is skipped. */
  onSkipped(record: InvalidRecord): void;
}

/**
 * Batches out of records. With `policy.skip` false, the first invalid record ends the stream: the
 * batch before it is still yielded (so an import can continue from that line once it is fixed), then an
 * ImportFailure naming the line is thrown.
 */
export async function* batchesOf(
  items: AsyncIterable<SourceItem>,
  format: InputFormat,
  header: () => CsvHeader | null,
  limits: BatchLimits,
  start: ReadPosition,
  policy: InvalidPolicy,
): AsyncGenerator<Batch> {
  let current: Batch | null = null;
  let position = start;
  const open = (record: DocumentRecord): Batch => ({
    records: [], ends: [], start: position, end: position, firstLine: record.line, lastLine: record.line,
    bytes: overhead(format, header(), 0),
  });
  for await (const item of items) {
    if (item.kind === 'invalid') {
      if (!policy.skip) {
        if (current !== null) yield current;
        throw new ImportFailure(
          `line ${item.line}: ${item.reason}. Fix the line and run the same command with --resume to continue ` +
          'from there, or pass --skip-invalid to skip invalid records',
        );
      }
      policy.onSkipped(item);
      position = item.end;
      if (current !== null) current.end = position;
      continue;
    }
    const added = item.bytes.length + (format === 'ndjson' ? 1 : format === 'json' ? 1 : 0);
    if (current !== null && current.records.length > 0 && current.bytes + added > limits.maxBytes) {
      yield current;
      current = null;
    }
    current ??= open(item);
    current.records.push(item.bytes);
    current.ends.push(item.end);
    current.bytes += added;
    current.lastLine = item.line;
    current.end = item.end;
    position = item.end;
    if (current.records.length >= limits.maxDocuments) {
      yield current;
      current = null;
    }
  }
  if (current !== null) yield current;
}
