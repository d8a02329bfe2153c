// Splitting a universe by a score that is a sum over terms of a per-term cost, when each term's
// documents are known per cost as bitmaps (attributeRank: best field rank; wordPosition: best
// position cost). Shared by the rules' orderedParts (ranking-rule.ts).
import roaring from 'roaring';
import { OWNED_BITMAPS, type BitmapSource } from '../scratch-bitmaps.js';
import type { RankingMemos } from '../ranking-memos.js';
import type { KeyedLists } from '../keyed-lists.js';
import { mapPacked } from '../packed-arrays.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** A part of a universe; `score`: the rule's score of every one of its documents, null when they differ. */
export interface OrderedPart {
  docs: RoaringBitmap32;
  score: number | null;
  /**
   * Optional with score null: the part's documents in classes (disjoint, together the part) by a
   * lower bound of the rule's score, ascending bounds, worked out from bitmaps when called. Reading
   * class after class, the score chain stops before a class whose bound is above the score of as many
   * documents as it needs (score-chain.ts): those documents never make the hits.
   */
  lowerBounds?: (() => BoundedClass[]) | undefined;
}

/**
 * An OrderedPart, every field set: parts made by one literal share one map (a part given
 * `lowerBounds` after others without it was a second map, and the score chain's reads of parts deopted).
 */
export function orderedPart(docs: RoaringBitmap32, score: number | null, lowerBounds?: () => BoundedClass[]): OrderedPart {
  return { docs, score, lowerBounds };
}

/** Documents each scoring at least `atLeast` with the rule (see OrderedPart.lowerBounds). */
export interface BoundedClass {
  /** Ascending. */
  docIds: Uint32Array;
  atLeast: number;
}

/**
 * costs[t][c]: the documents of the universe whose cost for term t is exactly c (disjoint over c;
 * documents in none cost more than every listed c). Returns one part per total score 0..maxSum (empty
 * ones left out), then the rest of the universe (score null), which the caller must know to score
 * above maxSum. The parts may be the bitmaps of `costs` themselves: read-only. The others come from
 * `bitmaps` (a search's scratch ones when the parts live only during it).
 */
export function partsBySum(universe: RoaringBitmap32, costs: readonly (readonly RoaringBitmap32[])[], maxSum: number,
  bitmaps: BitmapSource = OWNED_BITMAPS): OrderedPart[] {
  if (costs.length === 0) return universe.isEmpty ? [] : [orderedPart(universe, 0)];
  // layers[s]: documents whose costs over the terms seen so far sum to s. The first term's costs lie
  // within the universe, so they are its layers as they are (no intersection, no copy).
  let layers: (RoaringBitmap32 | undefined)[] = costs[0]!.slice(0, maxSum + 1);
  for (const termCosts of costs.slice(1)) {
    const next: (RoaringBitmap32 | undefined)[] = [];
    layers.forEach((layer, sum) => {
      if (layer === undefined || layer.isEmpty) return;
      termCosts.forEach((docs, cost) => {
        // Empty combinations (a fifth of them on the bench) are dropped: the scratch AND tests
        // intersects before copying (testing it here too read both bitmaps twice).
        if (sum + cost > maxSum || docs.isEmpty) return;
        const part = bitmaps.and(layer, docs);
        if (part.isEmpty) return;
        const slot = next[sum + cost];
        if (slot) slot.orInPlace(part);
        else next[sum + cost] = part;
      });
    });
    layers = next;
  }
  const parts: OrderedPart[] = [];
  layers.forEach((docs, score) => {
    if (docs !== undefined && !docs.isEmpty) parts.push(orderedPart(docs, score));
  });
  // The parts are disjoint (so are each term's costs): when they hold the whole universe, no rest.
  let covered = 0;
  for (const part of parts) covered += part.docs.size;
  if (covered === universe.size) return parts;
  // The universe without each part in turn (no union of the parts made for it).
  const rest = bitmaps.copy(universe);
  for (const part of parts) rest.andNotInPlace(part.docs);
  if (!rest.isEmpty) parts.push(orderedPart(rest, null));
  return parts;
}

/**
 * partsBySum(universe, lists.map((byCost) => bestCostParts(universe, byCost)), maxSum), lazily: a part
 * is made only when asked for, from only the best-cost parts it needs, and the score chain usually
 * stops after the first (attributeRank or wordPosition of a few terms: each term's best costs for
 * every rank, then every combination of them, were made for a first part of one sum). The parts are
 * read-only; every bitmap made comes from `bitmaps`.
 */
