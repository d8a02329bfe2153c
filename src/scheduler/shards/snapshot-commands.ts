// The scheduler's part in shard snapshots (src/shard/snapshot/snapshot-keeper.ts): after a batch's commit or
// rollback it tells every worker the commit stamp of the state their shards of the index now hold,
// read back from LMDB (this thread is its only writer, so that is exactly the committed state);
// and after a quiet while, or at shutdown, it asks the workers to save their snapshots.
import type { Storage } from '../../storage/environment.js';
import { storageKeyOf } from '../../storage/records.js';
import type { ShardCommandSender } from './shard-link.js';

/**
 * Resolves once every worker acknowledged; never rejects (a snapshot is an optimization). The commands
 * are posted before the first await: on each port they must come before the next batch's writes, or a
 * worker would stamp uncommitted writes as committed.
 */
export async function announceCommitted(storage: Pick<Storage, 'indexes'>, shards: ShardCommandSender, indexUid: string,
  log: (message: string) => void): Promise<void> {
  const record = storage.indexes.get(indexUid);
  if (!record) return;
  const commitSeq = record.commitSeq ?? 0;
  await sendToEveryWorker(shards, { kind: 'indexCommitted', indexUid: storageKeyOf(record), commitSeq }, log);
}

/** prepareSearch: at idle time, the workers then also build their lazy search structures (not at shutdown). */
export async function saveSnapshots(shards: ShardCommandSender, log: (message: string) => void, prepareSearch: boolean): Promise<void> {
  await sendToEveryWorker(shards, { kind: 'saveSnapshots', prepareSearch }, log);
}

/** A snapshotCreation task: resolves once every worker wrote the files its committed state lacked (never rejects). */
export async function saveSnapshotsUntilWritten(shards: ShardCommandSender, log: (message: string) => void): Promise<void> {
  await sendToEveryWorker(shards, { kind: 'saveSnapshots', prepareSearch: false, untilSaved: true }, log);
}

async function sendToEveryWorker(shards: ShardCommandSender, command: Parameters<ShardCommandSender['send']>[1],
  log: (message: string) => void): Promise<void> {
  // A dead worker is skipped: its replacement loads the committed state and its stamp itself.
  const workers = Array.from({ length: shards.workerCount }, (_, worker) => worker).filter((worker) => shards.isUp?.(worker) ?? true);
  const results = await Promise.allSettled(workers.map((worker) => shards.send(worker, command)));
  for (const result of results) if (result.status === 'rejected') log(`${command.kind} failed: ${(result.reason as Error).message}`);
}

/**
 * Asks for snapshots once the scheduler has been idle with an empty queue for `quietMs` after the
 * last poke (a commit, the start): never between the batches of a bulk load, where a snapshot would
 * only slow indexing down.
 */
export class SnapshotTrigger {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly isIdle: () => boolean, private readonly save: () => Promise<void>, private readonly quietMs = 2000) {}

  poke(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.isIdle()) void this.save();
      else this.poke();
    }, this.quietMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
