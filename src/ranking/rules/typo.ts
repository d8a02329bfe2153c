// typo: fewer typos first. Score = total over the active terms of the typos of the document's best
// match of each term (prefix extensions and phrases cost 0). A term the document lacks costs 0 here:
// telling those apart is the words rule's job.
import type roaring from 'roaring';
import { TIMED_OUT_SCORE, type Bucket, type RankingRule } from '../ranking-rule.js';
import { NO_DOCUMENTS } from '../scores/score-layers.js';
import { scratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

export class TypoRule implements RankingRule {
  readonly name = 'typo';
  private layers: RoaringBitmap32[] = [];
  private next = 0;
  private terms: ActiveTerms = [];
  private timedOut = false;
  /** The universe of start (not mutated by rules): the layers are within it. */
  private startUniverse: RoaringBitmap32 | null = null;

  start(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): void {
    this.terms = terms;
    this.next = 0;
    this.timedOut = false;
    this.startUniverse = universe;
    // One term over its own documents (a one-word query): its typo classes are the layers as they are
    // (disjoint, covering them; shared and read-only, as buckets are): no copy, no intersection.
    if (terms.length === 1 && universe === ctx.termDocs(terms[0]!) && Date.now() <= ctx.deadline) {
      this.layers = ctx.termDocsByTypo(terms[0]!).slice();
      return;
    }
    // The layers live as long as the rule's start..end, within the search: the search's scratch bitmaps.
    const bitmaps = scratchOf(ctx);
    // layers[c] = documents whose typos over the terms seen so far total c. The first is the universe
    // itself until a part is cut from it (no copy: most documents hold the words without typos, and at
    // a million documents that copy was an eighth of the native bitmap bytes made per query).
    let layers: RoaringBitmap32[] = [universe];
    for (const term of terms) {
      if (Date.now() > ctx.deadline) {
        this.timedOut = true;
        this.layers = [bitmaps.copy(universe)];
        return;
      }
      const byTypo = ctx.termDocsByTypo(term);
      const next: (RoaringBitmap32 | undefined)[] = [];
      // Loops, not forEach and closures: this runs for every term of most queries.
      for (let cost = 0; cost < layers.length; cost++) {
        let layer = layers[cost]!;
        if (layer.isEmpty) continue;
        // The layers are this rule's own bitmaps (but the universe, copied at its first cut): the typo parts are cut out in place,
        // and what stays costs nothing. The classes of byTypo are disjoint and cover the term's
        // documents, so that is the best match without typos or no match of the term at all, without
        // building that (often large) union.
        // No bitmap is kept for an empty part (the scratch AND tests intersects first: testing it here
        // too read both lists twice), nor for an emptied layer (the shared empty one).
        for (let typos = 1; typos <= 2; typos++) {
          const docs = byTypo[typos]!;
          if (docs.isEmpty || layer.isEmpty) continue;
          const part = bitmaps.and(layer, docs);
          if (part.isEmpty) continue;
          if (part.size === layer.size) layer = NO_DOCUMENTS;
          else if (layer === universe) layer = bitmaps.andNot(layer, part);
          else layer.andNotInPlace(part);
          addTo(next, cost + typos, part);
        }
        if (!layer.isEmpty) addTo(next, cost, layer);
      }
      layers = new Array<RoaringBitmap32>(next.length);
      for (let cost = 0; cost < next.length; cost++) layers[cost] = next[cost] ?? NO_DOCUMENTS;
    }
    this.layers = layers;
  }

  nextBucket(ctx: SearchContext, universe: RoaringBitmap32): Bucket | null {
    while (this.next < this.layers.length) {
      const cost = this.next++;
      // A layer is handed out as is when the universe is start's (the layers are within it, and ours).
      const layer = this.layers[cost]!;
      const candidates = universe === this.startUniverse ? layer : scratchOf(ctx).and(layer, universe);
      if (!candidates.isEmpty) return { candidates, score: this.timedOut ? TIMED_OUT_SCORE : cost, terms: this.terms };
    }
    return null;
  }

  end(): void {
    this.layers = [];
    this.startUniverse = null;
  }
}

/** Adds the part to the layer of that cost (the layer's own bitmap, narrowed in place, or the part itself). */
function addTo(layers: (RoaringBitmap32 | undefined)[], cost: number, part: RoaringBitmap32): void {
  const slot = layers[cost];
  if (slot) slot.orInPlace(part);
  else layers[cost] = part;
}
