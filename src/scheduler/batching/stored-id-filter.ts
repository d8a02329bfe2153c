// Which external ids an index may hold in LMDB, so that planning a document addition skips the LMDB
// read of an id it proves new (StagedIndex.docIdOf): a bulk load's every id is new, and each read
// cost ~2.4 µs of the scheduler thread, the bottleneck of a 1M-row load (bench/npm-scale/README.md).
// A superset of the index's stored ids: those LMDB held when the filter was made (one scan of the
// index's ids), and every id a commit wrote since (told before its transaction: noteWritten). Ids
// deleted since stay in it, and hashes collide: either only costs the read the filter saves.
import type { Storage } from '../../storage/environment.js';

/**
 * A filter is made for an index once the reads it would have saved are worth the scan: after
 * storedCount / SCAN_WORTH_READS reads (a scan reads each id for less than a tenth of a read's cost).
 * An empty index's is made at its first read.
 */
const SCAN_WORTH_READS = 8;
const MIN_SLOTS = 1 << 10;

/** External ids' 32-bit hashes in open addressing (0: an empty slot), at most half full. */
class IdHashSet {
  private slots = new Int32Array(MIN_SLOTS);
  private count = 0;

  add(externalId: string): void {
    if (2 * (this.count + 1) > this.slots.length) this.grow();
    if (insert(this.slots, hashOf(externalId))) this.count++;
  }

  has(externalId: string): boolean {
    const slots = this.slots;
    const hash = hashOf(externalId);
    const mask = slots.length - 1;
    for (let at = hash & mask; slots[at] !== 0; at = (at + 1) & mask) if (slots[at] === hash) return true;
    return false;
  }

  get byteLength(): number {
    return this.slots.byteLength;
  }

  private grow(): void {
    const larger = new Int32Array(2 * this.slots.length);
    for (const hash of this.slots) if (hash !== 0) insert(larger, hash);
    this.slots = larger;
  }
}

/** Places the hash unless present; whether it was new. */
function insert(slots: Int32Array, hash: number): boolean {
  const mask = slots.length - 1;
  let at = hash & mask;
  for (; slots[at] !== 0; at = (at + 1) & mask) if (slots[at] === hash) return false;
  slots[at] = hash;
  return true;
}

/** FNV-1a over the UTF-16 units, then mixed (the low bits pick the slot); never 0. */
function hashOf(externalId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < externalId.length; i++) hash = Math.imul(hash ^ externalId.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash === 0 ? 1 : hash;
}

/**
 * Owner: the Scheduler (one per scheduler thread; the only LMDB writer), which tells it of every
 * commit's index writes (noteWritten) and of dropped indexes (forget). Lifetime: the thread's; an
 * index's set from its first worthwhile use until the index is deleted. Size: 8 bytes a stored id at
 * most (4-byte slots, at most half full), e.g. 8 MiB at 1M ids (`byteLength`).
 */
export class StoredIdFilter {
  private readonly byKey = new Map<string, { reads: number; ids: IdHashSet | null }>();

  /**
   * false: LMDB holds no `externalId` under the storage key (the read can be skipped); true: it may
   * (read it). `storedCount`: about how many ids the index holds (its committed documentCount), which
   * says when a scan is worth it.
   */
  mayBeStored(storage: Pick<Storage, 'externalIds'>, key: string, externalId: string, storedCount: number): boolean {
    let entry = this.byKey.get(key);
    if (entry === undefined) this.byKey.set(key, entry = { reads: 0, ids: null });
    if (entry.ids === null) {
      if (SCAN_WORTH_READS * entry.reads < storedCount) {
        entry.reads++;
        return true;
      }
      const ids = new IdHashSet();
      for (const stored of storage.externalIds.getKeys({ start: [key, ''], end: [key, '\uffff'] })) ids.add((stored as [string, string])[1]);
      entry.ids = ids;
    }
    return entry.ids.has(externalId);
  }

  /** Before a commit's transaction writes these ids under the key (null: a deletion, nothing to add). */
  noteWritten(key: string, externalIds: ReadonlyMap<string, number | null>): void {
    const ids = this.byKey.get(key)?.ids;
    if (ids === undefined || ids === null) return;
    for (const [externalId, docId] of externalIds) if (docId !== null) ids.add(externalId);
  }

  /** The index under this key was deleted (its ids with it): its set goes. */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  /** Bytes held by the sets (memory reports, tests). */
  get byteLength(): number {
    let bytes = 0;
    for (const { ids } of this.byKey.values()) bytes += ids?.byteLength ?? 0;
    return bytes;
  }
}
