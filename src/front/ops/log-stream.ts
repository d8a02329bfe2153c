// The `/logs/stream` listener: lines are gathered and written once per event-loop turn on the open
// chunked response. Its buffer is bounded: while the client does not read (the socket's send buffer
// is full), lines wait here up to MAX_PENDING_BYTES; past that the stream is cut (the connection
// closed, the route free again). A slow reader never holds the server nor grows its heap.
import type { LogsMode } from '../../config/options.js';
import type { ResponseStream } from '../http/http-types.js';
import type { LogFilter } from './log-filter.js';
import type { LogSink } from './server-log.js';

export const MAX_PENDING_BYTES = 1024 * 1024;

export class LogStream implements LogSink {
  private pending: string[] = [];
  private pendingBytes = 0;
  private flushScheduled = false;
  /** The response holds unsent bytes: wait for its drain before writing more. */
  private blocked = false;
  private out: ResponseStream | null = null;
  private ended = false;
  readonly bufferLimit = MAX_PENDING_BYTES;

  constructor(readonly filter: LogFilter, readonly mode: LogsMode, private readonly onEnd: (cut: boolean) => void) {}

  /** The response is open (its head written): lines go out from now on. */
  attach(out: ResponseStream): void {
    if (this.ended) {
      out.end();
      return;
    }
    this.out = out;
    out.onClosed(() => this.finish(false));
    this.scheduleFlush();
  }

  write(text: string): void {
    if (this.ended) return;
    if (this.pendingBytes + text.length > MAX_PENDING_BYTES) {
      this.cut();
      return;
    }
    this.pending.push(text);
    this.pendingBytes += text.length;
    this.scheduleFlush();
  }

  /** DELETE /logs/stream or the server closing: the response ends normally. */
  end(): void {
    if (this.ended) return;
    const out = this.out;
    this.finish(false);
    out?.end();
  }

  private cut(): void {
    const out = this.out;
    this.finish(true);
    out?.close();
  }

  private finish(cut: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.onEnd(cut);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.blocked || this.out === null) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const out = this.out;
    if (this.ended || this.blocked || out === null || this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (out.write(text)) return;
    // The response took the chunk but holds it unsent: nothing more until the socket drains.
    this.blocked = true;
    out.onWritable(() => {
      this.blocked = false;
      this.flush();
    });
  }
}
