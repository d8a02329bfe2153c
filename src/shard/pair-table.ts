// An immutable table of document runs per pair key: distinct keys sorted in one Uint32Array, each
// with a run of ascending doc ids in another, a few bytes per (pair, document) instead of one bitmap
// object per pair. Built from (key, docId) pairs packed as doubles (key * 2^32 + docId), which a
// native numeric sort orders by key then document.
export class PairTable {
  private constructor(private readonly keys: Uint32Array, private readonly starts: Uint32Array, private readonly docIds: Uint32Array) {}

  static empty(): PairTable {
    return new PairTable(new Uint32Array(0), new Uint32Array(1), new Uint32Array(0));
  }

  /** `packed[0, count)`: key * 2^32 + docId per occurrence, in any order, duplicates allowed. Sorts it in place. */
  static fromPacked(packed: Float64Array, count: number): PairTable {
    const sorted = packed.subarray(0, count).sort();
    const keys: number[] = [];
    const starts: number[] = [];
    const docIds = new Uint32Array(count);
    let written = 0;
    let previousKey = -1;
    let previousDoc = -1;
    for (let i = 0; i < count; i++) {
      const key = Math.floor(sorted[i]! / 2 ** 32);
      const docId = sorted[i]! % 2 ** 32;
      if (key !== previousKey) {
        keys.push(key);
        starts.push(written);
        previousKey = key;
      } else if (docId === previousDoc) {
        continue; // the pair twice in one document
      }
      docIds[written++] = docId;
      previousDoc = docId;
    }
    starts.push(written);
    return new PairTable(Uint32Array.from(keys), Uint32Array.from(starts), docIds.slice(0, written));
  }

  /** The documents of the key (ascending; a view, valid while the table lives), or null when it has none. */
  docsOf(key: number): Uint32Array | null {
    let low = 0;
    let high = this.keys.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.keys[middle]!;
      if (found === key) return this.docIds.subarray(this.starts[middle]!, this.starts[middle + 1]!);
      if (found < key) low = middle + 1;
      else high = middle - 1;
    }
    return null;
  }
}

/** A growable Float64Array of packed (key, docId) occurrences for PairTable.fromPacked. */
export class PackedPairs {
  values = new Float64Array(1 << 16);
  count = 0;

  push(key: number, docId: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = key * 2 ** 32 + docId;
  }
}
