// words: more matched query terms first. matchingStrategy `last` drops terms from the end of the
// query one at a time (phrases are never dropped, and at least one term stays); `all` keeps only
// documents with every term. Score = number of terms dropped. `frequency` behaves as `last` for now:
// dropping the most frequent terms first would depend on each shard's statistics, breaking score absoluteness.
import roaring from 'roaring';
import type { MatchingStrategyName } from '../protocol/messages.js';
import { TIMED_OUT_SCORE, type Bucket, type RankingRule } from './ranking-rule.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** The successive term sets the words rule tries, most complete first. */
export function termRemovalSteps(ctx: Pick<SearchContext, 'terms'>, terms: ActiveTerms, strategy: MatchingStrategyName): ActiveTerms[] {
  const steps: ActiveTerms[] = [terms];
  if (strategy === 'all') return steps;
  const removable = terms.filter((term) => ctx.terms[term]!.kind === 'word');
  const keepsPhrase = removable.length < terms.length;
  let current = [...terms];
  for (let k = removable.length - 1; k >= (keepsPhrase ? 0 : 1); k--) {
    const dropped = removable[k]!;
    current = current.filter((term) => term !== dropped);
    steps.push(current);
  }
  return steps;
}

/** Documents matching every term of the set. */
export function docsMatchingAll(ctx: SearchContext, terms: ActiveTerms): RoaringBitmap32 {
  if (terms.length === 0) return new RoaringBitmap32();
  // The smallest list first: the copy and every intersection after it are as small as they can be.
  const lists = terms.map((term) => ctx.termDocs(term));
  let smallest = 0;
  for (let k = 1; k < lists.length; k++) if (lists[k]!.size < lists[smallest]!.size) smallest = k;
  const docs = lists[smallest]!.clone();
  for (let k = 0; k < lists.length && !docs.isEmpty; k++) if (k !== smallest) docs.andInPlace(lists[k]!);
  return docs;
}

export class WordsRule implements RankingRule {
  readonly name = 'words';
  private steps: ActiveTerms[] = [];
  private next = 0;
  private remaining = new RoaringBitmap32();
  /** False while remaining is the start universe itself (one step: nothing is taken out of it, so no copy). */
  private ownsRemaining = true;
  /** The universe of start (rules do not mutate it): remaining is within it, so narrowing by it again does nothing. */
  private startUniverse: RoaringBitmap32 | null = null;

  constructor(private readonly strategy: MatchingStrategyName) {}

  start(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): void {
    this.steps = termRemovalSteps(ctx, terms, this.strategy);
    this.next = 0;
    this.ownsRemaining = this.steps.length > 1;
    this.remaining = this.ownsRemaining ? universe.clone() : universe;
    this.startUniverse = universe;
  }

  nextBucket(ctx: SearchContext, universe: RoaringBitmap32): Bucket | null {
    while (this.next < this.steps.length && !this.remaining.isEmpty) {
      const score = this.next;
      const terms = this.steps[this.next++]!;
      const isLast = this.next === this.steps.length;
      const timedOut = Date.now() > ctx.deadline;
      let candidates: RoaringBitmap32;
      if (isLast || timedOut) {
        // Everything left goes in this bucket: hand the bitmap over rather than copy it (buckets are
        // read-only to the next rules, so even the start universe itself).
        candidates = this.remaining;
        if (universe !== this.startUniverse) {
          if (this.ownsRemaining) candidates.andInPlace(universe);
          else candidates = RoaringBitmap32.and(candidates, universe);
        }
        this.remaining = new RoaringBitmap32();
        this.ownsRemaining = true;
      } else {
        candidates = docsMatchingAll(ctx, terms);
        candidates.andInPlace(this.remaining);
        if (universe !== this.startUniverse) candidates.andInPlace(universe);
        this.remaining.andNotInPlace(candidates);
      }
      if (timedOut) {
        this.next = this.steps.length;
        return { candidates, score: TIMED_OUT_SCORE, terms };
      }
      if (!candidates.isEmpty) return { candidates, score, terms };
    }
    return null;
  }

  end(): void {
    this.steps = [];
    this.remaining = new RoaringBitmap32();
    this.startUniverse = null;
  }
}
