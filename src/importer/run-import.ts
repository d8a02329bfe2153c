// One import, start to end: read the file as records, cut batches, send them one at a time (so task uids
// follow file order) with at most `maxInFlight` tasks unfinished, track the tasks, keep the resume state,
// and say what happened. Interruption (the signal) stops at once and leaves the state for --resume.
import { parse as parseCsvSync } from 'csv-parse/sync';
import { parseCsvHeader } from '../ingest/csv-typing.js';
import { batchBody, batchesOf, CONTENT_TYPES, splitBatch, type Batch, type BatchLimits } from './batches.js';
import { csvRecords, type CsvHeaderSlot } from './csv-reader.js';
import { ImportFailure } from './import-failure.js';
import { readState, removeState, resumeProblem, writeState, type ImportState } from './import-state.js';
import { byteBefore, openInputFile, readInputFrom, type InputFile, type InputFormat } from './input-file.js';
import { jsonArrayRecords } from './json-array-reader.js';
import { ndjsonRecords } from './ndjson-reader.js';
import { progressReporter, type ProgressMode, type ProgressSnapshot } from './progress-report.js';
import type { InvalidRecord, ReadPosition, SourceItem } from './records.js';
import { Interrupted, PayloadTooLarge, ServerClient, type RetryPolicy } from './server-client.js';
import { TaskTracker, type Confirmed } from './task-tracker.js';

export interface ImportOptions {
  file: string;
  index: string;
  primaryKey: string | null;
  url: string;
  apiKey: string | null;
  format: InputFormat | null;
  /** Null: the server's default (`,`), and no csvDelimiter parameter is sent. */
  csvDelimiter: string | null;
  batchSize: number;
  batchBytes: number;
  maxInFlight: number;
  compress: boolean;
  wait: boolean;
  resume: boolean;
  /** Null: no state file (--no-state). */
  statePath: string | null;
  skipInvalid: boolean;
  retry: RetryPolicy;
  progress: ProgressMode;
  progressIntervalMs: number;
}

export interface FailedTask {
  taskUid: number | null;
  firstLine: number;
  lastLine: number;
  code: string;
  message: string;
}

export interface ImportSummary {
  file: string;
  index: string;
  format: InputFormat;
  gzip: boolean;
  url: string;
  /** Documents an earlier, interrupted run had already imported (with --resume). */
  alreadyImported: number;
  resumedAtLine: number | null;
  documentsSent: number;
  batchesSent: number;
  /** Waiting for tasks: documents the succeeded tasks indexed. */
  documentsIndexed: number;
  tasksSucceeded: number;
  /** --no-wait: the tasks enqueued, not waited for. */
  tasksEnqueued: number[];
  failedTasks: FailedTask[];
  skippedInvalid: number;
  invalidSamples: Array<{ line: number; reason: string }>;
  elapsedMs: number;
  documentsPerSecond: number;
  interrupted: boolean;
  /** Why the import stopped early, when it did. */
  failure: string | null;
  /** The state file left for --resume (null when the import completed or there is none). */
  statePath: string | null;
}

const INVALID_SAMPLES = 20;

export interface ImportIo {
  stderr: NodeJS.WriteStream;
  signal: AbortSignal;
}

