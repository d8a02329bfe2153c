// Records stored in LMDB besides tasks (src/tasks/task-record.ts).
import type { IndexSettings } from '../settings/index-settings.js';

export interface IndexRecord {
  uid: string;
  primaryKey: string | null;
  createdAt: string;
  updatedAt: string;
  /** Fixed at creation: a document lives in shard fnv1a(externalId) % shardCount forever. */
  shardCount: number;
  /** Next sequence number; a new document's internal id is seq * shardCount + shard (see documents/doc-ids.ts). */
  nextSeq: number;
  documentCount: number;
  /** Bytes of the stored documents' JSON, kept by the scheduler so /stats never scans documents. */
  rawDocumentDbSize: number;
  /** Flattened field name -> number of documents holding it. */
  fieldDistribution: Record<string, number>;
  /**
   * Every field name a document of the index ever held, top-level and nested (flattened paths of
   * values inside objects): milli's fields ids map, which never shrinks. attributesToSearchOn is checked
   * against it (front/search/search-on-check.ts). null past MAX_KNOWN_FIELDS names; absent in older
   * records: the check is then skipped.
   */
  knownFields?: Record<string, true> | null;
  settings: IndexSettings;
  /**
   * Commit stamp: the uid of the last batch that committed a change to this index (documents,
   * settings, anything in this record). Batch uids are never reused, so a shard snapshot stamped with
   * it holds exactly this committed state (src/shard/snapshot/snapshot-keeper.ts). Absent in older records: 0.
   */
  commitSeq?: number;
  /**
   * Where the index's data lives: documents and external ids under [storageKey, ...] in LMDB, the
   * shard workers' shards and their snapshot files under this name. Absent: the uid. A swap or rename
   * exchanges or moves records, not data (src/scheduler/operations/index-swap.ts), so a key differs from the
   * uid after one; a key that is not a uid holds a `~`, which no uid can.
   */
  storageKey?: string;
}

/** The name the index's documents, shards and shard snapshots are stored under. */
export function storageKeyOf(record: Pick<IndexRecord, 'uid' | 'storageKey'>): string {
  return record.storageKey ?? record.uid;
}

/** The key a new index `uid` stores under: its uid unless another index's data already lives there (after a swap or rename). */
export function freeStorageKey(uid: string, used: ReadonlySet<string>): string {
  if (!used.has(uid)) return uid;
  for (let n = 1; ; n++) if (!used.has(`${uid}~${n}`)) return `${uid}~${n}`;
}
