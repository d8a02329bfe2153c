// Applies the task log, in order, to this node (main thread): an ordered JetStream consumer from the
// sequence after the last one this data folder applied (kept in LMDB with the task it enqueued, by
// the scheduler: scheduler/task-enqueue.ts), each message turned into the scheduler's enqueueFromLog.
// The scheduler's state machine stays the one place tasks are applied; this only feeds it.
//
// Traps measured on nats-server 2.9 (DECISIONS.md): an ordered consumer whose server dies never
// recovers by itself, so a watchdog compares the stream's last sequence with the next one wanted and
// recreates the consumer from there when nothing arrived for a while; a purge moves lagging readers
// past purged sequences silently, so a delivery past the next wanted sequence, or a stream whose first
// sequence is past it, stops the follower and reports the gap (onGap: rejoin.ts restores the node from
// the latest cluster snapshot).
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsumerMessages } from '@nats-io/jetstream';
import type { SchedulerClient } from '../front/threads/scheduler-client.js';
import type { TaskContent } from '../tasks/task-record.js';
import { decodeEnvelope } from './task-envelope.js';
import type { NetworkConfig } from '../network/network-config.js';
import { withOwnShardGroup } from '../network/network-node.js';
import { STREAM, type TaskLog } from './task-log.js';

/** Nothing delivered for this long while the stream holds more: the consumer is recreated. */
const STALL_MS = 2500;
const WATCH_EVERY_MS = 1000;

export interface LogFollowerOptions {
  taskLog: TaskLog;
  scheduler: SchedulerClient;
  updateFilesDir: string;
  /** The last sequence this data folder applied (LMDB meta). */
  appliedSeq: number;
  /** Called once when the follower stopped for good on a gap (cluster-node.ts: the node restores the latest snapshot). */
  onGap?: (reason: string) => void;
  /** Holds a cancelation or deletion until every task before it finished here (finished-barrier.ts). */
  barrier?: { before(content: TaskContent): Promise<void> };
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Sharding: a document addition keeps only this node's shard group's documents (src/network). */
  network?: NetworkConfig;
}

export class LogFollower {
  private nextSeq: number;
  private lastProgress = Date.now();
  private stopped = false;
  private messages: ConsumerMessages | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Writers waiting for their sequence to be applied here (read-your-writes on the accepting node). */
  private readonly waiters = new Map<number, Array<() => void>>();
  /** Why the follower stopped for good (a gap it cannot fill), else null. */
  fatal: string | null = null;
  /** The stream's last sequence when this node started: until it is applied, the node is catching up. */
  private catchUpTarget: number | null = null;
  /** The applied sequence last reported to the progress stream (compaction reads it). */
  private reportedSeq = -1;

  constructor(private readonly options: LogFollowerOptions) {
    this.nextSeq = options.appliedSeq + 1;
  }

  /** The last sequence applied here. */
  get appliedSeq(): number {
    return this.nextSeq - 1;
  }

  /**
   * GET /health: 503 while the node catches up with the log it found at start (a restarted node must
   * not answer stale reads behind a load balancer) and after a gap it cannot fill.
   */
  get available(): boolean {
    return this.fatal === null && this.catchUpTarget !== null && this.appliedSeq >= this.catchUpTarget;
  }

  start(): void {
    void this.options.taskLog.streamStateRetried().then(({ lastSeq }) => { this.catchUpTarget = lastSeq; },
      (cause) => this.options.log('warn', `task log: its state could not be read (${(cause as Error).message}); the node stays unavailable`));
    this.running = this.run();
    this.watchdog = setInterval(() => void this.watch(), WATCH_EVERY_MS);
    this.watchdog.unref();
  }

