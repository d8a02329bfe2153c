// typo: fewer typos first. Score = total over the active terms of the typos of the document's best
// match of each term (prefix extensions and phrases cost 0). A term the document lacks costs 0 here:
// telling those apart is the words rule's job.
import roaring from 'roaring';
import { TIMED_OUT_SCORE, type Bucket, type RankingRule } from './ranking-rule.js';
import type { ActiveTerms, SearchContext } from './search-context.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export class TypoRule implements RankingRule {
  readonly name = 'typo';
  private layers: RoaringBitmap32[] = [];
  private next = 0;
  private terms: ActiveTerms = [];
  private timedOut = false;

  start(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): void {
    this.terms = terms;
    this.next = 0;
    this.timedOut = false;
    // layers[c] = documents whose typos over the terms seen so far total c.
    let layers: RoaringBitmap32[] = [universe.clone()];
    for (const term of terms) {
      if (Date.now() > ctx.deadline) {
        this.timedOut = true;
        this.layers = [universe.clone()];
        return;
      }
      const byTypo = ctx.termDocsByTypo(term);
      const costless = RoaringBitmap32.or(byTypo[0]!, RoaringBitmap32.andNot(universe, ctx.termDocs(term)));
      const classes = [costless, byTypo[1]!, byTypo[2]!];
      const next: RoaringBitmap32[] = [];
      layers.forEach((layer, cost) => {
        if (layer.isEmpty) return;
        classes.forEach((docs, typos) => {
          const part = RoaringBitmap32.and(layer, docs);
          if (part.isEmpty) return;
          const slot = next[cost + typos];
          if (slot) slot.orInPlace(part);
          else next[cost + typos] = part;
        });
      });
      layers = Array.from(next, (layer) => layer ?? new RoaringBitmap32());
    }
    this.layers = layers;
  }

  nextBucket(_ctx: SearchContext, universe: RoaringBitmap32): Bucket | null {
    while (this.next < this.layers.length) {
      const cost = this.next++;
      const candidates = RoaringBitmap32.and(this.layers[cost]!, universe);
      if (!candidates.isEmpty) return { candidates, score: this.timedOut ? TIMED_OUT_SCORE : cost, terms: this.terms };
    }
    return null;
  }

  end(): void {
    this.layers = [];
  }
}
