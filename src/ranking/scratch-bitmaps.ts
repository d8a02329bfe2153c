// Where the bitmaps a search makes and drops come from. Each native bitmap made per query costs its
// creation and, in the next scavenge, a weak callback (destructor + free) run inside the pause: at
// ~7 per query they were most of the young-generation pauses (6-7 ms every ~80 ms at 100k documents,
// the HTTP tail) and ~8% of the worker's time. A search's intermediate results (parts, layers,
// buckets, pair lookups within a universe) therefore come from a per-search pool whose bitmaps are
// cleared and reused by the next search, instead of new ones.
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * Makes result bitmaps. Every bitmap returned is new to the caller (never one of the arguments) and
 * mutable; the arguments are only read.
 */
export interface BitmapSource {
  /** An empty bitmap. */
  empty(): RoaringBitmap32;
  /** a ∩ b. */
  and(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32;
  /** a \ b. */
  andNot(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32;
  /** a ∪ b. */
  or(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32;
  /** A copy of `a`. */
  copy(a: RoaringBitmap32): RoaringBitmap32;
  /** The bitmap of these ids (ascending or not). */
  fromIds(ids: ArrayLike<number>): RoaringBitmap32;
}

/** Plain new bitmaps, the caller's to keep (for results that outlive a search: caches, memos, the result's universe). */
export const OWNED_BITMAPS: BitmapSource = {
  empty: () => new RoaringBitmap32(),
  and: (a, b) => RoaringBitmap32.and(a, b),
  andNot: (a, b) => RoaringBitmap32.andNot(a, b),
  or: (a, b) => RoaringBitmap32.or(a, b),
  copy: (a) => a.clone(),
  fromIds: (ids) => new RoaringBitmap32(ids as Uint32Array | number[]),
};

/** Cleared bitmaps kept for reuse at most (a search rarely holds more; the rest go to the collector). */
const MAX_KEPT = 1024;

/**
 * Bitmaps lent for ONE search: valid until releaseAll() (the search's end), which clears them (their
 * memory goes back at once) and keeps them for the next search. NEVER let one reach anything that
 * outlives the search (a cache, a memo, a shared structure, the search's result): it would be
 * emptied under it. Not reentrant across searches: a thread's searches run one at a time.
 */
export class ScratchBitmaps implements BitmapSource {
  private readonly free: RoaringBitmap32[] = [];
  private readonly lent: RoaringBitmap32[] = [];

  /** Bitmaps lent since the last releaseAll (tests; a search's end leaves none). */
  get lentCount(): number {
    return this.lent.length;
  }

  /** Cleared bitmaps waiting for the next search (tests). */
  get freeCount(): number {
    return this.free.length;
  }

  empty(): RoaringBitmap32 {
    const bitmap = this.free.pop() ?? new RoaringBitmap32();
    this.lent.push(bitmap);
    return bitmap;
  }

  and(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32 {
    // AND is commutative: copy the smaller, narrow it by the larger (no array made to pick them).
    const aIsSmaller = a.size <= b.size;
    const smaller = aIsSmaller ? a : b;
    const larger = aIsSmaller ? b : a;
    const result = this.empty();
    if (smaller.isEmpty || !smaller.intersects(larger)) return result;
    return result.copyFrom(smaller).andInPlace(larger);
  }

  andNot(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32 {
    const result = this.empty();
    if (a.isEmpty) return result;
    result.copyFrom(a);
    if (!b.isEmpty) result.andNotInPlace(b);
    return result;
  }

  or(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32 {
    const aIsSmaller = a.size <= b.size;
    const smaller = aIsSmaller ? a : b;
    const result = this.empty().copyFrom(aIsSmaller ? b : a);
    if (!smaller.isEmpty) result.orInPlace(smaller);
    return result;
  }

  copy(a: RoaringBitmap32): RoaringBitmap32 {
    return this.empty().copyFrom(a);
  }

  fromIds(ids: ArrayLike<number>): RoaringBitmap32 {
    return this.empty().addMany(ids);
  }

  /** The search's end: every lent bitmap is cleared and kept for the next search. */
  releaseAll(): void {
    const lent = this.lent;
    for (let k = 0; k < lent.length; k++) {
      const bitmap = lent[k]!;
      bitmap.clear();
      if (this.free.length < MAX_KEPT) this.free.push(bitmap);
    }
    lent.length = 0;
  }
}
