// The in-memory state of one index while a batch is computed: the index record and the documents
// and external ids written so far, layered over what LMDB holds (the last commit). Each task works
// on a fork of the batch's stage and is merged back only if it succeeds, so a task applies whole
// or not at all; the batch's stage becomes one LMDB transaction.
import { mayBeStoredId } from '../../documents/document-id.js';
import type { Storage } from '../../storage/environment.js';
import { freeStorageKey, storageKeyOf, type IndexRecord } from '../../storage/records.js';
import type { StoredIdFilter } from './stored-id-filter.js';

type CommittedReader = Pick<Storage, 'documents' | 'externalIds'>;

export class StagedIndex {
  /** null: the index does not exist (yet, or any more). */
  record: IndexRecord | null;
  /** docId -> document JSON, null = deleted. */
  documents = new Map<number, string | null>();
  /** externalId -> docId, null = deleted. */
  externalIds = new Map<string, number | null>();
  /** Where the documents live in LMDB and in the shards (records.ts storageKeyOf); a new index's is chosen free. */
  readonly key: string;

  /**
   * `storedIds`: proves ids new without reading LMDB (stored-id-filter.ts); null: every id not staged
   * is read. Forks share it.
   */
  constructor(
    private readonly storage: CommittedReader,
    readonly uid: string,
    record: IndexRecord | null,
    private parent: StagedIndex | null = null,
    key?: string,
    private readonly storedIds: StoredIdFilter | null = null,
  ) {
    this.record = record === null ? null : structuredClone(record);
    this.key = key ?? (record ? storageKeyOf(record) : uid);
  }

  static fromStorage(storage: CommittedReader & Pick<Storage, 'indexes'>, uid: string, storedIds: StoredIdFilter | null = null): StagedIndex {
    const record = storage.indexes.get(uid) ?? null;
    return new StagedIndex(storage, uid, record, null, record ? storageKeyOf(record) : freeStorageKey(uid, usedStorageKeys(storage)), storedIds);
  }

  fork(): StagedIndex {
    return new StagedIndex(this.storage, this.uid, this.record, this, this.key, this.storedIds);
  }

  /** A record made in this stage stores under the stage's key. */
  keyed(record: IndexRecord): IndexRecord {
    if (this.key !== record.uid) record.storageKey = this.key;
    return record;
  }

  /**
   * The parent's writes are committed now (a batch planned ahead over the previous batch's stage):
   * reads go to LMDB, which holds the same, and the parent's documents can be freed.
   */
  detachFromCommittedParent(): void {
    this.parent = null;
  }

  /** Whether the document existed before this stage's own writes (in a parent stage or the last commit). */
  existedBefore(docId: number): boolean {
    return this.parent ? this.parent.document(docId) !== undefined : this.storage.documents.doesExist([this.key, docId]);
  }

  /** Folds a fork's writes into this stage (the fork's task succeeded). */
  absorb(child: StagedIndex): void {
    this.record = child.record;
    this.documents = merged(this.documents, child.documents);
    this.externalIds = merged(this.externalIds, child.externalIds);
  }

  docIdOf(externalId: string): number | undefined {
    const staged = this.externalIds.get(externalId);
    if (staged !== undefined) return staged ?? undefined;
    if (this.parent) return this.parent.docIdOf(externalId);
    if (!mayBeStoredId(externalId)) return undefined;
    // The record counts this stage's own writes too (a detached stage's): only a hint of when a scan pays.
    if (this.storedIds !== null && !this.storedIds.mayBeStored(this.storage, this.key, externalId, this.record?.documentCount ?? 0)) return undefined;
    return this.storage.externalIds.get([this.key, externalId]);
  }

  document(docId: number): string | undefined {
    const staged = this.documents.get(docId);
    if (staged !== undefined) return staged ?? undefined;
    if (this.parent) return this.parent.document(docId);
    return this.storage.documents.get([this.key, docId]);
  }

  putDocument(externalId: string, docId: number, json: string): void {
    this.externalIds.set(externalId, docId);
    this.documents.set(docId, json);
  }

  deleteDocument(externalId: string, docId: number): void {
    this.externalIds.set(externalId, null);
    this.documents.set(docId, null);
  }

  /** Every live external id -> docId, committed ones overridden by staged writes. */
  liveExternalIds(): Map<string, number> {
    const live = this.parent ? this.parent.liveExternalIds() : committedExternalIds(this.storage, this.key);
    for (const [externalId, docId] of this.externalIds) {
      if (docId === null) live.delete(externalId);
      else live.set(externalId, docId);
    }
    return live;
  }
}

/**
 * older's entries overridden by newer's, copying the smaller map into the larger (a batch of equal
 * tasks copies each task's writes once, not every earlier task's again). The order of entries is
 * not kept: nothing reads a stage in write order (one entry per document).
 */
function merged<K, V>(older: Map<K, V>, newer: Map<K, V>): Map<K, V> {
  if (newer.size >= older.size) {
    for (const [key, value] of older) if (!newer.has(key)) newer.set(key, value);
    return newer;
  }
  for (const [key, value] of newer) older.set(key, value);
  return older;
}

/** storageKey: the index's storageKeyOf. */
export function committedExternalIds(storage: Pick<Storage, 'externalIds'>, storageKey: string): Map<string, number> {
  const ids = new Map<string, number>();
  for (const { key, value } of storage.externalIds.getRange({ start: [storageKey, ''], end: [storageKey, '\uffff'] })) ids.set(key[1], value);
  return ids;
}

/** The storage keys of every stored index. */
export function usedStorageKeys(storage: Pick<Storage, 'indexes'>): Set<string> {
  const used = new Set<string>();
  for (const { value } of storage.indexes.getRange()) used.add(storageKeyOf(value));
  return used;
}
