// The server's one logger (pino), owned by the server instance (startServer) and used by the front;
// the scheduler and shard worker threads send their lines here over their log ports
// (protocol/thread-log.ts). Every line goes to the sinks whose filter keeps it: stderr (or the
// destination startServer was given; `--log-level`, `--experimental-logs-mode`, POST /logs/stderr)
// and the one `/logs/stream` listener, each in its own mode (human or JSON lines).
//
// Per target a pino child logger carries the lowest level any sink keeps, so a disabled line costs
// pino's no-op call (request lines: one boolean, requestLines); the same thresholds are in a shared
// array the threads read before building a line.
import { write as fsWrite } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import type { LogsMode } from '../../config/options.js';
import {
  createLogThresholds, isThreadLogRecord, LEVEL_OFF, LEVEL_VALUES, LOG_TARGETS, TARGET_INDEX, type LogLevelName, type LogTarget, type ThreadLogRecord,
} from '../../protocol/thread-log.js';
import { formatHuman } from './log-format.js';
import { LogFilter } from './log-filter.js';

/** Where the stderr sink writes: a file descriptor (default 2), or anything with write(text) (tests, embedding). */
export type LogDestination = number | { write(chunk: string): unknown };

export interface LogSink {
  filter: LogFilter;
  mode: LogsMode;
  /** `gather`: a request line, which may wait up to LINES_DELAY_MS to be written with others; any other line goes out at once (after those waiting). */
  write(text: string, gather?: boolean): void;
}

/** What a request line says (http-server.ts keeps it in its per-request state). */
export interface RequestLogFields {
  requestId: number;
  method: string;
  /** The route's pattern; null when no route matched (404, 405, preflight). */
  route: string | null;
  path: string;
  /** performance.now() when the request arrived; 0: request lines were off then. */
  startedAt: number;
}

/** A request line's fields, in the order written. */
interface RequestLineRecord {
  requestId: number;
  method: string;
  route: string | null;
  path: string;
  status: number | null;
  durationMs: number;
}

/** Log text waiting past this drops lines (stderr a pipe nobody reads must not grow the heap). */
const STDERR_BUFFER_BYTES = 16 * 1024 * 1024;
/** Log lines wait at most this long (or until this many characters are waiting) to be written together. */
const LINES_DELAY_MS = 20;
const LINES_BATCH_BYTES = 64 * 1024;
/** A full pipe is tried again this many times, LINES_DELAY_MS apart, before its lines are dropped; close() waits at most CLOSE_WAIT_MS. */
const EAGAIN_RETRIES = 50;
const CLOSE_WAIT_MS = 2_000;
const LEVEL_LABELS: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', [LEVEL_OFF]: 'silent' };
const HTTP = TARGET_INDEX.get('meilisearch::http')!;

interface Fanout {
  write(line: string): void;
  lastLevel: number;
  lastObj: Record<string, unknown>;
  lastMsg: string | undefined;
  lastLogger: Logger | null;
}

export class ServerLog {
  /** Shared with the threads (workerData): per target, the lowest level value any sink keeps. */
  readonly thresholds = createLogThresholds();
  /** Whether request lines are written now (meilisearch::http at info): read once per request. */
  requestLines = false;
  private readonly loggers: Logger[];
  private readonly targetOfLogger = new Map<Logger, number>();
  private readonly stderr: LogSink;
  private readonly flushStderr: () => Promise<void>;
  private stream: LogSink | null = null;
  private readonly ports = new Set<MessagePort>();
  private nextRequestId = 1;

  constructor(options: { level: 'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace'; mode: LogsMode; destination: LogDestination }) {
    const fanout: Fanout = {
      lastLevel: 0, lastObj: {}, lastMsg: undefined, lastLogger: null,
      write: (line: string) => this.dispatch(fanout, line),
    };
    // pino fills lastLevel/lastObj/lastMsg/lastLogger before each write on a stream marked so (its multistream does the same).
    (fanout as unknown as Record<symbol, boolean>)[Symbol.for('pino.metadata')] = true;
    const root = pino({
      level: 'trace', base: null, timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    }, fanout);
    this.loggers = LOG_TARGETS.map((target, index) => {
      const logger = root.child({ target });
      this.targetOfLogger.set(logger, index);
      return logger;
    });
    const { write, flush } = openDestination(options.destination);
    this.flushStderr = flush;
    this.stderr = { filter: LogFilter.level(options.level), mode: options.mode, write };
    this.recompute();
  }