export function* partsBySumLazily(universe: RoaringBitmap32, lists: readonly KeyedLists[], maxSum: number,
  bitmaps: BitmapSource = OWNED_BITMAPS): Generator<OrderedPart> {
  if (lists.length === 0) {
    if (!universe.isEmpty) yield orderedPart(universe, 0);
    return;
  }
  const sums = new SuffixSums(universe, lists, bitmaps);
  const parts: RoaringBitmap32[] = [];
  let covered = 0;
  for (let score = 0; score <= maxSum && covered < universe.size; score++) {
    const docs = sums.summing(0, score);
    if (docs.isEmpty) continue;
    covered += docs.size;
    parts.push(docs);
    yield orderedPart(docs, score);
  }
  // The parts are disjoint: when they hold the whole universe, no rest.
  if (covered === universe.size) return;
  const rest = bitmaps.copy(universe);
  for (const part of parts) rest.andNotInPlace(part);
  if (!rest.isEmpty) yield orderedPart(rest, null);
}

/**
 * What partsBySumLazily works from: each term's best-cost parts and the sums over the terms from one
 * on, each made once when first needed (a term's list of a cost is read only then: keyed-lists.ts).
 */
class SuffixSums {
  private readonly best: BestCosts[];
  /** bySum[k][s]: documents whose costs over terms k.. sum to s (undefined: not made yet). */
  private readonly bySum: (RoaringBitmap32 | undefined)[][];

  constructor(universe: RoaringBitmap32, lists: readonly KeyedLists[], private readonly bitmaps: BitmapSource) {
    this.best = mapPacked(lists, (byCost) => new BestCosts(universe, byCost, bitmaps));
    this.bySum = mapPacked(lists, () => []);
  }

  summing(term: number, sum: number): RoaringBitmap32 {
    const known = this.bySum[term]![sum];
    if (known !== undefined) return known;
    const best = this.best[term]!;
    let docs: RoaringBitmap32 | null = null;
    if (term === this.best.length - 1) {
      docs = best.at(sum);
    } else {
      for (let cost = 0; cost <= sum; cost++) {
        const atCost = best.at(cost);
        if (atCost.isEmpty) continue;
        const others = this.summing(term + 1, sum - cost);
        if (others.isEmpty) continue;
        // Empty combinations are dropped (the scratch AND tests intersects before copying).
        const part = this.bitmaps.and(atCost, others);
        if (part.isEmpty) continue;
        if (docs === null) docs = part;
        else docs.orInPlace(part);
      }
    }
    const made = docs ?? NO_DOCUMENTS;
    this.bySum[term]![sum] = made;
    return made;
  }
}

/**
 * bestCostParts(universe, byCost, bitmaps)[cost], each made when first asked for (in cost order: each
 * narrows what the next may hold, and only once the next is asked for: a first part alone needs no
 * narrowed copy of the universe, and no list of a later cost is read).
 */
class BestCosts {
  private readonly parts: RoaringBitmap32[] = [];
  /** The universe minus the parts so far but `unsubtracted` (null: none yet, the universe itself). */
  private remaining: RoaringBitmap32 | null = null;
  /**
   * The last part made, not yet taken out of `remaining` (null: none): taken out only once a later
   * cost with documents is asked for, so nothing is narrowed after the last list with documents.
   */
  private unsubtracted: RoaringBitmap32 | null = null;

  constructor(private readonly universe: RoaringBitmap32, private readonly byCost: KeyedLists, private readonly bitmaps: BitmapSource) {}

  at(cost: number): RoaringBitmap32 {
    const { parts, byCost } = this;
    while (parts.length <= cost) {
      const next = parts.length;
      const docs = byCost.at(next);
      if (docs === undefined || docs.isEmpty) {
        parts.push(NO_DOCUMENTS);
        continue;
      }
      const unsubtracted = this.unsubtracted;
      if (unsubtracted !== null) {
        if (this.remaining === null) this.remaining = this.bitmaps.andNot(this.universe, unsubtracted);
        else this.remaining.andNotInPlace(unsubtracted);
        this.unsubtracted = null;
      }
      const remaining = this.remaining;
      if (remaining !== null && remaining.isEmpty) {
        parts.push(NO_DOCUMENTS);
        continue;
      }
      const part = this.bitmaps.and(remaining ?? this.universe, docs);
      if (!part.isEmpty) this.unsubtracted = part;
      parts.push(part);
    }
    return parts[cost]!;
  }
}

