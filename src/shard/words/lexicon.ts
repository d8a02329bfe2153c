// The shard's words in sorted order, for prefix ranges and typo walks, in up to three disjoint sorted
// lists of growing age and size: new words go to a small fresh list sorted on demand, merged into the
// pending list once it has grown to a fraction of that, which is merged into the big sorted list once
// it has grown to a fraction of it. A stream of writes interleaved with queries neither re-sorts the
// whole lexicon nor remakes a large list's memos (LexiconListMemos: made again whenever a list grows,
// so each write slice remade those of the whole pending list, up to ~19,000 words at 100k npm rows).

import { packedWords, type PackedWords, type WalkScratch } from './fuzzy-walk.js';
import { tailOrder } from './first-letter-edits.js';
import { NearPrefixFilter } from './near-prefix-filter.js';
import { DeletionIndex, type DeletionIndexState, type NodeRuns } from './deletion-index.js';

/** The pending list is merged into the sorted one once it holds MERGE_MIN words and 1 / MERGE_FRACTION of its size. */
const MERGE_FRACTION = 8;
const MERGE_MIN = 4096;
/** The fresh list is merged into the pending one once it holds FRESH_MERGE_MIN words and 1 / FRESH_MERGE_FRACTION of its size. */
const FRESH_MERGE_FRACTION = 8;
const FRESH_MERGE_MIN = 512;

/**
 * What the lexicon walks derive from one sorted list and keep for the next walks: the word id of each
 * entry (derivations.ts), the list packed for typo walks (fuzzy-walk.ts, with the tail order
 * first-letter-edits.ts adds to it). Owner: the shard's Lexicon (`memos`), one per shard. Lifetime: an entry
 * lives as long as its list (weak by list: lists() replaces the sorted list on a merge, adoptSorted or
 * reset) and is made again when the list changed length (the fresh list grows in place). Size: at
 * most one entry of each kind per live list (three lists: sorted, pending, fresh), each linear in the list:
 * ids 4 bytes a word, packed words 2 bytes a character plus 9 bytes a word (13 with the tail order).
 */
export class LexiconListMemos {
  readonly ids = new WeakMap<readonly string[], Int32Array>();
  readonly packed = new WeakMap<readonly string[], PackedWords>();
  /** Where the DeletionIndex's nodes' runs lie in the list (deletion-index.ts walkCandidateRuns): 8 bytes a node, made again when the list changes length. */
  readonly runs = new WeakMap<readonly string[], NodeRuns>();
  /**
   * The typo walks' scratch (fuzzy-walk.ts WalkScratch), lent to one walk at a time (walks run to their
   * end on the shard's thread, nothing walks from a visitor): allocating its three typed arrays per
   * walk was 15% of the walks' time under unique queries. Grows with the longest word and query walked.
   */
  walkScratch: WalkScratch | null = null;
}

/** What a snapshot keeps of the lexicon besides its words (Lexicon.exportIndexes / importIndexes). */
export interface LexiconIndexes {
  nearPrefixes: { bits: Int32Array; keys: number } | null;
  deletions: DeletionIndexState | null;
}

export class Lexicon {
  /** The lists' memos (LexiconListMemos): pass them to the walks over lists(). */
  readonly memos = new LexiconListMemos();
  private sorted: string[] = [];
  /** Sorted; replaced (never changed in place) when the fresh list is merged into it. */
  private pending: string[] = [];
  /** The words added since the last merge into `pending`, sorted in place on demand (lists()). */
  private fresh: string[] = [];
  private freshIsSorted = true;
  /** Made on first use (nearPrefixFilter()) or restored (importIndexes), then told of each word added; null again when the words are replaced. */
  private nearPrefixes: NearPrefixFilter | null = null;
  /** Built at quiet time (deletionIndexSteps) or restored (importIndexes), then told of each word added; null until then, and again when the words are replaced. */
  private deletions: DeletionIndex | null = null;
  /** The index a sliced build is filling (told of the words added meanwhile too). */
  private building: DeletionIndex | null = null;
  /** Counts replacements of the words (adoptSorted, reset): a build begun before one is thrown away. */
  private generation = 0;
  /** false: typo walks go over every word of the query's first letter (tests, A/B); the index is still kept. */
  useDeletionIndex = true;

