// A shard worker's snapshots: which committed state its shards hold, restoring shards from files at
// start, saving the shards whose committed state is not on disk yet, removing the files of a dropped
// index. The rule that keeps snapshots correct: a shard is written only under the commit stamp the
// scheduler announced (IndexCommitted) for the state the worker holds; any write, reload or load
// makes the index's state unstamped until the next announcement. A shard held by several workers
// (replicas, src/protocol/placement.ts) has one file: only its primary owner writes and removes it
// (two writers would race on it), every owner restores from it.
import { primaryOwnerOfShard } from '../../protocol/placement.js';
import type { IndexConfig } from '../index-config.js';
import type { ShardEngine } from '../shard-engine.js';
import type { ShardIndex } from '../shard-index.js';
import { decodeShardSnapshot, encodeShardSnapshot, encodeShardSnapshotSteps, settingsFingerprint, type ShardSnapshotIdentity } from './shard-snapshot.js';
import { SnapshotFormatError, type SnapshotReader } from './snapshot-container.js';
import { openSnapshotFile, readAheadOf, removeSnapshots, type ReadAhead, removeTemporaryFiles, snapshotFolder, snapshotPath, writeFileAtomically, writeFileInSteps } from './snapshot-files.js';
import type { SlicedJob } from '../sliced-jobs.js';

interface ShardDue {
  indexUid: string;
  shard: number;
  shardIndex: ShardIndex;
  stamp: number;
  shardCount: number;
  config: IndexConfig;
}

export class SnapshotKeeper {
  /** Per index: the commit stamp of the state held in memory; null while it holds unannounced changes. */
  private readonly stamps = new Map<string, number | null>();
  /** Per index: shard -> the stamp of its file on disk (written or read by this worker). */
  private readonly saved = new Map<string, Map<number, number>>();
  /** Files being read ahead (path -> the read: a reader, null when missing, or its error), from `adoptReadsAhead` or `readAhead`. */
  private readonly pendingReads = new Map<string, Promise<ReadAhead>>();
  /** Files read ahead and settled by `readAhead`, each taken once by `restore`. */
  private readonly readAheads = new Map<string, ReadAhead>();

  constructor(private readonly dbPath: string, private readonly engine: ShardEngine,
    private readonly log: (message: string) => void = (message) => console.error(message)) {}

  /**
   * The shard from its snapshot when that is exactly the committed state `commitSeq` with this config;
   * null otherwise (missing, stale, corrupt, unreadable: the caller rebuilds it from LMDB).
   */
  restore(indexUid: string, shard: number, shardCount: number, commitSeq: number, config: IndexConfig): ShardIndex | null {
    const path = snapshotPath(this.dbPath, indexUid, shard);
    const identity = this.identity(indexUid, shard, shardCount, commitSeq, config);
    if (this.isPrimary(shard)) removeTemporaryFiles(path); // saves cut short by a kill
    try {
      const readAhead = this.readAheads.get(path);
      this.readAheads.delete(path);
      if (readAhead instanceof Error) throw readAhead;
      const file = readAhead === undefined ? openSnapshotFile(path) : readAhead;
      if (file === null) return null;
      const restored = decodeShardSnapshot(file, identity, config);
      this.savedOf(indexUid).set(shard, commitSeq);
      return restored;
    } catch (cause) {
      // A stale one (older stamp, other settings) is expected after a crash; anything else is worth a line.
      const message = (cause as Error).message;
      if (!(cause instanceof SnapshotFormatError) || !/commitSeq|settingsFingerprint|shardCount/.test(message)) {
        this.log(`[shard] snapshot ${path} not used (${message}): rebuilding the shard`);
      }
      return null;
    }
  }

  /**
   * Reads these shards' files ahead (checked: SnapshotReader.fromFileAsync, the read overlapping its CRC),
   * for the `restore` calls that follow; the identity is checked there. A failure is kept for `restore`
   * to report. Sequential: one file in memory ahead of its decoding at a time per call.
   */
  async readAhead(indexUid: string, shards: readonly number[]): Promise<void> {
    for (const shard of shards) {
      const path = snapshotPath(this.dbPath, indexUid, shard);
      let read = this.pendingReads.get(path);
      if (read === undefined) this.pendingReads.set(path, (read = readAheadOf(path)));
      this.readAheads.set(path, await read);
    }
  }

  /** Reads started before this keeper existed (readSnapshotsEarly, when the thread started), for `readAhead` to take. */
  adoptReadsAhead(reads: ReadonlyMap<string, Promise<ReadAhead>>): void {
    for (const [path, read] of reads) this.pendingReads.set(path, read);
  }

