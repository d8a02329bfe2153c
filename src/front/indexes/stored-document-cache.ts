// The stored JSON of recently returned hits, kept on the front as UTF-8 bytes. Reading a hit from
// LMDB costs about 1-2 µs (a B-tree walk through the memory map, then a copy), 20 times per search:
// that was the front thread's largest cost (17% of it at 64 connections). Popular documents come
// back in many searches' hits, and a map lookup costs a tenth of that. Kept as bytes, not strings,
// because the response is bytes: a search body is then copied together (list-body.ts) rather than
// concatenated into a ~10 KB rope that V8 flattens and uWS re-encodes for every search.
// Entries are dropped per index when the scheduler says the index changed (its commits), the same
// signal on which the front renews its LMDB read transaction: until then LMDB shows the same bytes.

import type { CommitFence } from '../../protocol/commit-fence.js';

/** Where the cache reads a document it does not hold: bytes that may be reused after the call (LMDB's getBinaryFast). */
export interface StoredDocumentSource {
  getBinaryFast(key: [indexUid: string, docId: number]): Uint8Array | undefined;
}

/**
 * Budget of the bytes held. A generation holds half: when the hits' working set is larger, every flip
 * drops a map of tens of thousands of entries and the hits found in it are moved again. With 64 MiB
 * the bench's 100k movies (45 MB of JSON) did that for 40% of reads, steadily; with 128 MiB, for none.
 */
export const STORED_DOCUMENT_CACHE_BYTES = 128 * 2 ** 20;

/**
 * Documents are copied into slabs of this size: one ArrayBuffer per slab, not per document, so the
 * GC tracks a few dozen buffers rather than a hundred thousand. A document over a quarter of a slab
 * gets its own buffer.
 */
const SLAB_BYTES = 4 * 2 ** 20;

/**
 * LMDB's fast buffer reports the value's length but is a view of its whole 16 MiB read buffer, which
 * is what TypedArray.set and slice see: a view of exactly the value's bytes.
 */
function exactView(bytes: Uint8Array | undefined): Uint8Array | undefined {
  return bytes === undefined ? undefined : bytes.subarray(0, bytes.length);
}

/**
 * A copy of the bytes. Not `bytes.slice()`: LMDB hands out Buffers, and Buffer#slice is a view sharing
 * their memory, so the store's next read rewrote documents over 1 MiB held that way (fuzz seed 2026).
 */
