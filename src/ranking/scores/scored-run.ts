// The documents of a scored run (score-chain.ts) read one by one into score vectors, and the
// vectors' groups in ascending order.
import roaring from 'roaring';
import { TIMED_OUT_SCORE, type RankingRule } from '../ranking-rule.js';
import { acceleratorOf, searchScratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';
import type { SearchScratch } from '../search-scratch.js';
import type { ScoreGroup } from './score-chain.js';
import { orderByScores } from './score-order.js';
import { SmallestValues } from '../smallest-values.js';
import { mapPacked } from '../packed-arrays.js';

const { RoaringBitmap32 } = roaring;

const DEADLINE_CHECK_EVERY = 512;

/**
 * The search's spare bound (SearchScratch.bound) emptied for `needed` values, or a new one. Score rows
 * and bounds go back to the search's scratch after each run (runs of a search do not overlap: a run
 * hands out its groups once it is done with its rows): a run of a thousand documents took 32 KiB, much
 * of a query's garbage.
 */
function takeBound(scratch: SearchScratch, needed: number): SmallestValues {
  const spare = scratch.bound;
  if (spare === null) return new SmallestValues(needed);
  scratch.bound = null;
  return spare.reset(needed);
}

/**
 * The ids of the classes read, merged in ascending order, with their score rows moved along; only
 * the rows `keep` passes (all without it): a run of a thousand rows of which 20 are wanted sorted and
 * copied every row (a tenth of the costliest queries).
 */
export function byAscendingId(read: readonly Uint32Array[], scores: Float64Array, width: number,
  keep?: (row: number) => boolean): { docIds: Uint32Array; scores: Float64Array } {
  let rows = 0;
  for (const docIds of read) rows += docIds.length;
  // Each kept row's id and row number, in row order.
  let count = 0;
  const all = new Uint32Array(rows);
  const rowAt = new Uint32Array(rows);
  let row = 0;
  for (const docIds of read) {
    for (let i = 0; i < docIds.length; i++, row++) {
      if (keep !== undefined && !keep(row)) continue;
      all[count] = docIds[i]!;
      rowAt[count++] = row;
    }
  }
  const rowOf = new Uint32Array(count);
  // Ids are below 2 ** 32: with the index in the low bits, one double per row sorts natively (a
  // comparator sort of a few thousand rows showed), unless the rows are too many for the bits.
  if (count <= 2 ** 20) {
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) keys[i] = all[i]! * 2 ** 20 + i;
    keys.sort();
    // The low bits without `%` (a call to fmod on doubles this large).
    for (let i = 0; i < count; i++) rowOf[i] = keys[i]! - Math.floor(keys[i]! / 2 ** 20) * 2 ** 20;
  } else {
    for (let i = 0; i < count; i++) rowOf[i] = i;
    rowOf.sort((a, b) => all[a]! - all[b]!);
  }
  const docIds = new Uint32Array(count);
  const sorted = new Float64Array(count * width);
  for (let i = 0; i < count; i++) {
    const index = rowOf[i]!;
    docIds[i] = all[index]!;
    const from = rowAt[index]! * width;
    for (let r = 0; r < width; r++) sorted[i * width + r] = scores[from + r]!;
  }
  return { docIds, scores: sorted };
}

/**
 * The score vectors of documents read one by one, row after row. The first rule that reads decides
 * first (the ones before it are constant): a document it puts behind `needed` others cannot be among
 * the best, so the later rules skip it (its entries stay 0: its vector is still above those
 * documents', and it is never handed out).
 */
export class ScoredRun {
  readonly scores: Float64Array;
  timedOut = false;
  private rows = 0;
  private readonly constants: (number | null)[];
  private readonly lead: number;
  private readonly bound: SmallestValues | null;
  /** The search's scratch, where the rows and bound go back (release). */
  private readonly scratch: SearchScratch;

  constructor(private readonly ctx: SearchContext, private readonly rules: readonly RankingRule[], private readonly terms: ActiveTerms,
    capacity: number, needed: number) {
    const size = capacity * rules.length;
    const scratch = this.scratch = searchScratchOf(ctx);
    const spare = scratch.scores;
    if (spare !== null && spare.length >= size) {
      scratch.scores = null;
      this.scores = spare;
    } else {
      this.scores = new Float64Array(size);
    }
    this.constants = mapPacked(rules, (rule) => rule.constantScore?.(ctx, terms) ?? null);
    this.lead = this.constants.indexOf(null);
    this.bound = this.lead >= 0 && needed < capacity ? takeBound(scratch, needed) : null;
  }

