// Lists of documents by a small key (a field rank, a position within a field, a position cost), as the
// search accelerator hands them to the rules (search-context.ts termDocsByRank / termDocsByPosition).
// Read with at(key), so a list may be made only when a rule first asks for it: a one-term split mostly
// takes its first part, which needs key 0 alone, and the unions of the other keys over a typo or prefix
// term's derived words (a fifth of a typo query's CPU, all keys made at once) were mostly never read.
import type roaring from 'roaring';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/**
 * `length`: the keys known (at(key) for a key from it on is undefined, as for an array). Read-only
 * lists. A plain array of bitmaps is one, every list made.
 */
export interface KeyedLists {
  readonly length: number;
  at(key: number): RoaringBitmap32 | undefined;
}

/**
 * Each key's list made by `make` when first asked for, then kept (the object is memoized where its
 * lists are: a term's derivations, RankingMemos.costUnions). Owner: whoever keeps the object; size:
 * `length` references at most.
 */
export class LazyLists implements KeyedLists {
  private readonly lists: (RoaringBitmap32 | undefined)[] = [];

  constructor(readonly length: number, private readonly make: (key: number) => RoaringBitmap32) {}

  at(key: number): RoaringBitmap32 | undefined {
    if (!(key >= 0 && key < this.length)) return undefined;
    return (this.lists[key] ??= this.make(key));
  }

  /** Every list made now (what an array of them would have cost: ShardIndex.lazyKeyUnions false). */
  makeAll(): this {
    for (let key = 0; key < this.length; key++) this.at(key);
    return this;
  }

  /** How many lists were made so far (tests). */
  get madeCount(): number {
    let made = 0;
    for (const list of this.lists) if (list !== undefined) made++;
    return made;
  }
}

/** Every list of `lists` as an array, made now where not yet (tests, and callers that need them all). */
export function allLists(lists: KeyedLists): RoaringBitmap32[] {
  return Array.from({ length: lists.length }, (_, key) => lists.at(key)!);
}