/**
 * The one empty bitmap the rules hand out and keep where they would make an empty one (bitmaps are
 * native objects: each costs the collector ~2 µs to finalize, and scavenges spent most of their time
 * there). Frozen: it is shared, so mutating it throws instead of corrupting later searches.
 */
export const NO_DOCUMENTS = new RoaringBitmap32();
NO_DOCUMENTS.freeze();

/**
 * Per cost, the documents whose BEST (lowest) cost it is: each list minus the documents of lower costs.
 * The universe is narrowed as parts are taken, so once it is used up (every document has its best
 * cost) and for empty lists (ranks no field has) no bitmap is combined: those parts are empty, and
 * one shared empty bitmap. The parts are read-only; those made come from `bitmaps`.
 */
export function bestCostParts(universe: RoaringBitmap32, byCost: readonly RoaringBitmap32[], bitmaps: BitmapSource = OWNED_BITMAPS): RoaringBitmap32[] {
  // After the last list with documents nothing is narrowed any more.
  let last = byCost.length - 1;
  while (last >= 0 && byCost[last]!.isEmpty) last--;
  const best: RoaringBitmap32[] = [];
  // The universe minus the documents of the parts so far (null: none yet, the universe itself).
  let remaining: RoaringBitmap32 | null = null;
  for (let cost = 0; cost < byCost.length; cost++) {
    const docs = byCost[cost]!;
    if (cost > last || docs.isEmpty || (remaining !== null && remaining.isEmpty)) {
      best.push(NO_DOCUMENTS);
      continue;
    }
    const part = bitmaps.and(remaining ?? universe, docs);
    if (cost < last && !part.isEmpty) {
      if (remaining === null) remaining = bitmaps.andNot(universe, part);
      else remaining.andNotInPlace(part);
    }
    best.push(part);
  }
  return best;
}

/**
 * For one term: partsBySum(universe, [bestCostParts(universe, byCost)], byCost.length - 1), lazily.
 * Each part is cut from what the earlier ones left only when asked for, and the score chain usually
 * stops after the first (a one-word query's documents with the word in their first field).
 * The parts are read-only (the first may be a list of `byCost` itself); those made come from `bitmaps`.
 * `listsLikelyWithin`: when the lists usually lie within the universe, the memo of subset answers
 * (RankingMemos.within); null: they are not.
 */
export function* bestCostPartsLazily(universe: RoaringBitmap32, byCost: KeyedLists, listsLikelyWithin: RankingMemos['within'] | null = null,
  bitmaps: BitmapSource = OWNED_BITMAPS, costCount = byCost.length): Generator<OrderedPart> {
  // What the parts so far left of the universe (the universe itself, read-only, until one is taken;
  // then a bitmap of this function's own, narrowed in place).
  let remaining = universe;
  for (let cost = 0; cost < costCount; cost++) {
    // Read only now (keyed-lists.ts): the score chain mostly stops after the first part.
    const docs = byCost.at(cost)!;
    if (docs.isEmpty) continue;
    // `listsLikelyWithin` (the lists usually lie within the universe, as a term's lists in its own
    // documents): a first part within it is its list itself, read-only, not a copy made and dropped.
    // (Checked: a multi-word synonym's words have documents where they are not consecutive.)
    const part = listsLikelyWithin !== null && remaining === universe && isWithin(docs, universe, listsLikelyWithin) ? docs : bitmaps.and(remaining, docs);
    if (part.isEmpty) continue;
    yield orderedPart(part, cost);
    if (part.size === remaining.size) return;
    if (remaining === universe) remaining = bitmaps.andNot(universe, part);
    else remaining.andNotInPlace(part);
  }
  if (!remaining.isEmpty) yield orderedPart(remaining, null);
}

/** docs ⊆ universe, memoized per (list, universe) in `memo` (RankingMemos.within): both must be read-only for as long as they are asked about. */
function isWithin(docs: RoaringBitmap32, universe: RoaringBitmap32, memo: RankingMemos['within']): boolean {
  const known = memo.get(docs);
  if (known !== undefined && known.universe === universe) return known.within;
  const within = docs.isSubset(universe);
  memo.set(docs, { universe, within });
  return within;
}
