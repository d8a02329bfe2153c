// The shape shared by rules whose score is computed document by document from its match profile
// (proximity, attributeRank, wordPosition, attribute, exactness): score the universe once at start,
// then hand out one bucket per distinct score, ascending.
import roaring from 'roaring';
import type { DocMatchProfile } from '../match-profile.js';
import { TIMED_OUT_SCORE, type Bucket, type RankingRule } from '../ranking-rule.js';
import type { ActiveTerms, SearchContext } from '../search-context.js';
import type { OrderedPart } from '../scores/score-layers.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** `ceiling`: see RankingRule.scoreDocument (above it, any value above it may be returned). */
export type DocumentScorer = (ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms, ceiling?: number) => number;
/** When the score is the same for every document (e.g. proximity of one term), that score: no document is read. */
export type ConstantScore = (ctx: SearchContext, terms: ActiveTerms) => number | null;
/** See RankingRule.orderedParts. */
export type OrderedParts = (ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms) => Iterable<OrderedPart> | null;

const DEADLINE_CHECK_EVERY = 512;

export class PerDocumentRule implements RankingRule {
  private groups: { score: number; docIds: ArrayLike<number> & Iterable<number> }[] = [];
  private next = 0;
  private terms: ActiveTerms = [];

  constructor(readonly name: string, private readonly scorer: DocumentScorer, private readonly constant: ConstantScore = () => null,
    private readonly parts: OrderedParts = () => null, readonly readDirectlyMax?: number) {}

  scoreDocument(ctx: SearchContext, profile: DocMatchProfile, terms: ActiveTerms, ceiling?: number): number {
    return this.scorer(ctx, profile, terms, ceiling);
  }

  constantScore(ctx: SearchContext, terms: ActiveTerms): number | null {
    return this.constant(ctx, terms);
  }

  orderedParts(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null {
    return this.parts(ctx, universe, terms);
  }

  start(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): void {
    this.terms = terms;
    this.next = 0;
    const constant = this.constant(ctx, terms);
    if (constant !== null) {
      this.groups = [{ score: constant, docIds: universe.toUint32Array() }];
      return;
    }
    const byScore = new Map<number, number[]>();
    let timedOut = false;
    const docIds = universe.toUint32Array();
    for (let k = 0; k < docIds.length; k++) {
      const docId = docIds[k]!;
      if (!timedOut && k % DEADLINE_CHECK_EVERY === DEADLINE_CHECK_EVERY - 1 && Date.now() > ctx.deadline) timedOut = true;
      const score = timedOut ? TIMED_OUT_SCORE : this.scorer(ctx, ctx.profile(docId), terms);
      const group = byScore.get(score);
      if (group) group.push(docId);
      else byScore.set(score, [docId]);
    }
    this.groups = [...byScore].sort((a, b) => a[0] - b[0]).map(([score, docIds]) => ({ score, docIds }));
  }

  nextBucket(_ctx: SearchContext, universe: RoaringBitmap32): Bucket | null {
    while (this.next < this.groups.length) {
      const group = this.groups[this.next++]!;
      const candidates = new RoaringBitmap32(group.docIds);
      candidates.andInPlace(universe);
      if (!candidates.isEmpty) return { candidates, score: group.score, terms: this.terms };
    }
    return null;
  }

  end(): void {
    this.groups = [];
  }
}
