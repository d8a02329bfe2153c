// The k smallest of the values seen so far, to tell at once whether a new value can still be among
// the k smallest of all: the score chain skips the later rules of a document whose first scored
// rule already puts it behind k others (score-chain.ts).

export class SmallestValues {
  /** A max-heap of the k smallest values so far (its first k entries). */
  private heap: Float64Array;
  private size = 0;
  private k: number;

  constructor(k: number) {
    this.k = k;
    this.heap = new Float64Array(Math.max(0, k));
  }

  /**
   * Forgets every value, to keep the k smallest of new ones: runs reuse one (a typed array made per
   * run showed in profiles); its array is kept when long enough.
   */
  reset(k: number): this {
    if (this.heap.length < k) this.heap = new Float64Array(k);
    this.k = k;
    this.size = 0;
    return this;
  }

  /**
   * Adds the value; false when k values seen before are all strictly smaller (then no value from now
   * on equal to or above it is among the k smallest, ties with the k-th included).
   */
  offer(value: number): boolean {
    const heap = this.heap;
    if (this.size < this.k) {
      let index = this.size++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (heap[parent]! >= value) break;
        heap[index] = heap[parent]!;
        index = parent;
      }
      heap[index] = value;
      return true;
    }
    if (this.k === 0 || value > heap[0]!) return false;
    if (value === heap[0]!) return true;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const larger = right < this.size && heap[right]! > heap[left]! ? right : left;
      if (heap[larger]! <= value) break;
      heap[index] = heap[larger]!;
      index = larger;
    }
    heap[index] = value;
    return true;
  }

  /**
   * Once k values were offered, the largest of the k smallest (a value above it can no longer be
   * among them); Infinity before. With k = 0, -Infinity (nothing is ever among them).
   */
  get largestKept(): number {
    if (this.k === 0) return -Infinity;
    return this.size < this.k ? Infinity : this.heap[0]!;
  }

  /** The k smallest values offered (fewer when fewer were), unordered; a view valid until the next offer. */
  values(): Float64Array {
    return this.heap.subarray(0, this.size);
  }
}
