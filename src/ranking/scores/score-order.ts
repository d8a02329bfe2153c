// Ordering the documents of a scored run (score-chain.ts) by their score vectors: ascending
// lexicographic order, the document's index breaking ties. Rule scores are small integers, so a
// vector and its index usually pack into one exactly represented double whose numeric order is that
// order: a native sort of a Float64Array (or a heap of plain numbers) then replaces sorting with a
// comparator closure, which showed in profiles.
import { SearchScratch } from '../search-scratch.js';

/** Doubles represent every integer below this exactly. */
const EXACT_BITS = 53;
/** Runs up to this long are ordered by packed keys whatever the number wanted. */
const PACKED_MAX = 1024;

/**
 * Indices 0..count-1 of the vectors scores[i * width, (i + 1) * width) in ascending order (index
 * last); only the best `needed` when that is smaller. The array may be the search's (scratch), reused:
 * valid until the next call.
 */
export function orderByScores(scores: Float64Array, width: number, count: number, needed: number,
  scratch: SearchScratch = new SearchScratch()): Uint32Array {
  // Packing reads every entry twice: for long runs of which few are wanted, the comparator's heap
  // (most documents lose at their first entry) costs less (measured: 3,000 documents, 20 wanted).
  const keys = count <= PACKED_MAX || needed >= count ? packedKeys(scratch, scores, width, count) : null;
  return keys === null ? orderByComparing(scores, width, count, needed) : orderByKeys(scratch, keys, count, needed);
}

/**
 * One key per vector: each entry minus its column's minimum, in as many bits as the column's range
 * needs, then the index; null when an entry is not an integer or the bits do not fit in a double.
 */
function packedKeys(scratch: SearchScratch, scores: Float64Array, width: number, count: number): Float64Array | null {
  // columns[r], [width + r], [2 * width + r]: column r's minimum, maximum and scale (the search's, reused).
  if (scratch.orderColumns.length < 3 * width) scratch.orderColumns = new Float64Array(3 * width);
  const columns = scratch.orderColumns;
  for (let r = 0; r < width; r++) {
    columns[r] = Infinity;
    columns[width + r] = -Infinity;
  }
  for (let i = 0; i < count; i++) {
    for (let r = 0; r < width; r++) {
      const value = scores[i * width + r]!;
      if (!Number.isInteger(value)) return null;
      if (value < columns[r]!) columns[r] = value;
      if (value > columns[width + r]!) columns[width + r] = value;
    }
  }
  let bits = bitsFor(count - 1);
  for (let r = 0; r < width; r++) {
    const columnBits = bitsFor(columns[width + r]! - columns[r]!);
    columns[2 * width + r] = 2 ** columnBits;
    bits += columnBits;
  }
  if (bits > EXACT_BITS) return null;
  const indexScale = 2 ** bitsFor(count - 1);
  if (scratch.orderKeys.length < count) scratch.orderKeys = new Float64Array(Math.max(count, scratch.orderKeys.length * 2));
  // A view of the search's keys (a Float64Array made per run was a third of packing them): sorting it sorts its part of them only.
  const keys = scratch.orderKeys.subarray(0, count);
  for (let i = 0; i < count; i++) {
    let key = 0;
    for (let r = 0; r < width; r++) key = key * columns[2 * width + r]! + (scores[i * width + r]! - columns[r]!);
    keys[i] = key * indexScale + i;
  }
  return keys;
}

/** Bits needed to write 0..range. */
function bitsFor(range: number): number {
  // clz32 for the usual small ranges (a power per bit showed in profiles); the loop past 32 bits.
  if (range < 2 ** 31) return range < 1 ? 0 : 32 - Math.clz32(range);
  let bits = 31;
  while (2 ** bits <= range) bits++;
  return bits;
}

/** Keys are distinct (the index is in them), so numeric order is the whole order. */
function orderByKeys(scratch: SearchScratch, keys: Float64Array, count: number, needed: number): Uint32Array {
  const indexScale = 2 ** bitsFor(count - 1);
  let best: Float64Array;
  if (needed >= count || count <= 4 * needed) {
    best = keys.sort().subarray(0, Math.min(needed, count));
  } else {
    best = smallestKeys(scratch, keys, needed).sort();
  }
  if (scratch.order.length < best.length) scratch.order = new Uint32Array(Math.max(best.length, scratch.order.length * 2));
  const order = scratch.order.subarray(0, best.length);
  // key - floor(key / scale) * scale rather than key % scale: `%` on a double above 2 ** 31 is a call to fmod.
  for (let k = 0; k < best.length; k++) order[k] = best[k]! - Math.floor(best[k]! / indexScale) * indexScale;
  return order;
}

/** The `needed` smallest keys (unordered; a view valid until the next call). */
function smallestKeys(scratch: SearchScratch, keys: Float64Array, needed: number): Float64Array {
  const smallest = scratch.smallest.reset(needed);
  for (let i = 0; i < keys.length; i++) smallest.offer(keys[i]!);
  return smallest.values();
}

/** The general order (scores that are not small integers, e.g. a sort on a float field). */
function orderByComparing(scores: Float64Array, width: number, count: number, needed: number): Uint32Array {
  const compare = (a: number, b: number) => {
    for (let r = 0; r < width; r++) {
      const difference = scores[a * width + r]! - scores[b * width + r]!;
      if (difference !== 0) return difference;
    }
    return a - b;
  };
  const all = new Uint32Array(count);
  for (let i = 0; i < count; i++) all[i] = i;
  if (needed >= count) return all.sort(compare);
  // Partial selection: a bounded max-heap of the best `needed` indices, then sort those.
  const heap: number[] = [];
  const worse = (a: number, b: number) => compare(a, b) > 0;
  for (let i = 0; i < count; i++) {
    if (heap.length < needed) {
      heap.push(i);
      siftUp(heap, heap.length - 1, worse);
    } else if (needed > 0 && compare(i, heap[0]!) < 0) {
      heap[0] = i;
      siftDown(heap, 0, worse);
    }
  }
  return Uint32Array.from(heap).sort(compare);
}

function siftUp(heap: number[], index: number, worse: (a: number, b: number) => boolean): void {
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!worse(heap[index]!, heap[parent]!)) return;
    [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
    index = parent;
  }
}

function siftDown(heap: number[], index: number, worse: (a: number, b: number) => boolean): void {
  for (;;) {
    const left = index * 2 + 1;
    const right = left + 1;
    let largest = index;
    if (left < heap.length && worse(heap[left]!, heap[largest]!)) largest = left;
    if (right < heap.length && worse(heap[right]!, heap[largest]!)) largest = right;
    if (largest === index) return;
    [heap[index], heap[largest]] = [heap[largest]!, heap[index]!];
    index = largest;
  }
}