export async function runImport(options: ImportOptions, io: ImportIo): Promise<ImportSummary> {
  const startedAt = Date.now();
  const input = await openInputFile(options.file, options.format);
  const reporter = progressReporter(options.progress, io.stderr, options.progressIntervalMs);
  const warn = (message: string) => reporter.log(message);
  const client = new ServerClient(options.url, options.apiKey, options.retry, warn, io.signal);

  let previous: ImportState | null = null;
  if (options.statePath === null) {
    if (options.resume) throw new ImportFailure('--resume needs the state file (it cannot go with --no-state)', 2);
  } else {
    const found = readState(options.statePath);
    if (options.resume) {
      if (found === null) warn(`no state file at ${options.statePath}: starting from the beginning`);
      else {
        const problem = resumeProblem(found, input, options.index, warn);
        if (problem !== null) throw new ImportFailure(`cannot resume from ${options.statePath}: ${problem}`);
        previous = found;
      }
    } else if (found !== null) {
      warn(`${options.statePath} holds the state of an interrupted import; starting from the beginning (pass --resume to continue it instead)`);
    }
  }

  await client.health();

  const summary: ImportSummary = {
    file: options.file, index: options.index, format: input.format, gzip: input.gzip, url: client.url,
    alreadyImported: 0, resumedAtLine: null, documentsSent: 0, batchesSent: 0, documentsIndexed: 0,
    tasksSucceeded: 0, tasksEnqueued: [], failedTasks: [], skippedInvalid: 0, invalidSamples: [],
    elapsedMs: 0, documentsPerSecond: 0, interrupted: false, failure: null, statePath: null,
  };
  const slot: CsvHeaderSlot = { header: null };
  let confirmed: Confirmed = { offset: 0, line: 1, documents: 0 };
  let reportProgress = () => {};
  const tracker = new TaskTracker(client, confirmed, () => { saveState(); reportProgress(); }, io.signal);
  // --no-wait: batches count as done once the server accepted them (202).
  let acceptedUpTo: Confirmed = confirmed;

  const currentConfirmed = (): Confirmed => (options.wait ? tracker.confirmed : acceptedUpTo);
  const saveState = () => {
    if (options.statePath === null) return;
    const header = slot.header;
    writeState(options.statePath, {
      version: 1, file: options.file, fileSize: input.size, fileMtimeMs: input.mtimeMs, headHash: input.headHash,
      format: input.format, index: options.index,
      csvHeader: header === null ? null : { raw: header.raw, terminator: header.terminator },
      confirmed: currentConfirmed(),
      sent: options.wait
        ? tracker.batches.map((batch) => ({ taskUid: batch.taskUid, start: batch.start, end: batch.end, documents: batch.documents }))
        : [],
      updatedAt: '',
    });
  };

  if (previous !== null) {
    if (previous.csvHeader !== null) {
      const [record] = parseCsvSync(previous.csvHeader.raw, { delimiter: options.csvDelimiter ?? ',', bom: true }) as string[][];
      slot.header = { ...previous.csvHeader, fields: (record ?? []).map(parseCsvHeader) };
    }
    confirmed = previous.confirmed;
    tracker.confirmed = confirmed;
    // Tasks the interrupted run had sent: wait for them, and keep the part of the file they confirm.
    for (const sent of previous.sent) {
      if (sent.taskUid === null) break;
      tracker.add({ ...sent, firstLine: sent.start.line, lastLine: sent.end.line, status: 'pending', indexed: 0, error: null });
    }
    if (tracker.pending > 0) {
      warn(`waiting for the ${tracker.pending} task(s) the interrupted import had sent`);
      await tracker.drain();
    }
    confirmed = tracker.confirmed;
    tracker.batches.length = 0;
    tracker.failed.length = 0;
    tracker.succeededTasks = 0;
    tracker.indexedDocuments = 0;
    await checkBoundary(input, confirmed);
    acceptedUpTo = confirmed;
    summary.alreadyImported = confirmed.documents;
    summary.resumedAtLine = confirmed.line;
    warn(`resuming at line ${confirmed.line} (byte ${confirmed.offset}): ${confirmed.documents} documents were imported before`);
  }
  if (options.statePath !== null) saveState();

  const start: ReadPosition = { offset: confirmed.offset, line: confirmed.line };
  const chunks = readInputFrom(input, start.offset);
  const items = recordsOf(input.format, chunks.chunks, start, options, slot);
  const limits: BatchLimits = { maxDocuments: options.batchSize, maxBytes: options.batchBytes };
  const onSkipped = (record: InvalidRecord) => {
    summary.skippedInvalid++;
    if (summary.invalidSamples.length < INVALID_SAMPLES) summary.invalidSamples.push({ line: record.line, reason: record.reason });
  };
  const batches = batchesOf(items, input.format, () => slot.header, limits, start, { skip: options.skipInvalid, onSkipped });
  const iterator = batches[Symbol.asyncIterator]();

  // The bar stands for the part of the file done: waiting for tasks, the read bytes scaled by the share of
  // what was read that is confirmed (on-disk bytes, so a gzip file's too), so the ETA includes the indexing.
  let readUpTo = start.offset;
  const doneBytes = () => {
    const raw = chunks.rawBytesRead();
    if (readUpTo === 0) return 0;
    return Math.round(raw * Math.min(1, currentConfirmed().offset / readUpTo));
  };
  const snapshot = (): ProgressSnapshot => ({
    rawBytes: doneBytes(), totalBytes: input.size, sent: confirmed.documents + summary.documentsSent,
    indexed: confirmed.documents + tracker.indexedDocuments, failedTasks: tracker.failed.length,
  });
  reportProgress = () => reporter.update(snapshot());
  const send = async (first: Batch) => {
    const queue = [first];
    while (queue.length > 0) {
      const batch = queue.shift()!;
      if (options.wait) {
        await untilAborted(tracker.waitUntilBelow(options.maxInFlight), io.signal);
        if (tracker.failed.length > 0 && tracker.succeededTasks === 0) {
          // The first batch's task failed: the same error (primary key, permissions) would fail every batch.
          const first = tracker.failed[0]!;
          throw new ImportFailure(`the first batch's task failed (${first.error?.code}: ${first.error?.message}); stopped sending`);
        }
      }
      const query: Record<string, string> = {};
      if (options.primaryKey !== null) query.primaryKey = options.primaryKey;
      if (input.format === 'csv' && options.csvDelimiter !== null) query.csvDelimiter = options.csvDelimiter;
      let taskUid: number;
      try {
        const body = batchBody(input.format, slot.header, batch.records);
        taskUid = await client.addDocuments(options.index, body, CONTENT_TYPES[input.format], query, options.compress);
      } catch (cause) {
        if (!(cause instanceof PayloadTooLarge)) throw cause;
        const halves = splitBatch(batch, input.format, slot.header);
        if (halves === null) {
          throw new ImportFailure(`line ${batch.firstLine}: the document is larger than the server's payload limit (${cause.message})`);
        }
        limits.maxBytes = Math.max(1024, Math.floor(batch.bytes / 2));
        warn(`the server refused a batch of ${batch.bytes} bytes as too large; sending batches of at most ${limits.maxBytes} bytes (--batch-bytes)`);
        queue.unshift(...halves);
        continue;
      }
      summary.documentsSent += batch.records.length;
      summary.batchesSent++;
      if (options.wait) {
        tracker.add({
          taskUid, start: batch.start, end: batch.end, documents: batch.records.length,
          firstLine: batch.firstLine, lastLine: batch.lastLine, status: 'pending', indexed: 0, error: null,
        });
      } else {
        summary.tasksEnqueued.push(taskUid);
        acceptedUpTo = { ...batch.end, documents: acceptedUpTo.documents + batch.records.length };
      }
      saveState();
      reportProgress();
    }
  };

  reporter.start(snapshot());
  try {
    let next = iterator.next();
    next.catch(() => {});
    for (;;) {
      const result = await untilAborted(next, io.signal);
      if (result.done) break;
      readUpTo = result.value.end.offset;
      next = iterator.next(); // read the next batch while this one is sent
      next.catch(() => {});
      await send(result.value);
    }
    if (options.wait) await untilAborted(tracker.drain(), io.signal);
  } catch (cause) {
    if (cause instanceof Interrupted) summary.interrupted = true;
    else if (cause instanceof ImportFailure) {
      summary.failure = cause.message;
      // Still learn how the batches already sent ended, so the state is exact.
      if (options.wait && !io.signal.aborted) {
        try {
          await untilAborted(tracker.drain(), io.signal);
        } catch {
          // the failure already reported says enough
        }
      }
    } else throw cause;
  } finally {
    tracker.stop();
    chunks.close();
    void iterator.return?.(undefined).catch(() => {});
    reporter.stop(snapshot());
  }

  summary.documentsIndexed = tracker.indexedDocuments;
  summary.tasksSucceeded = tracker.succeededTasks;
  summary.failedTasks = tracker.failed.map((batch) => ({
    taskUid: batch.taskUid, firstLine: batch.firstLine, lastLine: batch.lastLine,
    code: batch.error?.code ?? 'unknown', message: batch.error?.message ?? '',
  }));
  summary.elapsedMs = Date.now() - startedAt;
  summary.documentsPerSecond = summary.elapsedMs > 0 ? Math.round((summary.documentsSent * 1000) / summary.elapsedMs) : 0;
  if (options.statePath !== null) {
    const complete = !summary.interrupted && summary.failure === null && summary.failedTasks.length === 0;
    if (complete) removeState(options.statePath);
    else {
      saveState();
      summary.statePath = options.statePath;
    }
  }
  return summary;
}

