// Progress on stderr: a cli-progress bar with ETA when stderr is a terminal, else a plain line every few
// seconds (logs and CI keep readable lines). The bar measures the part of the file done (on-disk bytes,
// so a gzip file's too; run-import.ts says how).
import cliProgress from 'cli-progress';

export interface ProgressSnapshot {
  rawBytes: number;
  totalBytes: number;
  sent: number;
  indexed: number;
  failedTasks: number;
}

export interface ProgressReporter {
  start(snapshot: ProgressSnapshot): void;
  update(snapshot: ProgressSnapshot): void;
  /** A line that must be seen (retries, warnings), printed above the bar. */
  log(message: string): void;
  stop(snapshot: ProgressSnapshot): void;
}

export type ProgressMode = 'bar' | 'lines' | 'none';

export function progressReporter(mode: ProgressMode, stream: NodeJS.WriteStream, intervalMs: number): ProgressReporter {
  if (mode === 'bar') return new BarReporter(stream);
  return new LineReporter(stream, mode === 'lines' ? intervalMs : 0);
}

function rate(documents: number, startedAt: number): number {
  const seconds = (Date.now() - startedAt) / 1000;
  return seconds > 0 ? Math.round(documents / seconds) : 0;
}

class BarReporter implements ProgressReporter {
  private readonly multi: cliProgress.MultiBar;
  private bar: cliProgress.SingleBar | null = null;
  private startedAt = Date.now();
  private startSent = 0;

  constructor(stream: NodeJS.WriteStream) {
    this.multi = new cliProgress.MultiBar({
      stream,
      format: ' {bar} {percentage}% | {sent} sent | {indexed} indexed | {rate} docs/s | ETA {eta_formatted}{failed}',
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    }, cliProgress.Presets.shades_classic);
  }

  private payload(snapshot: ProgressSnapshot) {
    return {
      sent: snapshot.sent.toLocaleString('en-US'),
      indexed: snapshot.indexed.toLocaleString('en-US'),
      rate: rate(snapshot.sent - this.startSent, this.startedAt).toLocaleString('en-US'),
      failed: snapshot.failedTasks > 0 ? ` | ${snapshot.failedTasks} task(s) failed` : '',
    };
  }

  start(snapshot: ProgressSnapshot): void {
    this.startedAt = Date.now();
    this.startSent = snapshot.sent;
    this.bar = this.multi.create(Math.max(snapshot.totalBytes, 1), snapshot.rawBytes, this.payload(snapshot));
  }

  update(snapshot: ProgressSnapshot): void {
    this.bar?.update(snapshot.rawBytes, this.payload(snapshot));
  }

  log(message: string): void {
    this.multi.log(`${message}\n`);
  }

  stop(snapshot: ProgressSnapshot): void {
    this.update(snapshot);
    this.multi.stop();
  }
}

class LineReporter implements ProgressReporter {
  private timer: NodeJS.Timeout | null = null;
  private latest: ProgressSnapshot | null = null;
  private startedAt = Date.now();
  private startBytes = 0;
  private startSent = 0;

  constructor(private readonly stream: NodeJS.WriteStream, private readonly intervalMs: number) {}

  start(snapshot: ProgressSnapshot): void {
    this.startedAt = Date.now();
    this.startBytes = snapshot.rawBytes;
    this.startSent = snapshot.sent;
    this.latest = snapshot;
    if (this.intervalMs > 0) {
      this.timer = setInterval(() => this.print(), this.intervalMs);
      this.timer.unref();
    }
  }

  update(snapshot: ProgressSnapshot): void {
    this.latest = snapshot;
  }

  log(message: string): void {
    this.stream.write(`skein import: ${message}\n`);
  }

  stop(snapshot: ProgressSnapshot): void {
    this.latest = snapshot;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private print(): void {
    const s = this.latest;
    if (s === null) return;
    const percent = s.totalBytes > 0 ? Math.min(100, Math.floor((s.rawBytes / s.totalBytes) * 100)) : 100;
    const elapsed = (Date.now() - this.startedAt) / 1000;
    const done = s.rawBytes - this.startBytes;
    const eta = done > 0 ? Math.round((elapsed * (s.totalBytes - s.rawBytes)) / done) : null;
    this.stream.write(
      `skein import: ${percent}% done, ${s.sent} documents sent, ${s.indexed} indexed, ` +
      `${rate(s.sent - this.startSent, this.startedAt)} docs/s, ETA ${eta === null ? '?' : `${eta}s`}` +
      `${s.failedTasks > 0 ? `, ${s.failedTasks} task(s) failed` : ''}\n`,
    );
  }
}