  /** Drops what was read ahead and no `restore` took (reads still running are left to end unobserved: they never reject). */
  dropReadAheads(): void {
    this.pendingReads.clear();
    this.readAheads.clear();
  }

  /** The index was just loaded from LMDB (or snapshots) at this stamp. */
  loaded(indexUid: string, commitSeq: number): void {
    this.stamps.set(indexUid, commitSeq);
  }

  /** A write, reload or load: the state held is not a committed one until the next `committed`. */
  changed(indexUid: string): void {
    this.stamps.set(indexUid, null);
  }

  committed(indexUid: string, commitSeq: number): void {
    this.stamps.set(indexUid, commitSeq);
  }

  dropped(indexUid: string): void {
    this.stamps.delete(indexUid);
    this.saved.delete(indexUid);
    removeSnapshots(this.dbPath, indexUid, (shard) => this.isPrimary(shard));
  }

  /** Writes every shard whose committed state is not on disk yet; returns how many were written. */
  saveAll(): number {
    let written = 0;
    for (const due of this.shardsDue()) {
      try {
        writeFileAtomically(snapshotPath(this.dbPath, due.indexUid, due.shard), snapshotFolder(this.dbPath, due.indexUid), this.encode(due));
        this.savedOf(due.indexUid).set(due.shard, due.stamp);
        written++;
      } catch (cause) {
        this.log(`[shard] snapshot of ${due.indexUid}/${due.shard} failed: ${(cause as Error).message}`);
      }
    }
    return written;
  }

  /**
   * saveAll as a sliced job (quiet time, between searches): a shard is encoded in steps of about a
   * millisecond (encodeShardSnapshotSteps), its file written in steps (writeFileInSteps). The job must be cancelled by any write, reload, load or
   * drop (the shard's arrays are read as they are); a shard whose index lost the stamp meanwhile is
   * not renamed into place either way.
   */
  *saveSteps(): SlicedJob {
    for (const due of this.shardsDue()) {
      const { indexUid, shard, shardIndex, stamp } = due;
      let chunks: Uint8Array[];
      try {
        chunks = yield* encodeShardSnapshotSteps(shardIndex, this.identity(indexUid, shard, due.shardCount, stamp, due.config));
      } catch (cause) {
        this.log(`[shard] snapshot of ${indexUid}/${shard} failed: ${(cause as Error).message}`);
        continue;
      }
      yield;
      const stillValid = () => this.stamps.get(indexUid) === stamp && this.engine.loadedIndex(indexUid)?.shards.get(shard) === shardIndex;
      try {
        const written = yield* writeFileInSteps(snapshotPath(this.dbPath, indexUid, shard), snapshotFolder(this.dbPath, indexUid), chunks, stillValid);
        if (written) this.savedOf(indexUid).set(shard, stamp);
      } catch (cause) {
        this.log(`[shard] snapshot of ${indexUid}/${shard} failed: ${(cause as Error).message}`);
      }
    }
  }

  /** The shards this worker must save: primary here, under an announced stamp, not on disk at that stamp yet. */
  private *shardsDue(): Generator<ShardDue> {
    for (const indexUid of this.engine.indexUids()) {
      const stamp = this.stamps.get(indexUid);
      const index = this.engine.loadedIndex(indexUid);
      if (stamp === undefined || stamp === null || !index || index.shardCount === 0) continue;
      const saved = this.savedOf(indexUid);
      for (const [shard, shardIndex] of index.shards) {
        if (saved.get(shard) === stamp || !this.isPrimary(shard)) continue;
        yield { indexUid, shard, shardIndex, stamp, shardCount: index.shardCount, config: index.config };
      }
    }
  }

  private encode(due: ShardDue): Uint8Array[] {
    return encodeShardSnapshot(due.shardIndex, this.identity(due.indexUid, due.shard, due.shardCount, due.stamp, due.config));
  }

  /** Whether this worker writes and removes the shard's file (a replica only reads it). */
  private isPrimary(shard: number): boolean {
    return primaryOwnerOfShard(shard, this.engine.workerCount) === this.engine.workerIndex;
  }

  private identity(indexUid: string, shard: number, shardCount: number, commitSeq: number, config: IndexConfig): ShardSnapshotIdentity {
    return { indexUid, shard, shardCount, commitSeq, settingsFingerprint: settingsFingerprint(config.settings) };
  }

  private savedOf(indexUid: string): Map<number, number> {
    let saved = this.saved.get(indexUid);
    if (!saved) this.saved.set(indexUid, (saved = new Map()));
    return saved;
  }
}