  add(word: string): void {
    this.fresh.push(word);
    this.freshIsSorted = false;
    if (this.deletions !== null) {
      this.deletions.add(word);
      // Past a quarter of its base, dropped (walks go over every word of the first letter) until
      // prepareSteps builds it again: a bulk load does not pay for it word by word (~5 µs a new word).
      if (this.deletionIndexDue) this.deletions = null;
    }
    this.building?.add(word);
    if (this.nearPrefixes !== null) {
      this.nearPrefixes.add(word);
      if (this.nearPrefixes.full) this.nearPrefixes = null;
    }
  }

  /** The lexicon's NearPrefixFilter (near-prefix-filter.ts): proves a word derives nothing at zero or one typo. */
  nearPrefixFilter(): NearPrefixFilter {
    if (this.nearPrefixes === null) {
      const filter = new NearPrefixFilter(NearPrefixFilter.keysOf(this.sorted) + NearPrefixFilter.keysOf(this.pending) + NearPrefixFilter.keysOf(this.fresh));
      for (const list of [this.sorted, this.pending, this.fresh]) for (const word of list) filter.add(word);
      this.nearPrefixes = filter;
    }
    return this.nearPrefixes;
  }

  /** The lexicon's DeletionIndex (deletion-index.ts), null when not built (or not to be used): walks go over every word then. */
  deletionIndex(): DeletionIndex | null {
    return this.useDeletionIndex ? this.deletions : null;
  }

  /**
   * Whether deletionIndexSteps has something to build: no DeletionIndex yet (none built, or restored from a file saved before its build),
   * or the words added after its build have as many entries as a quarter of it (they go to its second
   * part, which costs twice as many bytes an entry).
   */
  get deletionIndexDue(): boolean {
    if (this.deletions === null) return this.size > 0;
    const { base, added } = this.deletions.entries;
    return added >= 4096 && 4 * added >= base;
  }

  /** Builds the DeletionIndex over the words when due (deletionIndexDue), in steps (quiet time: ShardIndex.prepareSteps), and swaps it in at the end. */
  *deletionIndexSteps(): Generator<void, void, unknown> {
    if (!this.deletionIndexDue) return;
    const generation = this.generation;
    // Copies: a search may sort the fresh list meanwhile; words added meanwhile reach the index through add().
    const lists = this.lists().map((list) => list.slice());
    const build = DeletionIndex.build(lists, (index) => {
      this.building = index;
    });
    try {
      for (;;) {
        const step = build.next();
        if (step.done) {
          this.deletions = step.value;
          return;
        }
        yield;
        if (this.generation !== generation) return;
      }
    } finally {
      this.building = null;
      build.return(undefined as never);
    }
  }

  /** Bytes of the lexicon's indexes (the near-prefix filter, the deletion index; not the lists of the vocabulary's words). */
  get byteLength(): number {
    return (this.nearPrefixes?.byteLength ?? 0) + (this.deletions?.byteLength ?? 0);
  }

  get size(): number {
    return this.sorted.length + this.pending.length + this.fresh.length;
  }

  /**
   * What the first searches after a bulk load built at once (issue 19's first window: ~270 ms at 100,000
   * npm rows on a busy machine, before its first answer), one piece a step: the sorted lists, the
   * NearPrefixFilter, each list's packed form and tail order (typo walks) and word ids (`idOf`, derivations.ts).
   * The same memos the walks make on their way (LexiconListMemos), so the answers do not change.
   */
  *prepareSteps(idOf: (word: string) => number | undefined): Generator<void, void, unknown> {
    this.lists();
    yield;
    this.nearPrefixFilter();
    // lists() again at each step: a write meanwhile may have added (unsorted) fresh words.
    for (let k = 0; k < this.lists().length; k++) {
      yield;
      const list = this.lists()[k];
      if (list === undefined) return;
      tailOrder(packedWords(list, this.memos));
      yield;
      const again = this.lists()[k];
      if (again === undefined) return;
      if (this.memos.ids.get(again)?.length !== again.length) this.memos.ids.set(again, Int32Array.from(again, (word) => idOf(word) ?? -1));
    }
  }

