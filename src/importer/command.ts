// `skein import FILE --index NAME ...`: the importer's subcommand (commander). Runs in the CLI process as
// an HTTP client of a running Skein (or Meilisearch) server, never in the server.
// Exit codes: 0 every document imported; 1 a task failed or the import stopped; 2 bad arguments;
// 130 interrupted (the state file is kept for --resume).
import { Command, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { parseByteSize } from '../config/byte-size.js';
import { ImportFailure } from './import-failure.js';
import { defaultStatePath } from './import-state.js';
import { INPUT_FORMATS, type InputFormat } from './input-file.js';
import type { ProgressMode } from './progress-report.js';
import type { ImportOptions, ImportSummary } from './run-import.js';
import { Interrupted, parseServerUrl } from './server-client.js';

export const DEFAULT_URL = 'http://127.0.0.1:7700';
export const DEFAULT_BATCH_SIZE = 10_000;
export const DEFAULT_BATCH_BYTES = '10MiB';
/**
 * More than the scheduler's batch holds (8 x 10,000 documents > 50,000, DEFAULT_BATCH_LIMITS): with 4, each
 * batch took every task the import had sent and left the queue empty, so the server built the index's
 * search structures before each commit (PrepareSearch), 7 times for 227,000 npm rows instead of 3 (48.5 s -> 22.8 s, load 20).
 */
export const DEFAULT_MAX_IN_FLIGHT = 8;

interface RawOptions {
  index: string;
  primaryKey?: string;
  url: string;
  apiKey?: string;
  format?: InputFormat;
  csvDelimiter?: string;
  batchSize: number;
  batchBytes: number;
  maxInFlight: number;
  compress?: boolean;
  wait: boolean;
  resume?: boolean;
  state: string | boolean;
  skipInvalid?: boolean;
  retries: number;
  timeout: number;
  progress: 'auto' | ProgressMode;
  progressInterval: number;
  json?: boolean;
  quiet?: boolean;
}

function positiveInteger(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${max}, not \`${value}\`.`);
    }
    return Number(value);
  };
}

function byteSize(value: string): number {
  try {
    const bytes = parseByteSize(value);
    if (bytes < 1024) throw new Error('at least 1 KiB');
    return bytes;
  } catch (cause) {
    throw new InvalidArgumentError(`expected a size such as 10MiB or 5MB (${(cause as Error).message}).`);
  }
}

function csvDelimiter(value: string): string {
  if (value.length !== 1 || value.charCodeAt(0) > 127) throw new InvalidArgumentError(`the delimiter must be one ASCII character, not \`${value}\`.`);
  return value;
}

export function importCommand(): Command {
  return new Command('import')
    .description('Load a JSON, NDJSON or CSV file (gzip-compressed too) into an index of a running Skein or Meilisearch server, in batches, waiting for the tasks')
    .argument('<file>', 'the file to load: .json (an array of documents), .ndjson/.jsonl or .csv, optionally .gz')
    .requiredOption('-i, --index <uid>', 'the index to load the documents into (created if it does not exist)')
    .option('-p, --primary-key <attribute>', 'the primary key attribute (else the index\'s, or the one the server infers)')
    .addOption(new Option('-u, --url <url>', 'the server\'s address').env('SKEIN_URL').default(DEFAULT_URL))
    .addOption(new Option('-k, --api-key <key>', 'an API key with documents.add and tasks.get on the index (the master key works)').env('SKEIN_API_KEY'))
    .addOption(new Option('-f, --format <format>', 'the file\'s format, when its name does not say').choices(INPUT_FORMATS as string[]))
    .option('--csv-delimiter <char>', 'the CSV field delimiter (sent as csvDelimiter)', csvDelimiter)
    .option('-b, --batch-size <documents>', 'documents per batch at most', positiveInteger('--batch-size', 10_000_000), DEFAULT_BATCH_SIZE)
    .addOption(new Option('--batch-bytes <size>', 'bytes per batch at most (stay under the server\'s --http-payload-size-limit, 100 MB by default); also the largest document accepted').argParser(byteSize).default(parseByteSize(DEFAULT_BATCH_BYTES), DEFAULT_BATCH_BYTES))
    .option('--max-in-flight <tasks>', 'batches sent and not yet processed, at most', positiveInteger('--max-in-flight', 1000), DEFAULT_MAX_IN_FLIGHT)
    .option('--compress', 'send batches gzip-compressed (Content-Encoding: gzip): for a server across a slow network')
    .option('--no-wait', 'do not wait for the tasks: done when the server has accepted every batch (202)')
    .option('--resume', 'continue an interrupted import from its state file')
    .option('--state <path>', 'the state file, for --resume (default: FILE.skein-import.json)')
    .option('--no-state', 'keep no state file (the import cannot be resumed)')
    .option('--skip-invalid', 'skip records that are not valid documents (reported with their line) instead of stopping at the first')
    .option('--retries <attempts>', 'attempts per request while the server is unreachable or overloaded', positiveInteger('--retries', 100), 8)
    .option('--timeout <seconds>', 'seconds to wait for one answer', positiveInteger('--timeout', 86_400), 120)
    .addOption(new Option('--progress <mode>', 'progress on stderr: a bar, a line every few seconds, or none (auto: a bar on a terminal, else lines)').choices(['auto', 'bar', 'lines', 'none']).default('auto'))
    .option('--progress-interval <seconds>', 'seconds between progress lines', positiveInteger('--progress-interval', 3600), 5)
    .option('-q, --quiet', 'no progress (same as --progress none)')
    .option('--json', 'print the summary as JSON')
    .action(async (file: string, raw: RawOptions) => {
      process.exitCode = await importAction(file, raw);
    });
}