  /** The rows go back to the thread: the run must not be used afterwards (groups are copied out). */
  release(): void {
    const scratch = this.scratch;
    if (scratch.scores === null || scratch.scores.length < this.scores.length) scratch.scores = this.scores;
    if (this.bound !== null) scratch.bound = this.bound;
  }

  /** A lead score above this cannot be among the best `needed` of the documents read so far. */
  leadBound(): number {
    return this.bound === null ? Infinity : this.bound.largestKept;
  }

  /**
   * Whether the row can still be among the best `needed` of the run: a lead score above the bound
   * has `needed` rows strictly ahead of it in the lead rule (the rules before it are constant). Every
   * row once timed out (their vectors are all TIMED_OUT_SCORE).
   */
  mayBeAmongBest(row: number): boolean {
    return this.timedOut || this.bound === null || this.scores[row * this.rules.length + this.lead]! <= this.bound.largestKept;
  }

  /** Scores the documents into the next rows. */
  read(docIds: Uint32Array): void {
    const { ctx, rules, terms, constants, lead, bound, scores } = this;
    const width = rules.length;
    const profileAt = lead >= 0 && !this.timedOut ? acceleratorOf(ctx).profilesOf(docIds) ?? ((index: number) => ctx.profile(docIds[index]!)) : null;
    for (let i = 0; i < docIds.length; i++) {
      const at = (this.rows + i) * width;
      if (!this.timedOut && (this.rows + i) % DEADLINE_CHECK_EVERY === DEADLINE_CHECK_EVERY - 1 && Date.now() > ctx.deadline) this.timedOut = true;
      if (this.timedOut || profileAt === null) {
        for (let r = 0; r < width; r++) scores[at + r] = this.timedOut ? TIMED_OUT_SCORE : constants[r]!;
        continue;
      }
      const profile = profileAt(i);
      for (let r = 0; r < lead; r++) scores[at + r] = constants[r]!;
      // Above the bound the exact score does not matter (the row is never handed out, nor among the best).
      const leadScore = rules[lead]!.scoreDocument!(ctx, profile, terms, bound === null ? Infinity : bound.largestKept);
      scores[at + lead] = leadScore;
      if (bound !== null && !bound.offer(leadScore)) {
        // Zeros, as a fresh array held (the rows are reused): never handed out, but ordered with the rest.
        for (let r = lead + 1; r < width; r++) scores[at + r] = 0;
        continue;
      }
      for (let r = lead + 1; r < width; r++) scores[at + r] = constants[r] ?? rules[r]!.scoreDocument!(ctx, profile, terms);
    }
    this.rows += docIds.length;
  }
}

/** The groups of equal score vectors among the best `needed` rows, ascending (`docIds` ascending: row order breaks ties). */
export function groupsInOrder(scores: Float64Array, width: number, docIds: Uint32Array, needed: number,
  scratch: SearchScratch): ScoreGroup[] {
  const order = orderByScores(scores, width, docIds.length, needed, scratch);
  const groups: ScoreGroup[] = [];
  let k = 0;
  while (k < order.length) {
    let end = k + 1;
    while (end < order.length && sameScores(scores, width, order[k]!, order[end]!)) end++;
    // A plain array: most groups hold a document or two, and a typed array each (two objects, one
    // of them an ArrayBuffer the collector sweeps) showed among a query's garbage.
    // Made at its size: most groups hold one document, and an array grown by push starts with room for 17.
    const group = new Array<number>(end - k);
    for (let g = k; g < end; g++) group[g - k] = docIds[order[g]!]!;
    const first = order[k]! * width;
    // A plain loop: Array.from of a subarray (a typed array object and an iterator per group) showed in profiles.
    const groupScores = new Array<number>(width);
    for (let r = 0; r < width; r++) groupScores[r] = scores[first + r]!;
    groups.push(new ReadGroup(groupScores, group));
    k = end;
  }
  return groups;
}

/** A group of read documents (a class: its bitmap() is a method, not a closure per group). */
class ReadGroup implements ScoreGroup {
  constructor(readonly scores: number[], readonly docIds: number[]) {}

  bitmap(): roaring.RoaringBitmap32 {
    return new RoaringBitmap32(this.docIds);
  }
}

function sameScores(scores: Float64Array, width: number, a: number, b: number): boolean {
  for (let r = 0; r < width; r++) if (scores[a * width + r] !== scores[b * width + r]) return false;
  return true;
}
