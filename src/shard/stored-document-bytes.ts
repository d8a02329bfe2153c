// The stored JSON of hits as UTF-8 bytes, for the answer of a query batch (worker.ts): lmdb-js's
// getBinaryFast reads a value into one shared buffer without making a string, and the bytes are
// copied into one arena per batch, so each hit costs a read and a copy, where reading a string and
// encoding it again into the answer cost about twice as much (2-4 us a hit of the bench's movies).

/** The part of an lmdb-js database this reads (its documented getBinaryFast). */
export interface BinaryReader<K> {
  /** The value's bytes in a buffer reused by the next read; `length` is the value's (the buffer may be longer). */
  getBinaryFast(key: K): Uint8Array | undefined;
}

const INITIAL_ARENA = 1 << 16;

export class StoredDocumentBytes<K> {
  private arena = new Uint8Array(INITIAL_ARENA);
  private used = 0;

  constructor(private readonly reader: BinaryReader<K>) {}

  /** A new batch: the views handed out before must no longer be in use. */
  startBatch(): void {
    this.used = 0;
  }

  /** The value's bytes (a view valid until the batch after this one starts), undefined when absent. */
  read(key: K): Uint8Array | undefined {
    const fast = this.reader.getBinaryFast(key);
    if (fast === undefined) return undefined;
    // The shared buffer is longer than the value: `length` is set to the value's own on it.
    const length = fast.length;
    if (this.used + length > this.arena.length) {
      // Views handed out earlier keep the old arena alive; the new one starts empty.
      this.arena = new Uint8Array(Math.max(INITIAL_ARENA, this.arena.length * 2, length));
      this.used = 0;
    }
    const start = this.used;
    this.arena.set(length === fast.byteLength ? fast : fast.subarray(0, length), start);
    this.used += length;
    return this.arena.subarray(start, start + length);
  }
}
