// docId -> arena offset for the forward index, read once per scored document: an open-addressing
// table (linear probing, backward-shift deletion) in two typed arrays, because a Map of 100k+
// entries costs a cache-missing hash lookup per read and an object per entry for the collector.
const EMPTY = -1;
const MIN_CAPACITY = 1 << 10;

export class DocOffsetTable {
  private keys = new Int32Array(MIN_CAPACITY).fill(EMPTY);
  private values = new Int32Array(MIN_CAPACITY);
  private mask = MIN_CAPACITY - 1;
  private shift = 32 - Math.log2(MIN_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The value, -1 when absent. */
  get(key: number): number {
    const keys = this.keys;
    for (let slot = this.slotOf(key); ; slot = (slot + 1) & this.mask) {
      const found = keys[slot]!;
      if (found === key) return this.values[slot]!;
      if (found === EMPTY) return -1;
    }
  }

  has(key: number): boolean {
    return this.get(key) >= 0;
  }

  /** key and value are non-negative int32 (document ids, arena offsets). */
  set(key: number, value: number): void {
    let slot = this.slotOf(key);
    while (this.keys[slot] !== EMPTY && this.keys[slot] !== key) slot = (slot + 1) & this.mask;
    if (this.keys[slot] === EMPTY) {
      // Grows only on insertion, so updating values while iterating (compaction) is safe.
      if ((this.count + 1) * 2 > this.keys.length) {
        this.resize(this.keys.length * 2);
        this.set(key, value);
        return;
      }
      this.count++;
      this.keys[slot] = key;
    }
    this.values[slot] = value;
  }

  delete(key: number): boolean {
    const keys = this.keys;
    let slot = this.slotOf(key);
    while (keys[slot] !== key) {
      if (keys[slot] === EMPTY) return false;
      slot = (slot + 1) & this.mask;
    }
    // Backward shift: pull later entries of the probe run into the hole, so lookups never need tombstones.
    let hole = slot;
    for (let next = (hole + 1) & this.mask; keys[next] !== EMPTY; next = (next + 1) & this.mask) {
      const home = this.slotOf(keys[next]!);
      // The entry may move into the hole only if its home is not cyclically in (hole, next].
      const reachable = hole <= next ? home <= hole || home > next : home <= hole && home > next;
      if (reachable) {
        keys[hole] = keys[next]!;
        this.values[hole] = this.values[next]!;
        hole = next;
      }
    }
    keys[hole] = EMPTY;
    this.count--;
    return true;
  }

  forEach(visit: (key: number, value: number) => void): void {
    const keys = this.keys;
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== EMPTY) visit(keys[slot]!, this.values[slot]!);
  }

  /** Snapshot hook: the table's two arrays (live views) and its entry count. */
  exportState(): DocOffsetTableState {
    return { keys: this.keys, values: this.values, count: this.count };
  }

  /** Snapshot hook: adopts an exported state (capacity a power of two, as exported). */
  importState(state: DocOffsetTableState): void {
    const capacity = state.keys.length;
    if (capacity < MIN_CAPACITY || (capacity & (capacity - 1)) !== 0 || state.values.length !== capacity) {
      throw new Error('bad doc offset table state');
    }
    this.keys = state.keys;
    this.values = state.values;
    this.mask = capacity - 1;
    this.shift = 32 - Math.log2(capacity);
    this.count = state.count;
  }

  private slotOf(key: number): number {
    // Fibonacci hashing keeps the high bits: a shard's ids share their low bits (id = seq * shards + shard).
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  private resize(capacity: number): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    this.keys = new Int32Array(capacity).fill(EMPTY);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.shift = 32 - Math.log2(capacity);
    this.count = 0;
    for (let slot = 0; slot < oldKeys.length; slot++) if (oldKeys[slot] !== EMPTY) this.set(oldKeys[slot]!, oldValues[slot]!);
  }
}

export interface DocOffsetTableState {
  keys: Int32Array<ArrayBuffer>;
  values: Int32Array<ArrayBuffer>;
  count: number;
}