  /**
   * Sorted lists whose union is the lexicon (disjoint): the sorted list, then the pending and the fresh
   * ones when not empty (oldest and largest first); read-only views valid until the next add.
   */
  lists(): readonly (readonly string[])[] {
    const fresh = this.fresh;
    if (fresh.length > 0) {
      if (!this.freshIsSorted) {
        fresh.sort();
        this.freshIsSorted = true;
      }
      if (fresh.length >= FRESH_MERGE_MIN && fresh.length * FRESH_MERGE_FRACTION >= this.pending.length) {
        this.pending = this.pending.length === 0 ? fresh : mergeSorted(this.pending, fresh);
        this.fresh = [];
      }
    }
    const pending = this.pending;
    if (pending.length >= MERGE_MIN && pending.length * MERGE_FRACTION >= this.sorted.length) {
      this.sorted = mergeSorted(this.sorted, pending);
      this.pending = [];
    }
    if (this.pending.length === 0) return this.fresh.length === 0 ? [this.sorted] : [this.sorted, this.fresh];
    return this.fresh.length === 0 ? [this.sorted, this.pending] : [this.sorted, this.pending, this.fresh];
  }

  /** Takes words already sorted (a snapshot's lexicon) as the whole lexicon; `ids`: their word ids, kept as the list's memo (LexiconListMemos.ids). */
  adoptSorted(sorted: string[], ids: Int32Array | null = null): void {
    this.nearPrefixes = null;
    this.dropDeletionIndex();
    this.sorted = sorted;
    this.pending = [];
    this.fresh = [];
    this.freshIsSorted = true;
    if (ids !== null && ids.length === sorted.length) this.memos.ids.set(sorted, ids);
  }

  /**
   * The lexicon's indexes as they are, for a snapshot (snapshot/lexicon-snapshot.ts): the NearPrefixFilter
   * and the DeletionIndex (null: not made, or dropped). Views of their arrays: a write cancels the save.
   */
  exportIndexes(): LexiconIndexes {
    return { nearPrefixes: this.nearPrefixes?.exportState() ?? null, deletions: this.deletions?.exportState() ?? null };
  }

  /**
   * Adopts a snapshot's indexes (after adoptSorted of its words): a restored lexicon walks as the saved
   * one did from its first search, instead of walking every word of a first letter until a quiet-time
   * build (~0.6 s of CPU at 1M npm rows). Throws an Error when a state does not hold together.
   */
  importIndexes(indexes: LexiconIndexes): void {
    this.nearPrefixes = indexes.nearPrefixes === null ? null : NearPrefixFilter.fromState(indexes.nearPrefixes);
    this.deletions = indexes.deletions === null ? null : DeletionIndex.fromState(indexes.deletions);
  }

  /** Rebuilds from scratch (e.g. after dropping words with empty postings). */
  reset(words: Iterable<string>): void {
    this.nearPrefixes = null;
    this.dropDeletionIndex();
    this.sorted = [...words].sort();
    this.pending = [];
    this.fresh = [];
    this.freshIsSorted = true;
  }

  private dropDeletionIndex(): void {
    this.deletions = null;
    this.building = null;
    this.generation++;
  }
}

/** Two sorted lists of words as one sorted list. */
export function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** First index in [from, to) whose word is >= target. */
export function lowerBound(sorted: readonly string[], target: string, from = 0, to = sorted.length): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The range [start, end) of words starting with `prefix`. */
export function prefixRange(sorted: readonly string[], prefix: string, from = 0, to = sorted.length): [number, number] {
  const start = lowerBound(sorted, prefix, from, to);
  const upper = successorOfPrefix(prefix);
  if (upper === null) {
    let end = start;
    while (end < to && sorted[end]!.startsWith(prefix)) end++;
    return [start, end];
  }
  return [start, lowerBound(sorted, upper, start, to)];
}

/** The smallest string greater than every string starting with prefix, or null if none is cheap to build. */
export function successorOfPrefix(prefix: string): string | null {
  if (prefix.length === 0) return null;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last === 0xffff) return null;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