  /** The logger of one target (its level follows the sinks). */
  for(target: LogTarget): Logger {
    return this.loggers[TARGET_INDEX.get(target)!]!;
  }

  /** A new request's id (request and error lines carry it). */
  requestId(): number {
    return this.nextRequestId++;
  }

  /** One line per answered request; called after the answer was written. */
  request(fields: RequestLogFields, status: number | null): void {
    if (fields.startedAt === 0 || !this.requestLines) return;
    const record: RequestLineRecord = {
      requestId: fields.requestId, method: fields.method, route: fields.route, path: fields.path,
      status, durationMs: Math.round((performance.now() - fields.startedAt) * 100) / 100,
    };
    const msg = status === null ? 'request aborted' : 'request';
    // Written here, not through pino, in each sink's mode: the line pino would write (its JSON, or the
    // human form of its fields), without the JSON line a human sink throws away, with one clock read
    // (a request line through pino cost ~2.5 µs, a third of it two Date#toISOString).
    const time = new Date().toISOString();
    let json: string | null = null;
    let human: string | null = null;
    for (const sink of [this.stderr, this.stream]) {
      if (sink === null || sink.filter.threshold(HTTP) > LEVEL_VALUES.info) continue;
      if (sink.mode === 'json') sink.write(json ??= `{"level":"info","time":"${time}","target":"meilisearch::http",${JSON.stringify(record).slice(1, -1)},"msg":${JSON.stringify(msg)}}\n`, true);
      else sink.write(human ??= formatHuman(LEVEL_VALUES.info, 'meilisearch::http', msg, record, time), true);
    }
  }

  /** An internal error (a 500) with its stack. */
  internalError(fields: RequestLogFields, cause: unknown): void {
    this.loggers[HTTP]!.error({ requestId: fields.requestId, method: fields.method, route: fields.route, path: fields.path, err: cause }, 'internal error');
  }

  /** POST /logs/stderr: the stderr sink's filter from now on. */
  setStderrFilter(filter: LogFilter): void {
    this.stderr.filter = filter;
    this.recompute();
  }

  /** POST /logs/stream: false when another listener has it (Meilisearch allows one). */
  openStream(sink: LogSink): boolean {
    if (this.stream !== null) return false;
    this.stream = sink;
    this.recompute();
    return true;
  }

  /** The listener went away, was cut, or DELETE /logs/stream: the sink receives nothing more. */
  closeStream(sink: LogSink | null = this.stream): void {
    if (sink === null || this.stream !== sink) return;
    this.stream = null;
    this.recompute();
  }

  /** A line in a sink's mode written straight to it, not through the filters (the stream's first line). */
  directLine(mode: LogsMode, level: LogLevelName, target: LogTarget, msg: string, fields: Record<string, unknown>): string {
    if (mode === 'human') return formatHuman(LEVEL_VALUES[level], target, msg, fields);
    return `${JSON.stringify({ level, time: new Date().toISOString(), target, ...fields, msg })}\n`;
  }

  get streamSink(): LogSink | null {
    return this.stream;
  }

  /** A thread's log port (protocol/thread-log.ts): its records are written as the front's own lines. */
  drain(port: MessagePort): void {
    this.ports.add(port);
    port.on('message', (message: unknown) => {
      if (isThreadLogRecord(message)) this.writeThreadRecord(message);
    });
    port.on('close', () => this.ports.delete(port));
    // The server's handles keep the process alive, not the log ports.
    port.unref();
  }

  /** At close: the ports closed, what stderr holds written out (resolves once written). */
  close(): Promise<void> {
    for (const port of this.ports) {
      // Lines already queued on the port are delivered first (receiveMessageOnPort would need the module; 'message' handlers ran).
      port.close();
    }
    this.ports.clear();
    return this.flushStderr();
  }

  private writeThreadRecord(record: ThreadLogRecord): void {
    const index = TARGET_INDEX.get(record.target);
    if (index === undefined || !(record.level in LEVEL_VALUES)) return;
    const logger = this.loggers[index]!;
    if (!logger.isLevelEnabled(record.level)) return;
    logger[record.level](record.fields ?? {}, record.msg);
  }