async function importAction(file: string, raw: RawOptions): Promise<number> {
  let options: ImportOptions;
  try {
    options = importOptions(file, raw);
  } catch (cause) {
    if (!(cause instanceof ImportFailure)) throw cause;
    process.stderr.write(`skein import: ${cause.message}\n`);
    return cause.exitCode;
  }
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      process.stderr.write(`\nskein import: ${signal}: stopping (press Ctrl-C again to quit at once)\n`);
      controller.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // Loaded here: the server's start (`skein` without `import`) does not load the importer's modules (csv-parse, cli-progress).
    const { runImport } = await import('./run-import.js');
    const summary = await runImport(options, { stderr: process.stderr, signal: controller.signal });
    process.stdout.write(raw.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    if (summary.failure !== null) process.stderr.write(`skein import: ${summary.failure}\n`);
    if (summary.interrupted) return 130;
    return summary.failure !== null || summary.failedTasks.length > 0 ? 1 : 0;
  } catch (cause) {
    if (cause instanceof Interrupted) {
      // Before any batch was sent (reaching the server, or waiting for a resumed import's tasks).
      process.stderr.write('skein import: interrupted before sending anything; the state file is unchanged\n');
      return 130;
    }
    if (!(cause instanceof ImportFailure)) throw cause;
    process.stderr.write(`skein import: ${cause.message}\n`);
    return cause.exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function importOptions(file: string, raw: RawOptions): ImportOptions {
  if (raw.index.trim() === '') throw new ImportFailure('--index must name an index', 2);
  parseServerUrl(raw.url);
  if (raw.csvDelimiter !== undefined && raw.format !== undefined && raw.format !== 'csv') {
    throw new ImportFailure('--csv-delimiter goes with CSV files only', 2);
  }
  const progress: ProgressMode = raw.quiet ? 'none'
    : raw.progress === 'auto' ? (process.stderr.isTTY ? 'bar' : 'lines')
    : raw.progress;
  const path = resolve(file);
  return {
    file: path,
    index: raw.index,
    primaryKey: raw.primaryKey ?? null,
    url: raw.url,
    apiKey: raw.apiKey === undefined || raw.apiKey === '' ? null : raw.apiKey,
    format: raw.format ?? null,
    csvDelimiter: raw.csvDelimiter ?? null,
    batchSize: raw.batchSize,
    batchBytes: raw.batchBytes,
    maxInFlight: raw.maxInFlight,
    compress: raw.compress === true,
    wait: raw.wait,
    resume: raw.resume === true,
    statePath: raw.state === false ? null : typeof raw.state === 'string' ? resolve(raw.state) : defaultStatePath(path),
    skipInvalid: raw.skipInvalid === true,
    retry: { attempts: raw.retries, firstDelayMs: 250, maxDelayMs: 8000, timeoutMs: raw.timeout * 1000 },
    progress,
    progressIntervalMs: raw.progressInterval * 1000,
  };
}

export function formatSummary(summary: ImportSummary): string {
  const lines: string[] = [];
  const what = `${summary.format}${summary.gzip ? ', gzip' : ''}`;
  const status = summary.interrupted ? 'Interrupted' : summary.failure !== null || summary.failedTasks.length > 0 ? 'Incomplete' : 'Done';
  lines.push(`${status}: ${summary.file} (${what}) into index \`${summary.index}\` at ${summary.url}`);
  if (summary.resumedAtLine !== null) {
    lines.push(`  resumed at line ${summary.resumedAtLine}: ${summary.alreadyImported} documents were imported before`);
  }
  lines.push(`  documents sent:    ${summary.documentsSent} in ${summary.batchesSent} batch${summary.batchesSent === 1 ? '' : 'es'}`);
  if (summary.tasksEnqueued.length > 0) {
    lines.push(`  tasks enqueued:    ${summary.tasksEnqueued.length} (not waited for: ${summary.tasksEnqueued[0]}..${summary.tasksEnqueued.at(-1)})`);
  } else {
    lines.push(`  documents indexed: ${summary.documentsIndexed} (${summary.tasksSucceeded} task${summary.tasksSucceeded === 1 ? '' : 's'} succeeded, ${summary.failedTasks.length} failed)`);
  }
  for (const task of summary.failedTasks) {
    lines.push(`  task ${task.taskUid} failed (lines ${task.firstLine}-${task.lastLine}): ${task.code}: ${task.message}`);
  }
  if (summary.skippedInvalid > 0) {
    lines.push(`  invalid records skipped: ${summary.skippedInvalid}`);
    for (const sample of summary.invalidSamples) lines.push(`    line ${sample.line}: ${sample.reason}`);
    if (summary.skippedInvalid > summary.invalidSamples.length) lines.push(`    ... and ${summary.skippedInvalid - summary.invalidSamples.length} more`);
  }
  lines.push(`  elapsed:           ${(summary.elapsedMs / 1000).toFixed(1)} s, ${summary.documentsPerSecond} documents/s`);
  if (summary.failure !== null) lines.push(`  stopped: ${summary.failure}`);
  if (summary.statePath !== null) {
    lines.push(`  state saved in ${summary.statePath}: run the same command with --resume to continue`);
  }
  return `${lines.join('\n')}\n`;
}
