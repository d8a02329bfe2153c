// Cluster mode: API keys (/keys writes) and experimental features (PATCH /experimental-features) are
// replicated through a JetStream stream of their own, `skein-config` (main thread). A node that takes
// such a write publishes it (message id, retried until acknowledged) and answers once it applied the
// entry itself, with its own outcome; every node applies the stream in order through its scheduler
// (scheduler/config/config-entry.ts: the sequence stored with the change), so every node holds the same keys
// (same uid, hence the same `key` value under the same master key) and the same flags, and a refusal
// (a uid that exists, a key deleted meanwhile) is the same refusal everywhere. Not the task log: an
// entry there takes a sequence, and task uids are sequences - 1 without gaps (DECISIONS.md).
// The stream is small and never purged: a node replays it from the sequence its LMDB applied (a node
// joining from a snapshot from the snapshot's).
import { randomUUID } from 'node:crypto';
import { defaultKeyRecords } from '../auth/key-record.js';
import { nowRfc3339 } from '../tasks/timestamps.js';
import type { ConsumerMessages } from '@nats-io/jetstream';
import { SkeinError } from '../errors/index.js';
import type { SchedulerClient } from '../front/threads/scheduler-client.js';
import type { KeyCommand } from '../protocol/messages.js';
import type { Storage } from '../storage/environment.js';
import { appliedConfigSeq } from '../scheduler/config/config-entry.js';
import { readFeatures } from '../storage/experimental-features.js';
import type { TaskLog } from './task-log.js';

export const CONFIG_STREAM = 'skein-config';
const CONFIG_SUBJECT = 'skein.config';
const STALL_MS = 2500;
const WATCH_EVERY_MS = 1000;
/** How long a /keys or features write waits for this node to apply it before answering an error (it is in the log). */
const LOCAL_APPLY_WAIT_MS = 15_000;
/** Requests waiting at once for this node to catch up with the log (appliedAll); more are answered false at once (each holds ≤ ~128 KiB of body). */
const MAX_CATCH_UP_WAITERS = 1024;

type ConfigEntry =
  | { v: 1; kind: 'key'; command: KeyCommand }
  | { v: 1; kind: 'features'; patch: Record<string, boolean> };