  /** Resolves true once `seq` is applied here, false after `timeoutMs`. */
  whenApplied(seq: number, timeoutMs: number): Promise<boolean> {
    if (seq < this.nextSeq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const list = this.waiters.get(seq) ?? [];
      list.push(() => { clearTimeout(timer); resolve(true); });
      this.waiters.set(seq, list);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.messages?.stop();
    await this.running?.catch(() => {});
  }

  private async run(): Promise<void> {
    while (!this.stopped && this.fatal === null) {
      try {
        const consumer = await this.options.taskLog.js.consumers.get(STREAM, { deliver_policy: 'by_start_sequence' as never, opt_start_seq: this.nextSeq });
        const messages = await consumer.consume({ max_messages: 256 });
        this.messages = messages;
        this.lastProgress = Date.now();
        for await (const message of messages) {
          if (this.stopped) break;
          if (message.seq < this.nextSeq) continue; // delivered again after a recreation
          if (message.seq > this.nextSeq) {
            this.options.log('warn', `task log: sequence ${message.seq} delivered while ${this.nextSeq} was expected; resuming from ${this.nextSeq}`);
            await this.checkGap().catch(() => {});
            await new Promise((resolve) => setTimeout(resolve, 250));
            break;
          }
          await this.apply(message.seq, message.data);
        }
        messages.stop();
      } catch (cause) {
        if (this.stopped) break;
        this.options.log('warn', `task log consumer: ${(cause as Error).message}; recreating it from sequence ${this.nextSeq}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Retries until the scheduler took the task: a dead scheduler thread is replaced, and the log cannot skip a task. */
  private async apply(seq: number, data: Uint8Array): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const { envelope, inline } = decodeEnvelope(data);
        let content: TaskContent = envelope.content;
        if (content.type === 'documentAdditionOrUpdate') {
          const bytes = inline ?? await this.options.taskLog.getPayload(envelope.object!);
          if (envelope.payloadBytes !== undefined && bytes.length !== envelope.payloadBytes) {
            throw new Error(`payload of sequence ${seq}: ${bytes.length} bytes, ${envelope.payloadBytes} expected`);
          }
          content = { ...content, updateFile: await this.writeUpdateFile(seq, bytes) };
        }
        if (this.options.network) content = withOwnShardGroup(this.options.network, content);
        if (this.options.barrier) {
          // Waiting on this node's own tasks is not a stalled consumer (watch()).
          const alive = setInterval(() => { this.lastProgress = Date.now(); }, 500);
          await this.options.barrier.before(content).finally(() => clearInterval(alive));
          if (this.stopped) return;
        }
        await this.options.scheduler.enqueueFromLog(content, seq, envelope.enqueuedAt);
        this.nextSeq = seq + 1;
        this.lastProgress = Date.now();
        const waiting = this.waiters.get(seq);
        this.waiters.delete(seq);
        for (const resolve of waiting ?? []) resolve();
        return;
      } catch (cause) {
        this.options.log(attempt === 0 ? 'warn' : 'error', `task log: applying sequence ${seq} failed (${(cause as Error).message}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
      }
    }
  }

  /** The payload as this node's update file, durable before the task that names it is (as the decoder's). */
  private async writeUpdateFile(seq: number, bytes: Uint8Array): Promise<string> {
    // Named by sequence: a kill before the task was enqueued leaves a file the next attempt overwrites.
    const name = `log-${seq}.ndjson`;
    const path = join(this.options.updateFilesDir, name);
    const partial = `${path}.partial`;
    const file = await open(partial, 'w');
    try {
      await file.write(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(partial, path);
    return name;
  }

  /** A purge past the next sequence wanted: the follower stops for good (onGap: the node restores a snapshot). */
  private async checkGap(): Promise<boolean> {
    const { firstSeq } = await this.options.taskLog.streamState();
    if (firstSeq <= this.nextSeq || this.fatal !== null) return this.fatal !== null;
    this.fatal = `the task log starts at sequence ${firstSeq}, past ${this.nextSeq} which this node needs: it must start from a snapshot`;
    this.options.log('error', this.fatal);
    this.messages?.stop();
    this.options.onGap?.(this.fatal);
    return true;
  }

  /** The ordered consumer's trap: recreate it when the stream moved on and nothing arrives. */
  private async watch(): Promise<void> {
    if (!this.stopped && this.reportedSeq !== this.appliedSeq) {
      const seq = this.appliedSeq;
      await this.options.taskLog.reportProgress(seq).then(() => { this.reportedSeq = seq; }, () => {});
    }
    if (this.stopped || this.fatal !== null || Date.now() - this.lastProgress < STALL_MS) return;
    try {
      const { lastSeq } = await this.options.taskLog.streamState();
      if (await this.checkGap()) return;
      if (lastSeq >= this.nextSeq) {
        this.options.log('warn', `task log consumer stalled at sequence ${this.nextSeq} (stream at ${lastSeq}): recreating it`);
        this.lastProgress = Date.now();
        this.messages?.stop();
      } else {
        this.lastProgress = Date.now();
      }
    } catch {
      // NATS unreachable right now: the next tick tries again
    }
  }
}
