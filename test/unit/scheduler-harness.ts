// Test support for the scheduler: a real LMDB in a temp dir, fake shard workers that record and ack
// commands (or fail chosen ones), and helpers to enqueue and write update files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkeinError } from '../../src/errors/index.js';
import { closeStorage, openStorage, type Storage } from '../../src/storage/environment.js';
import type { ShardCommand, ShardCommandSender } from '../../src/scheduler/shards/shard-link.js';
import { Scheduler, type SchedulerOptions } from '../../src/scheduler/state-machine.js';
import type { TaskContent, TaskRecord } from '../../src/tasks/task-record.js';

export interface SentCommand {
  worker: number;
  command: ShardCommand;
}

export class FakeShards implements ShardCommandSender {
  readonly sent: SentCommand[] = [];
  failWhen: ((sent: SentCommand) => boolean) | null = null;
  /** While set (holdAcks), sends wait for it before acking (to interleave work mid-batch). */
  private gate: Promise<void> | null = null;

  constructor(readonly workerCount: number) {}

  /** Snapshot bookkeeping (indexCommitted, saveSnapshots): kept apart so `sent` shows the data commands only. */
  readonly snapshotCommands: SentCommand[] = [];

  /** PrepareSearch (before the commit of a batch leaving the queue empty): apart too. */
  readonly prepareCommands: SentCommand[] = [];

  /** Called for every command as it is sent (data and snapshot commands alike, in order). */
  onSend: ((sent: SentCommand) => void) | null = null;

  async send(worker: number, command: ShardCommand): Promise<void> {
    const sent = { worker, command };
    this.onSend?.(sent);
    if (command.kind === 'indexCommitted' || command.kind === 'saveSnapshots') {
      this.snapshotCommands.push(sent);
      return;
    }
    if (command.kind === 'prepareSearch') {
      this.prepareCommands.push(sent);
      return;
    }
    this.sent.push(sent);
    if (this.gate) await this.gate;
    if (this.failWhen?.(sent)) throw new SkeinError('internal', `shard ${worker} refused ${command.kind}`);
  }

  /** Holds every ack from now on; the returned function lets them (and later sends) through again. */
  holdAcks(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => { release = resolve; });
    return () => {
      this.gate = null;
      release();
    };
  }

  kinds(): string[] {
    return this.sent.map(({ command }) => command.kind);
  }

  clear(): void {
    this.sent.length = 0;
  }
}

export interface Harness {
  dir: string;
  storage: Storage;
  shards: FakeShards;
  scheduler: Scheduler;
  changes: string[][];
  enqueue(content: TaskContent): TaskRecord;
  addDocuments(indexUid: string, documents: unknown[], options?: { method?: 'replace' | 'update'; primaryKey?: string | null }): TaskRecord;
  task(uid: number): TaskRecord;
  run(): Promise<void>;
  restart(options?: Partial<SchedulerOptions>): Promise<void>;
  close(): Promise<void>;
}

let fileCounter = 0;

export async function createHarness(options: Partial<SchedulerOptions> & { workerCount?: number; dir?: string } = {}): Promise<Harness> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'skein-scheduler-'));
  const shards = new FakeShards(options.workerCount ?? 2);
  const changes: string[][] = [];
  const make = (storage: Storage, extra: Partial<SchedulerOptions>) => new Scheduler({
    storage, shards, shardsPerIndex: 4, onIndexesChanged: (uids) => changes.push(uids), log: process.env.SKEIN_DEBUG_SCHEDULER ? (message: string) => console.error(message) : () => {}, ...options, ...extra,
  });
  const harness: Harness = {
    dir,
    storage: openStorage(dir),
    shards,
    scheduler: null as unknown as Scheduler,
    changes,
    enqueue: (content) => harness.scheduler.enqueue(content),
    addDocuments(indexUid, documents, { method = 'replace', primaryKey = null } = {}) {
      const updateFile = `test-${process.pid}-${++fileCounter}.ndjson`;
      writeFileSync(join(harness.storage.updateFilesDir, updateFile), documents.map((d) => JSON.stringify(d)).join('\n'));
      return harness.enqueue({ type: 'documentAdditionOrUpdate', indexUid, method, updateFile, documentCount: documents.length, primaryKey });
    },
    task: (uid) => harness.storage.tasks.get(uid)!,
    /** The harness's scheduler stays paused (deterministic batches) except during run(). */
    async run() {
      harness.scheduler.resume();
      await harness.scheduler.whenIdle();
      harness.scheduler.pause();
    },
    async restart(extra = {}) {
      await harness.scheduler.whenIdle();
      await closeStorage(harness.storage);
      harness.storage = openStorage(dir);
      harness.scheduler = make(harness.storage, extra);
      harness.scheduler.pause();
      await harness.scheduler.start();
    },
    async close() {
      await harness.scheduler.whenIdle();
      await closeStorage(harness.storage);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  harness.scheduler = make(harness.storage, {});
  harness.scheduler.pause();
  await harness.scheduler.start();
  return harness;
}

export function documentsOf(storage: Storage, indexUid: string): unknown[] {
  return [...storage.documents.getRange({ start: [indexUid, 0], end: [indexUid, 0xffffffff + 1] })].map(({ value }) => JSON.parse(value));
}