/**
 * `promise`, or Interrupted once `signal` aborts. Not Promise.race with one long-pending promise: each race
 * would leave a reaction on it holding the race's result (a whole batch) for as long as it stays pending.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(new Interrupted());
      return;
    }
    const onAbort = () => reject(new Interrupted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
      (cause: unknown) => { signal.removeEventListener('abort', onAbort); reject(cause); },
    );
  });
}

function recordsOf(
  format: InputFormat,
  chunks: AsyncIterable<Buffer>,
  start: ReadPosition,
  options: ImportOptions,
  slot: CsvHeaderSlot,
): AsyncIterable<SourceItem> {
  switch (format) {
    case 'ndjson': return ndjsonRecords(chunks, start, options.batchBytes);
    case 'json': return jsonArrayRecords(chunks, start, options.batchBytes);
    case 'csv': return csvRecords(chunks, start, options.csvDelimiter ?? ',', slot, options.batchBytes);
  }
}

/** A resumed import must start right after a record; a plain file that changed there is refused. */
async function checkBoundary(input: InputFile, at: ReadPosition): Promise<void> {
  const byte = await byteBefore(input, at.offset);
  if (byte === null) return;
  const fits = input.format === 'json' ? byte === 0x7d /* } */ || byte === 0x5d /* ] */ || byte === 0x22 || /[0-9a-z]/.test(String.fromCharCode(byte))
    : byte === 0x0a || byte === 0x0d || at.offset === input.size;
  if (!fits) {
    throw new ImportFailure(`cannot resume: byte ${at.offset} of ${input.path} is not at the end of a record any more (the file changed before that point); delete the state file to start over`);
  }
}
