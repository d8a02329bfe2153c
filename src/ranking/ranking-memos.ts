// What the ranking rules remember between searches about a shard's read-only lists: answers that are
// the same for the same list objects, worth keeping because the same terms come back query after query.
//
// Owner: the shard's ShardCaches (`rankingMemos`, src/shard/shard-caches.ts), one per shard, dropped
// whole at any write (ShardCaches.noteWrite) with the derivations whose lists it is keyed by; rules reach it
// through the search context (rankingMemosOf; a context without one: nothing is kept). Lifetime: an
// entry lives as long as its key list (weak) and at most until the shard's next write. Size: one small
// entry per list asked about (`within`: a reference and a boolean; `costUnions`: per query position
// at most 5 bitmaps, the unions of two position lists, a term's lists being at most 4 positions).
import type roaring from 'roaring';
import type { KeyedLists } from './keyed-lists.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

export class RankingMemos {
  /**
   * score-layers.ts isWithin: per list, the last universe it was found within (or not). The lists and
   * universes asked about are a term's memoized lists and its own documents, read-only and kept as long
   * as its derivations. A subset test reads the whole list (a one-word query's first list: ~5% of its time).
   */
  readonly within = new WeakMap<RoaringBitmap32, { universe: RoaringBitmap32; within: boolean }>();
  /**
   * word-position-parts.ts costUnions: per term's position lists (memoized on its derivations) and
   * query position, the documents by position cost: at a million documents, making them anew for
   * each query was the largest source of bitmaps made and dropped per query (a fifth of the bytes).
   */
  readonly costUnions = new WeakMap<KeyedLists, (KeyedLists | undefined)[]>();
}
