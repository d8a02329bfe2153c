// The front's read-only view of index records. Records are cached because every search needs
// one; the scheduler's `indexesChanged` message drops the stale entries after each commit.
//
// Swaps: a record names where its data lives (its storage key, storage/records.ts), and a swap or
// rename moves keys between uids in one commit. Until that commit's indexesChanged arrives, a uid read
// fresh could meet cached records of the commit before: two uids naming one key, a half-swapped view
// (a multi-search over both sides would read one side twice). A fresh read whose key a cached record
// of another uid holds therefore drops the whole cache first, so the view switches every pair at once.
import { SkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import type { CommitFence } from '../../protocol/commit-fence.js';
import { storageKeyOf, type IndexRecord } from '../../storage/records.js';

/** Index records of one view of the commits, by uid (null: no such index then). */
export type IndexView = ReadonlyMap<string, IndexRecord | null>;

export class IndexCatalog {
  private readonly cache = new Map<string, IndexRecord | null>();
  /** storage key -> the cached uid whose record holds it. */
  private readonly keyOwners = new Map<string, string>();
  /** Records read from LMDB this event-loop turn while the cache does not hold (readThisTurn); null between turns. */
  private turnReads: Map<string, IndexRecord | null> | null = null;
  /** Bumped whenever the whole cache is dropped (a swap seen before its announcement). */
  private generation = 0;

  /** `fence`: whether every commit LMDB shows was announced (protocol/commit-fence.ts); absent: the cache always holds. */
  constructor(private readonly storage: Storage, private readonly fence: CommitFence | null = null) {}

  get(uid: string): IndexRecord | null {
    if (this.fence !== null && !this.fence.cachesHold()) return this.readThisTurn(uid);
    return this.cached(uid);
  }

  /**
   * The records of every uid from one view of the commits, for a multi-search: its queries take their
   * records from this view (require's `view`), so a swap committed while they are dispatched (the fence
   * is shared memory: a commit may begin between two queries of one turn) never shows one side twice.
   * The fence is asked once: while the caches hold, the cached records (a fresh read meeting a key
   * cached under another uid drops the cache and reads again; bounded, each drop follows a commit seen
   * for the first time); otherwise, or after 8 drops, every record from one new read transaction.
   */
  resolveTogether(uids: readonly string[]): IndexView {
    const view = new Map<string, IndexRecord | null>();
    if (this.fence === null || this.fence.cachesHold()) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const before = this.generation;
        for (const uid of uids) view.set(uid, this.cached(uid));
        if (this.generation === before) return view;
      }
    }
    this.storage.root.resetReadTxn();
    for (const uid of uids) view.set(uid, this.storage.indexes.get(uid) ?? null);
    return view;
  }

  /** `view`: a multi-search's records (resolveTogether), used for the uids it holds. */
  require(uid: string, view: IndexView | null = null): IndexRecord {
    const seen = view?.get(uid);
    const record = seen === undefined ? this.get(uid) : seen;
    if (!record) throw new SkeinError('index_not_found', `Index \`${uid}\` not found.`);
    return record;
  }

  /** Every index, by uid ascending (LMDB key order), read fresh. */
  list(): IndexRecord[] {
    const out: IndexRecord[] = [];
    for (const { value } of this.storage.indexes.getRange()) out.push(value);
    return out;
  }

  invalidate(uids: readonly string[]): void {
    // A read transaction opened before the scheduler's commit would still show the old record.
    this.storage.root.resetReadTxn();
    for (const uid of uids) this.forget(uid);
  }

  /**
   * A commit not announced yet (or under way): its task may already read `succeeded`, so LMDB is read
   * instead of the cache, from one read transaction per event-loop turn (renewed at the turn's first
   * read, kept in `turnReads` until the next turn), so that a multi-search resolving its indexes in
   * one turn still sees one side of a swap.
   */
  private readThisTurn(uid: string): IndexRecord | null {
    if (this.turnReads === null) {
      this.turnReads = new Map();
      this.storage.root.resetReadTxn();
      setImmediate(() => { this.turnReads = null; });
    }
    let record = this.turnReads.get(uid);
    if (record === undefined) this.turnReads.set(uid, record = this.storage.indexes.get(uid) ?? null);
    return record;
  }

  private cached(uid: string): IndexRecord | null {
    let record = this.cache.get(uid);
    if (record === undefined) {
      record = this.storage.indexes.get(uid) ?? null;
      const owner = record === null ? undefined : this.keyOwners.get(storageKeyOf(record));
      if (owner !== undefined && owner !== uid) {
        // A swap or rename committed and not announced yet: every cached record may be of before it.
        this.clear();
        record = this.storage.indexes.get(uid) ?? null;
      }
      this.remember(uid, record);
    }
    return record;
  }

  private remember(uid: string, record: IndexRecord | null): void {
    this.cache.set(uid, record);
    if (record !== null) this.keyOwners.set(storageKeyOf(record), uid);
  }

  private forget(uid: string): void {
    const record = this.cache.get(uid);
    this.cache.delete(uid);
    if (record && this.keyOwners.get(storageKeyOf(record)) === uid) this.keyOwners.delete(storageKeyOf(record));
  }

  private clear(): void {
    this.generation++;
    this.storage.root.resetReadTxn();
    this.cache.clear();
    this.keyOwners.clear();
  }
}
