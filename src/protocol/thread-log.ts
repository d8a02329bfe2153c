// Logging from the scheduler and shard worker threads. A thread never writes to stdout/stderr itself:
// it posts ThreadLogRecords on its own log port, and the front writes them through the server's one
// logger (src/front/ops/server-log.ts), so every line has one writer, one format and one set of levels.
// Whether a line is wanted is read first from a shared array the front keeps up to date (the lowest
// level any log sink wants, per target): a line nobody reads is never built nor posted.
import type { MessagePort } from 'node:worker_threads';

/**
 * Where a line comes from. Named after Meilisearch's crates, so a Meilisearch target directive
 * (`index_scheduler=debug,milli=off`) means the same here: `meilisearch` is the HTTP front,
 * `index_scheduler` the scheduler thread, `milli` the shard workers.
 */
export const LOG_TARGETS = [
  'meilisearch', 'meilisearch::http', 'meilisearch::supervisor', 'index_scheduler', 'index_scheduler::tasks', 'milli',
] as const;
export type LogTarget = (typeof LOG_TARGETS)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** pino's numbers. */
export const LEVEL_VALUES: Readonly<Record<LogLevelName, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50 };
/** Above every level: nobody reads the target. */
export const LEVEL_OFF = 100;

/** A thread's log line, posted on its log port (structured clone: rare, and open-ended fields). */
export interface ThreadLogRecord {
  kind: 'log';
  level: LogLevelName;
  target: LogTarget;
  msg: string;
  /** Extra fields of the line (`err` as { type, message, stack }); null: none. */
  fields: Record<string, unknown> | null;
}

export function isThreadLogRecord(message: unknown): message is ThreadLogRecord {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'log';
}

/** The shared thresholds: one Int32 per target (LOG_TARGETS order), the lowest level value any sink wants. */
export function createLogThresholds(): Int32Array {
  const thresholds = new Int32Array(new SharedArrayBuffer(LOG_TARGETS.length * Int32Array.BYTES_PER_ELEMENT));
  thresholds.fill(LEVEL_OFF);
  return thresholds;
}

export const TARGET_INDEX: ReadonlyMap<LogTarget, number> = new Map(LOG_TARGETS.map((target, index) => [target, index]));

/** An Error as a log field (what pino's err serializer writes). */
export function errorField(cause: unknown): Record<string, unknown> {
  if (cause instanceof Error) return { type: cause.name, message: cause.message, stack: cause.stack };
  return { type: typeof cause, message: String(cause) };
}

/** The thread side: `thread` names the thread in every line it sends ("scheduler", "shard 1"). */
export class ThreadLog {
  private port: MessagePort | null = null;
  private readonly thresholds: Int32Array | null;

  constructor(private readonly thread: string, thresholds: SharedArrayBuffer | null | undefined) {
    this.thresholds = thresholds ? new Int32Array(thresholds) : null;
  }

  /** The port to the front; lines before it is attached (or without one) are dropped. */
  attach(port: MessagePort | null | undefined): void {
    if (port === null || port === undefined) return;
    this.port = port;
    // The front's end is drained by the front; this end must not keep the thread alive.
    port.unref();
  }

  enabled(target: LogTarget, level: LogLevelName): boolean {
    return this.port !== null && this.thresholds !== null
      && Atomics.load(this.thresholds, TARGET_INDEX.get(target)!) <= LEVEL_VALUES[level];
  }

  write(target: LogTarget, level: LogLevelName, msg: string, fields: Record<string, unknown> | null = null): void {
    if (!this.enabled(target, level)) return;
    const record: ThreadLogRecord = { kind: 'log', level, target, msg, fields: { thread: this.thread, ...fields } };
    try {
      this.port!.postMessage(record);
    } catch {
      // A field that cannot be cloned: the line goes without its fields rather than not at all.
      this.port!.postMessage({ ...record, fields: { thread: this.thread } });
    }
  }

  /** A `(message) => void` for the code that logs plain text (state-machine.ts, snapshot-keeper.ts). */
  textAt(target: LogTarget, level: LogLevelName): (message: string) => void {
    return (message) => this.write(target, level, message);
  }
}