function copyBytes(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

/**
 * One index's documents in a generation, by doc id, in pages of PAGE_SLOTS: a Map of ~100k numbers
 * cost ~90 ns a lookup (two cache misses), 20 per search, where a page's slot costs one miss and its
 * page map stays small enough to stay in cache. Doc ids grow with writes (seq * shardCount + shard)
 * and may be sparse: a page is made when a document of its range is kept, and a generation's pages
 * have a budget of their own (StoredDocumentCache.get), so sparse ids flip generations sooner.
 */
class IndexDocuments {
  readonly pages = new Map<number, (Uint8Array | undefined)[]>();
  count = 0;

  get(docId: number): Uint8Array | undefined {
    const page = this.pages.get(docId >>> PAGE_BITS);
    return page === undefined ? undefined : page[docId & PAGE_MASK];
  }

  /** The bytes of slots it took (PAGE_BYTES for a new page, else 0). */
  set(docId: number, bytes: Uint8Array): number {
    let page = this.pages.get(docId >>> PAGE_BITS);
    let taken = 0;
    if (page === undefined) {
      this.pages.set(docId >>> PAGE_BITS, page = new Array<Uint8Array | undefined>(PAGE_SLOTS).fill(undefined));
      taken = PAGE_BYTES;
    }
    if (page[docId & PAGE_MASK] === undefined) this.count++;
    page[docId & PAGE_MASK] = bytes;
    return taken;
  }

  *values(): IterableIterator<Uint8Array> {
    for (const page of this.pages.values()) for (const bytes of page) if (bytes !== undefined) yield bytes;
  }
}

const PAGE_BITS = 6;
const PAGE_SLOTS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SLOTS - 1;
/** A page's slots (8 bytes each) and its array's header. */
const PAGE_BYTES = PAGE_SLOTS * 8 + 32;
/**
 * A generation's pages take at most half the budget, as its documents: at worst (one document per
 * page) twice the budget in all. Never less than this (a small budget, in tests).
 */
const MIN_PAGE_BUDGET = 64 * PAGE_BYTES;

/** One generation's documents and the slabs holding their bytes, dropped together. */
class Generation {
  readonly documents = new Map<string, IndexDocuments>();
  /** Of the documents held. */
  bytes = 0;
  /** Of their pages (IndexDocuments). */
  pageBytes = 0;
  private slab = new Uint8Array(0);
  private slabUsed = 0;

  get(indexUid: string, docId: number): Uint8Array | undefined {
    return this.documents.get(indexUid)?.get(docId);
  }

  /** Copies the bytes in (the source may reuse its buffer) and returns the copy. */
  keep(indexUid: string, docId: number, source: Uint8Array): Uint8Array {
    const held = this.copyOf(source);
    let documents = this.documents.get(indexUid);
    if (documents === undefined) this.documents.set(indexUid, documents = new IndexDocuments());
    this.pageBytes += documents.set(docId, held);
    this.bytes += held.length;
    return held;
  }

  forget(indexUid: string): void {
    const dropped = this.documents.get(indexUid);
    if (dropped) {
      for (const bytes of dropped.values()) this.bytes -= bytes.length;
      this.pageBytes -= dropped.pages.size * PAGE_BYTES;
    }
    this.documents.delete(indexUid);
  }

  private copyOf(source: Uint8Array): Uint8Array {
    if (source.length > SLAB_BYTES / 4) return copyBytes(source);
    if (this.slabUsed + source.length > this.slab.length) {
      this.slab = new Uint8Array(SLAB_BYTES);
      this.slabUsed = 0;
    }
    const held = this.slab.subarray(this.slabUsed, this.slabUsed + source.length);
    held.set(source);
    this.slabUsed += source.length;
    return held;
  }
}

/**
 * Two generations approximate least-recently-used eviction without bookkeeping on each hit: when
 * the current one has taken half the budget it becomes the previous one and the one before goes; a
 * hit in the previous generation moves into the current one.
 */
export class StoredDocumentCache {
  private current = new Generation();
  private previous = new Generation();
  /** Reads answered from the cache / from LMDB (/metrics). */
  hits = 0;
  misses = 0;

  /** `fence`: whether every commit LMDB shows was announced (protocol/commit-fence.ts); absent: the cache always holds. */
  constructor(private readonly stored: StoredDocumentSource, private readonly fence: CommitFence | null = null,
    private readonly maxBytes = STORED_DOCUMENT_CACHE_BYTES) {}

  /** The document's stored JSON as UTF-8; the bytes stay valid (and unchanged) after later calls. */
  get(key: [indexUid: string, docId: number]): Uint8Array | undefined {
    if (this.fence !== null && !this.fence.cachesHold()) {
      // A commit not announced yet (or under way): what is held may be of before it, so read LMDB.
      this.misses++;
      const bytes = exactView(this.stored.getBinaryFast(key));
      return bytes === undefined ? undefined : copyBytes(bytes);
    }
    const [indexUid, docId] = key;
    const held = this.current.get(indexUid, docId);
    if (held !== undefined) {
      this.hits++;
      return held;
    }
    let bytes = this.previous.get(indexUid, docId);
    if (bytes !== undefined) this.hits++;
    else {
      this.misses++;
      bytes = exactView(this.stored.getBinaryFast(key));
    }
    if (bytes === undefined) return undefined;
    if (bytes.length > this.maxBytes / 2) return copyBytes(bytes);
    if (this.current.bytes + bytes.length > this.maxBytes / 2 || this.current.pageBytes > Math.max(this.maxBytes / 2, MIN_PAGE_BUDGET)) {
      this.previous = this.current;
      this.current = new Generation();
    }
    return this.current.keep(indexUid, docId, bytes);
  }

  /** The indexes' documents changed: what is held of them is stale. */
  forget(indexUids: readonly string[]): void {
    for (const uid of indexUids) {
      this.current.forget(uid);
      this.previous.forget(uid);
    }
  }

  /** Bytes held in both generations (/metrics). */
  get totalBytes(): number {
    return this.current.bytes + this.previous.bytes;
  }

  /** Documents held in both generations (/metrics; a walk of the per-index maps, not of the documents). */
  get documentCount(): number {
    let count = 0;
    for (const generation of [this.current, this.previous]) for (const documents of generation.documents.values()) count += documents.count;
    return count;
  }

  /** Bytes held in the current generation (tests). */
  get heldBytes(): number {
    return this.current.bytes;
  }
}
