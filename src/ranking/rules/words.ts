// words: more matched query terms first. matchingStrategy `last` drops terms from the end of the
// query one at a time (phrases are never dropped, and at least one term stays); `all` keeps only
// documents with every term; `frequency` (milli's removal_order_for_terms_matching_strategy_frequency)
// drops the terms matching the most documents first, terms of equal frequency together, a term
// matching none first of all; the least frequent stay unless a phrase does. Frequencies are over the
// whole index: the front sums every shard's (SearchContext.termDocCounts), so every shard drops alike.
// Score = the removal step (milli's words rank counts steps, not terms).
import type roaring from 'roaring';
import type { MatchingStrategyName } from '../../protocol/messages.js';
import { TIMED_OUT_SCORE, type Bucket, type RankingRule } from '../ranking-rule.js';
import { scratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';
import { OWNED_BITMAPS, type BitmapSource } from '../scratch-bitmaps.js';
import { mapPacked } from '../packed-arrays.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/** The successive term sets the words rule tries, most complete first. */
export function termRemovalSteps(ctx: Pick<SearchContext, 'terms' | 'termDocs' | 'termDocCounts'>, terms: ActiveTerms, strategy: MatchingStrategyName): ActiveTerms[] {
  const steps: ActiveTerms[] = [terms];
  if (strategy === 'all') return steps;
  const removable = terms.filter((term) => ctx.terms[term]!.kind === 'word');
  const keepsPhrase = removable.length < terms.length;
  let current = [...terms];
  if (strategy === 'frequency') {
    const frequency = (term: number) => {
      const count = ctx.termDocCounts?.[term] ?? ctx.termDocs(term).size;
      return count === 0 ? Infinity : count;
    };
    const levels = [...new Set(removable.map(frequency))].sort((a, b) => b - a);
    for (let level = 0; level < (keepsPhrase ? levels.length : levels.length - 1); level++) {
      current = current.filter((term) => ctx.terms[term]!.kind !== 'word' || frequency(term) !== levels[level]);
      steps.push(current);
    }
    return steps;
  }
  for (let k = removable.length - 1; k >= (keepsPhrase ? 0 : 1); k--) {
    const dropped = removable[k]!;
    current = current.filter((term) => term !== dropped);
    steps.push(current);
  }
  return steps;
}

/**
 * Documents matching every term of the set (a new bitmap from `bitmaps`, the caller's own unless
 * they are a search's scratch ones); within `within` when given.
 */
export function docsMatchingAll(ctx: SearchContext, terms: ActiveTerms, within?: RoaringBitmap32, bitmaps: BitmapSource = OWNED_BITMAPS): RoaringBitmap32 {
  if (terms.length === 0) return bitmaps.empty();
  const lists = mapPacked(terms, (term) => ctx.termDocs(term));
  // `within` is often one of the lists (the first term's documents, the universe with `last`): then
  // it narrows nothing, and intersecting it again (a copy of the list, or a second AND with it) was a
  // third of this function's time.
  const narrowing = within !== undefined && !lists.includes(within) ? within : undefined;
  // The smallest list first: the first intersection and every one after it are as small as they can be.
  let smallest = 0;
  for (let k = 1; k < lists.length; k++) if (lists[k]!.size < lists[smallest]!.size) smallest = k;
  // The first intersection makes the result (no copy of the smallest list to narrow in place).
  let first = -1;
  let docs: RoaringBitmap32;
  if (narrowing !== undefined) {
    docs = bitmaps.and(lists[smallest]!, narrowing);
  } else {
    for (let k = 0; k < lists.length; k++) if (k !== smallest && lists[k] !== lists[smallest] && (first < 0 || lists[k]!.size < lists[first]!.size)) first = k;
    docs = first < 0 ? bitmaps.copy(lists[smallest]!) : bitmaps.and(lists[smallest]!, lists[first]!);
  }
  for (let k = 0; k < lists.length && !docs.isEmpty; k++) {
    if (k !== smallest && k !== first && lists[k] !== lists[smallest] && lists[k] !== lists[first]) docs.andInPlace(lists[k]!);
  }
  return docs;
}

export class WordsRule implements RankingRule {
  readonly name = 'words';
  private steps: ActiveTerms[] = [];
  private next = 0;
  /**
   * The buckets handed out so far (disjoint, within the start universe, read-only as every bucket):
   * what is left is the start universe without them. Kept rather than a copy of the universe cut
   * bucket by bucket: at a million documents that copy was a quarter of the native bitmap bytes made
   * per query, and the last step, which would use it, is seldom reached.
   */
  private taken: RoaringBitmap32[] = [];
  private takenCount = 0;
  /** The universe of start (rules do not mutate it); null outside start..end. */
  private startUniverse: RoaringBitmap32 | null = null;

  constructor(private readonly strategy: MatchingStrategyName) {}

  start(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): void {
    this.steps = termRemovalSteps(ctx, terms, this.strategy);
    this.next = 0;
    this.taken = [];
    this.takenCount = 0;
    this.startUniverse = universe;
  }

  nextBucket(ctx: SearchContext, universe: RoaringBitmap32): Bucket | null {
    const start = this.startUniverse;
    if (start === null) return null;
    while (this.next < this.steps.length && this.takenCount < start.size) {
      const score = this.next;
      const terms = this.steps[this.next++]!;
      const isLast = this.next === this.steps.length;
      const timedOut = Date.now() > ctx.deadline;
      let candidates: RoaringBitmap32;
      if (isLast || timedOut) {
        // Everything left goes in this bucket: the start universe itself when nothing was taken
        // (buckets are read-only to the next rules).
        candidates = this.leftOf(start, scratchOf(ctx));
        if (universe !== start) candidates = candidates === start ? scratchOf(ctx).and(start, universe) : candidates.andInPlace(universe);
        this.next = this.steps.length;
      } else {
        // The search's scratch bitmaps: buckets live during the search only (kept here until end()).
        candidates = docsMatchingAll(ctx, terms, start, scratchOf(ctx));
        for (const bucket of this.taken) candidates.andNotInPlace(bucket);
        if (universe !== start) candidates.andInPlace(universe);
        if (!candidates.isEmpty) {
          this.taken.push(candidates);
          this.takenCount += candidates.size;
        }
      }
      if (timedOut) return { candidates, score: TIMED_OUT_SCORE, terms };
      if (!candidates.isEmpty) return { candidates, score, terms };
    }
    return null;
  }

  /** The start universe without the buckets taken (itself when none was). */
  private leftOf(start: RoaringBitmap32, bitmaps: BitmapSource): RoaringBitmap32 {
    if (this.taken.length === 0) return start;
    const left = bitmaps.andNot(start, this.taken[0]!);
    for (let k = 1; k < this.taken.length; k++) left.andNotInPlace(this.taken[k]!);
    return left;
  }

  end(): void {
    this.steps = [];
    this.taken = [];
    this.takenCount = 0;
    this.startUniverse = null;
  }
}
