// The stored JSON of recently returned hits, kept on the front. Reading a hit from LMDB costs about
// 1-2 µs (a B-tree walk through the memory map, then a UTF-8 decode into a new string), 20 times per
// search: that was the front thread's largest cost (17% of it at 64 connections). Popular documents
// come back in many searches' hits, and a map lookup costs a tenth of that.
// Entries are dropped per index when the scheduler says the index changed (its commits), the same
// signal on which the front renews its LMDB read transaction: until then LMDB shows the same text.
import type { StoredDocuments } from './stored-hits.js';

/**
 * Budget of the strings held, in bytes (UTF-16 code units counted as one byte: documents are mostly
 * Latin-1). A generation holds half: when the hits' working set is larger, every flip drops a map
 * of tens of thousands of entries and the hits found in it are moved again. With 64 MiB the bench's
 * 100k movies (45 MB of JSON) did that for 40% of reads, steadily; with 128 MiB, for none.
 */
export const STORED_DOCUMENT_CACHE_BYTES = 128 * 2 ** 20;

type Generation = Map<string, Map<number, string>>;

/**
 * Two generations approximate least-recently-used eviction without bookkeeping on each hit: when
 * the current one has taken half the budget it becomes the previous one and the one before goes; a
 * hit in the previous generation moves into the current one.
 */
export class StoredDocumentCache implements StoredDocuments {
  private current: Generation = new Map();
  private previous: Generation = new Map();
  private currentBytes = 0;

  constructor(private readonly stored: StoredDocuments, private readonly maxBytes = STORED_DOCUMENT_CACHE_BYTES) {}

  get(key: [indexUid: string, docId: number]): string | undefined {
    const [indexUid, docId] = key;
    const held = this.current.get(indexUid)?.get(docId);
    if (held !== undefined) return held;
    const text = this.previous.get(indexUid)?.get(docId) ?? this.stored.get(key);
    if (text !== undefined) this.keep(indexUid, docId, text);
    return text;
  }

  /** The indexes' documents changed: what is held of them is stale. */
  forget(indexUids: readonly string[]): void {
    for (const uid of indexUids) {
      const dropped = this.current.get(uid);
      if (dropped) for (const text of dropped.values()) this.currentBytes -= text.length;
      this.current.delete(uid);
      this.previous.delete(uid);
    }
  }

  /** Bytes held in the current generation (tests). */
  get heldBytes(): number {
    return this.currentBytes;
  }

  private keep(indexUid: string, docId: number, text: string): void {
    if (text.length > this.maxBytes / 2) return;
    if (this.currentBytes + text.length > this.maxBytes / 2) {
      this.previous = this.current;
      this.current = new Map();
      this.currentBytes = 0;
    }
    let documents = this.current.get(indexUid);
    if (documents === undefined) this.current.set(indexUid, documents = new Map());
    documents.set(docId, text);
    this.currentBytes += text.length;
  }
}
