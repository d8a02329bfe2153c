// The front's read-only view of index records. Records are cached because every search needs
// one; the scheduler's `indexesChanged` message drops the stale entries after each commit.
import { SkeinError } from '../errors/index.js';
import type { Storage } from '../storage/environment.js';
import type { IndexRecord } from '../storage/records.js';

export class IndexCatalog {
  private readonly cache = new Map<string, IndexRecord | null>();

  constructor(private readonly storage: Storage) {}

  get(uid: string): IndexRecord | null {
    let record = this.cache.get(uid);
    if (record === undefined) {
      record = this.storage.indexes.get(uid) ?? null;
      this.cache.set(uid, record);
    }
    return record;
  }

  require(uid: string): IndexRecord {
    const record = this.get(uid);
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
    for (const uid of uids) this.cache.delete(uid);
  }
}