interface CatchUpWaiter {
  /** The stream's last sequence read after the caller asked; null: not read yet. */
  seq: number | null;
  done: (applied: boolean) => void;
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class ConfigLog {
  private nextSeq: number;
  private stopped = false;
  private messages: ConsumerMessages | null = null;
  private running: Promise<void> | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private lastProgress = Date.now();
  private catchUpTarget: number | null = null;
  /** Writers of this node waiting for their entry to be applied here, by sequence. */
  private readonly waiters = new Map<number, Waiter>();
  /** Outcomes applied before their writer registered (the publish ack can arrive after the delivery). */
  private readonly early = new Map<number, { value: unknown; error: unknown }>();
  /** appliedAll callers: waiting for a read of the stream's last sequence (seq null), then for this node to apply up to it (settle()). */
  private readonly catchUpWaiters = new Set<CatchUpWaiter>();
  /** One read of the stream's last sequence in flight at a time; another wanted after it (callers arrived meanwhile). */
  private readingLastSeq = false;
  private lastSeqWanted = false;

  constructor(
    private readonly taskLog: TaskLog,
    private readonly scheduler: SchedulerClient,
    private readonly storage: Storage,
    private readonly replicas: number,
    private readonly nodeName: string,
    private readonly log: (level: 'info' | 'warn' | 'error', message: string) => void,
  ) {
    this.nextSeq = appliedConfigSeq(storage) + 1;
  }

  /** Caught up with the stream as it was at start (GET /health). */
  get available(): boolean {
    return this.catchUpTarget !== null && this.nextSeq > this.catchUpTarget;
  }

  async start(): Promise<void> {
    await this.ensureStream();
    await this.seedDefaultKeys();
    void this.taskLog.jsm.streams.info(CONFIG_STREAM).then((info) => { this.catchUpTarget = info.state.last_seq; },
      (cause) => this.log('warn', `config log: its state could not be read (${(cause as Error).message})`));
    this.running = this.run();
    this.watchdog = setInterval(() => void this.watch(), WATCH_EVERY_MS);
    this.watchdog.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.messages?.stop();
    await this.running?.catch(() => {});
    for (const waiter of this.waiters.values()) waiter.reject(new SkeinError('internal', 'The node is shutting down.'));
    this.waiters.clear();
    for (const waiter of [...this.catchUpWaiters]) waiter.done(false);
  }

  /**
   * Resolves true once this node applied every entry the stream held when asked (false past
   * `timeoutMs`, or when too many wait already): a key another node just created, missing here, is
   * then found (keys-routes.ts, and every route's authentication: front/keys/authorization.ts). Callers
   * share the reads of the stream's last sequence (one in flight; those arriving meanwhile join the
   * next, which starts after they asked, so it counts every entry acknowledged before), and are woken
   * by the application itself: a flood of unknown keys costs one small NATS request at a time.
   */
  appliedAll(timeoutMs = LOCAL_APPLY_WAIT_MS): Promise<boolean> {
    if (this.stopped || this.catchUpWaiters.size >= MAX_CATCH_UP_WAITERS) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const waiter: CatchUpWaiter = {
        seq: null,
        done: (applied) => {
          if (timer === null) return;
          clearTimeout(timer);
          timer = null;
          this.catchUpWaiters.delete(waiter);
          resolve(applied);
        },
      };
      timer = setTimeout(() => waiter.done(false), timeoutMs);
      this.catchUpWaiters.add(waiter);
      this.lastSeqWanted = true;
      if (!this.readingLastSeq) this.readLastSeq();
    });
  }

  /** One read of the stream's last sequence for every waiter that asked before it started. */
  private readLastSeq(): void {
    this.readingLastSeq = true;
    this.lastSeqWanted = false;
    const asked = [...this.catchUpWaiters].filter((waiter) => waiter.seq === null);
    if (asked.length === 0) {
      this.readingLastSeq = false;
      return;
    }
    void this.taskLog.jsm.streams.info(CONFIG_STREAM).then((info) => info.state.last_seq, () => null).then((lastSeq) => {
      for (const waiter of asked) {
        if (lastSeq === null || this.stopped) waiter.done(false);
        else if (this.nextSeq > lastSeq) waiter.done(true);
        else waiter.seq = lastSeq;
      }
      if (this.lastSeqWanted && !this.stopped) this.readLastSeq();
      else this.readingLastSeq = false;
    });
  }

  keyCommand(command: KeyCommand): Promise<unknown> {
    return this.publish({ v: 1, kind: 'key', command });
  }

  updateFeatures(patch: Record<string, boolean>): Promise<Record<string, boolean>> {
    return this.publish({ v: 1, kind: 'features', patch }) as Promise<Record<string, boolean>>;
  }

  /**
   * The default keys of a new cluster: the first entry of the config log, so every node stores the same
   * records (uids, dates). Nodes starting together publish under one message id (JetStream keeps the
   * first); a node applies it only to an empty key store (scheduler/config/key-store.ts).
   */
  private async seedDefaultKeys(): Promise<void> {
    if ((await this.taskLog.jsm.streams.info(CONFIG_STREAM)).state.last_seq > 0) return;
    const entry: ConfigEntry = { v: 1, kind: 'key', command: { op: 'seedDefaults', records: defaultKeyRecords(nowRfc3339()) } };
    await this.taskLog.publishTo(CONFIG_SUBJECT, new TextEncoder().encode(JSON.stringify(entry)), 'skein.default-keys');
  }

  private async ensureStream(): Promise<void> {
    try {
      await this.taskLog.jsm.streams.info(CONFIG_STREAM);
    } catch {
      await this.taskLog.jsm.streams.add({
        name: CONFIG_STREAM, subjects: [CONFIG_SUBJECT], num_replicas: this.replicas,
        discard: 'new' as never, duplicate_window: 2 * 60 * 1_000_000_000,
      }).catch(async (cause) => {
        // Another node created it meanwhile.
        await this.taskLog.jsm.streams.info(CONFIG_STREAM).catch(() => { throw cause; });
      });
    }
  }

  /** Publishes until acknowledged, then waits for this node's own application and answers its outcome. */
  private async publish(entry: ConfigEntry): Promise<unknown> {
    const frame = new TextEncoder().encode(JSON.stringify(entry));
    let seq: number;
    try {
      seq = await this.taskLog.publishTo(CONFIG_SUBJECT, frame, `${this.nodeName}.${randomUUID()}`);
    } catch (cause) {
      throw new SkeinError('internal', `The config log did not acknowledge the change: ${(cause as Error).message}.`);
    }
    const early = this.early.get(seq);
    if (early) {
      this.early.delete(seq);
      if (early.error) throw early.error;
      return early.value;
    }
    if (seq < this.nextSeq) return this.currentOutcome(entry);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(seq);
        reject(new SkeinError('internal', `The change is in the config log (sequence ${seq}) but this node did not apply it within ${LOCAL_APPLY_WAIT_MS} ms.`));
      }, LOCAL_APPLY_WAIT_MS);
      this.waiters.set(seq, {
        resolve: (value) => { clearTimeout(timer); resolve(value); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
    });
  }

  /** An entry applied before (a replay answers nothing): what is stored now. */
  private currentOutcome(entry: ConfigEntry): unknown {
    this.storage.root.resetReadTxn();
    if (entry.kind === 'features') return readFeatures(this.storage.meta);
    const command = entry.command;
    if (command.op === 'delete' || command.op === 'seedDefaults') return null;
    return this.storage.keys.get(command.op === 'create' ? command.record.uid : command.uid) ?? null;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const consumer = await this.taskLog.js.consumers.get(CONFIG_STREAM, { deliver_policy: 'by_start_sequence' as never, opt_start_seq: this.nextSeq });
        const messages = await consumer.consume({ max_messages: 64 });
        this.messages = messages;
        this.lastProgress = Date.now();
        for await (const message of messages) {
          if (this.stopped) break;
          if (message.seq < this.nextSeq) continue;
          if (message.seq > this.nextSeq) {
            this.log('warn', `config log: sequence ${message.seq} delivered while ${this.nextSeq} was expected; resuming from ${this.nextSeq}`);
            break;
          }
          await this.apply(message.seq, message.data, message.headers?.get('Nats-Msg-Id')?.startsWith(`${this.nodeName}.`) ?? false);
        }
        messages.stop();
      } catch (cause) {
        if (this.stopped) break;
        this.log('warn', `config log consumer: ${(cause as Error).message}; recreating it from sequence ${this.nextSeq}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** A refusal is the entry's outcome (the same on every node); a dead scheduler thread is retried. */
  private async apply(seq: number, data: Uint8Array, ownEntry: boolean): Promise<void> {
    let entry: ConfigEntry;
    try {
      entry = JSON.parse(new TextDecoder().decode(data)) as ConfigEntry;
    } catch {
      this.log('error', `config log: sequence ${seq} is not an entry; skipped`);
      this.settle(seq, null, new SkeinError('internal', 'The config log entry is malformed.'), ownEntry);
      return;
    }
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const value = entry.kind === 'key'
          ? await this.scheduler.keyCommand(entry.command, seq)
          : await this.scheduler.updateFeatures(entry.patch, seq);
        this.settle(seq, value ?? this.currentOutcome(entry), null, ownEntry);
        return;
      } catch (cause) {
        if (cause instanceof SkeinError && cause.code !== 'internal') {
          this.settle(seq, null, cause, ownEntry);
          return;
        }
        this.log(attempt === 0 ? 'warn' : 'error', `config log: applying sequence ${seq} failed (${(cause as Error).message}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
      }
    }
  }

  private settle(seq: number, value: unknown, error: unknown, ownEntry: boolean): void {
    this.nextSeq = seq + 1;
    this.lastProgress = Date.now();
    for (const waiter of this.catchUpWaiters) if (waiter.seq !== null && waiter.seq <= seq) waiter.done(true);
    const waiter = this.waiters.get(seq);
    this.waiters.delete(seq);
    if (waiter) {
      if (error) waiter.reject(error);
      else waiter.resolve(value);
    } else if (ownEntry && this.early.size < 1024) {
      this.early.set(seq, { value, error });
    }
  }

  private async watch(): Promise<void> {
    if (this.stopped || Date.now() - this.lastProgress < STALL_MS) return;
    try {
      const info = await this.taskLog.jsm.streams.info(CONFIG_STREAM);
      this.catchUpTarget ??= info.state.last_seq;
      if (info.state.last_seq >= this.nextSeq) {
        this.log('warn', `config log consumer stalled at sequence ${this.nextSeq} (stream at ${info.state.last_seq}): recreating it`);
        this.messages?.stop();
      }
      this.lastProgress = Date.now();
    } catch {
      // NATS unreachable right now: the next tick tries again
    }
  }
}