  private dispatch(fanout: Fanout, line: string): void {
    const index = fanout.lastLogger === null ? undefined : this.targetOfLogger.get(fanout.lastLogger);
    if (index === undefined) return;
    const level = fanout.lastLevel;
    let human: string | null = null;
    for (const sink of [this.stderr, this.stream]) {
      if (sink === null || sink.filter.threshold(index) > level) continue;
      if (sink.mode === 'json') {
        sink.write(line);
      } else {
        human ??= formatHuman(level, LOG_TARGETS[index]!, fanout.lastMsg, fanout.lastObj);
        sink.write(human);
      }
    }
  }

  private recompute(): void {
    for (let index = 0; index < LOG_TARGETS.length; index++) {
      const threshold = Math.min(this.stderr.filter.threshold(index), this.stream?.filter.threshold(index) ?? LEVEL_OFF);
      Atomics.store(this.thresholds, index, threshold);
      this.loggers[index]!.level = LEVEL_LABELS[threshold] ?? 'silent';
    }
    this.requestLines = Atomics.load(this.thresholds, HTTP) <= LEVEL_VALUES.info;
  }
}

function openDestination(destination: LogDestination): { write(text: string, gather?: boolean): void; flush(): Promise<void> } {
  if (typeof destination !== 'number') {
    return { write: (text) => { destination.write(text); }, flush: () => Promise.resolve() };
  }
  const writer = new GatheredFdWriter(destination);
  return { write: (text, gather) => writer.write(text, gather === true), flush: () => writer.close() };
}

/**
 * Log lines to a file descriptor: gathered for LINES_DELAY_MS (or LINES_BATCH_BYTES) and written
 * asynchronously, one fs.write in flight at a time, in order. Each fs.write goes through the thread
 * pool and back (a wake-up each way): a request line per search, written alone, cost the front ~9 µs
 * per search at 64 connections (25% of its time; --log-level WARN against INFO). Owned by the
 * ServerLog; holds at most STDERR_BUFFER_BYTES waiting (a pipe nobody reads drops lines, not memory).
 * close() resolves once everything accepted is written (SonicBoom's flushSync wrote what it held while
 * its own write was still in flight, so lines came out of order or after close; its flush(cb) does not
 * wait with minLength 0).
 */
class GatheredFdWriter {
  private pending = '';
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  /** A line that must not wait is among those pending: written as soon as the write in flight ends. */
  private urgent = false;

  constructor(private readonly fd: number) {}

  write(text: string, gather: boolean): void {
    if (this.pending.length + text.length > STDERR_BUFFER_BYTES) return;
    this.pending += text;
    if (!gather) this.urgent = true;
    if (!gather || this.pending.length >= LINES_BATCH_BYTES) this.release();
    else this.timer ??= setTimeout(() => this.release(), LINES_DELAY_MS);
  }

  /** Everything accepted so far written out; gives up after CLOSE_WAIT_MS on an fd that takes nothing. */
  async close(): Promise<void> {
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while ((this.pending !== '' || this.inFlight !== null) && Date.now() < deadline) {
      this.release();
      await this.inFlight;
    }
  }

  private release(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.inFlight !== null || this.pending === '') return;
    const bytes = Buffer.from(this.pending);
    this.pending = '';
    this.urgent = false;
    this.inFlight = this.writeAll(bytes).then(() => {
      this.inFlight = null;
      if (this.urgent) this.release();
      else if (this.pending !== '') this.timer ??= setTimeout(() => this.release(), LINES_DELAY_MS);
    });
  }

  private async writeAll(bytes: Buffer): Promise<void> {
    let at = 0;
    let retries = 0;
    while (at < bytes.length) {
      try {
        at += await new Promise<number>((resolve, reject) => {
          fsWrite(this.fd, bytes, at, bytes.length - at, null, (error, written) => (error ? reject(error) : resolve(written)));
        });
      } catch (error) {
        // A full non-blocking pipe: try again a little later, a few times; any other error drops the lines.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || ++retries > EAGAIN_RETRIES) return;
        await new Promise((resolve) => setTimeout(resolve, LINES_DELAY_MS));
      }
    }
  }
}
