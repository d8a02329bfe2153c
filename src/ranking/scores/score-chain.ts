// Applying a run of document-scoring rules in one pass: every document of the universe is read
// once, given one score per rule, and the documents are grouped by equal score vectors in
// ascending order — exactly the buckets the rules would have produced one after the other.
import roaring from 'roaring';
import type { RankingRule } from '../ranking-rule.js';
import { acceleratorOf, searchScratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';
import type { SearchScratch } from '../search-scratch.js';
import type { OrderedPart } from './score-layers.js';
import { byAscendingId, groupsInOrder, ScoredRun } from './scored-run.js';
import { mapPacked } from '../packed-arrays.js';

const { RoaringBitmap32 } = roaring;

export interface ScoreGroup {
  scores: number[];
  /** Ascending ids. */
  docIds: Uint32Array | number[];
  bitmap(): roaring.RoaringBitmap32;
}

/**
 * Universes this small are read document by document (~1 µs each) rather than split, unless the
 * rule says otherwise (RankingRule.readDirectlyMax): the postings a split needs can cost more. The
 * rank / position / exact-word unions are memoized on the shard's cached derivations, so their splits
 * pay from ~64 documents on (one-word queries of the bench: a third less CPU than from 256 on).
 */
const READ_DIRECTLY_MAX = 64;
/**
 * While the postings wait for a rebuild (SearchContext.postingsStale), up to this many documents are
 * read rather than split: a split would build them at once, stopping the quiet-time build in slices.
 */
const READ_DIRECTLY_WHILE_STALE_MAX = 256;

/**
 * Groups in ascending score order, handed to `take` one by one while it returns true (false: the
 * caller has what it needs, nothing more is read or split). With a finite `needed`, only the groups
 * holding the best `needed` documents are produced (a caller that stops there loses nothing), and
 * the last of them may hold only its first (lowest id) documents, as many as are still needed.
 * Returns false when `take` stopped it. Callbacks, not generators: a group passed up through a
 * generator per level of parts cost ~75 ns per level, and each generator an allocation.
 */
export function visitScoreChainGroups(ctx: SearchContext, rules: readonly RankingRule[], universe: roaring.RoaringBitmap32,
  terms: ActiveTerms, needed: number, take: (group: ScoreGroup) => boolean): boolean {
  if (universe.isEmpty) return true;
  const constants = constantScores(ctx, rules, terms);
  if (constants !== null) return take(constantGroup(searchScratchOf(ctx), universe, constants, needed));
  const split = splitByFirstScoredRule(ctx, rules, universe, terms);
  if (split === null) return takeAll(scoreEveryDocument(ctx, rules, runIdsOf(searchScratchOf(ctx), universe), terms, needed), take);
  // Parts are in strict score order, so the groups of each part, part after part, are the groups of
  // the whole universe; the documents of the parts never reached are never read. Within a part of
  // known score that rule is constant, so the next rule may split it in turn.
  let remaining = needed;
  const counted = (group: ScoreGroup): boolean => {
    remaining -= group.docIds.length;
    return take(group);
  };
  for (let index = 0; ; index++) {
    let part: OrderedPart;
    if (index < split.taken.length) {
      part = split.taken[index]!;
    } else {
      const next = split.rest.next();
      if (next.done === true) return true;
      part = next.value;
    }
    const going = part.score === null
      ? takeAll(part.lowerBounds !== undefined && worthReadingByClass(part.docs.size, remaining)
        ? scoreBoundedClasses(ctx, rules, part, terms, remaining)
        : scoreEveryDocument(ctx, rules, runIdsOf(searchScratchOf(ctx), part.docs), terms, remaining), counted)
      : visitScoreChainGroups(ctx, mapPacked(rules, (rule, r) => (r === split.ruleIndex ? constantRule(rule, part.score!) : rule)), part.docs, terms,
        remaining, counted);
    if (!going) return false;
    if (remaining <= 0) return true;
  }
}

/** Every group of visitScoreChainGroups (tests and callers that want them all). */
export function scoreChainGroups(ctx: SearchContext, rules: readonly RankingRule[], universe: roaring.RoaringBitmap32,
  terms: ActiveTerms, needed: number): ScoreGroup[] {
  const groups: ScoreGroup[] = [];
  visitScoreChainGroups(ctx, rules, universe, terms, needed, (group) => groups.push(group) > 0);
  return groups;
}

/**
 * The ids of the run scoreEveryDocument reads, in the search's reused array (SearchScratch.runIds): runs
 * of a search do not overlap (a run is done, its groups copied out, before they are handed on), and an
 * array made per run (an ArrayBuffer each) was most of what the scavenges still swept once the bitmaps
 * were reused.
 */
function runIdsOf(scratch: SearchScratch, docs: roaring.RoaringBitmap32): Uint32Array {
  const size = docs.size;
  if (scratch.runIds.length < size) scratch.runIds = new Uint32Array(Math.max(size, scratch.runIds.length * 2));
  return docs.toUint32Array(scratch.runIds);
}

/** A part's groups this small (the hits still wanted) are copied into plain arrays, not an ArrayBuffer each. */
const SMALL_GROUP_MAX = 256;

/** The first `count` ids of the bitmap (at most its size). */
function firstIds(scratch: SearchScratch, docs: roaring.RoaringBitmap32, count: number): Uint32Array | number[] {
  if (count > SMALL_GROUP_MAX) return docs.toUint32Array(count);
  const view = docs.rangeUint32Array(scratch.runIds, 0, count);
  const ids = new Array<number>(view.length);
  for (let k = 0; k < view.length; k++) ids[k] = view[k]!;
  return ids;
}

/** Hands the groups to `take` while it returns true; false when it stopped. */
function takeAll(groups: readonly ScoreGroup[], take: (group: ScoreGroup) => boolean): boolean {
  for (let g = 0; g < groups.length; g++) if (!take(groups[g]!)) return false;
  return true;
}

/**
 * Parts of unknown score this large, of which at most a quarter is needed, are read class by class
 * (OrderedPart.lowerBounds): working the classes out costs lookups (proximity's: four pair lookups per
 * pair of terms), which reading a few hundred documents costs too.
 */
export const READ_BY_CLASS_MIN = 128;

function worthReadingByClass(size: number, needed: number): boolean {
  return size >= READ_BY_CLASS_MIN && needed * 4 <= size;
}

/**
 * The parts of the first rule that reads documents, when every rule before it is constant (so that
 * rule's score decides the order first) and it can split the universe from bitmaps.
 */
function splitByFirstScoredRule(ctx: SearchContext, rules: readonly RankingRule[], universe: roaring.RoaringBitmap32,
  terms: ActiveTerms): { ruleIndex: number; taken: OrderedPart[]; rest: Iterator<OrderedPart> } | null {
  for (let ruleIndex = 0; ruleIndex < rules.length; ruleIndex++) {
    const rule = rules[ruleIndex]!;
    if ((rule.constantScore?.(ctx, terms) ?? null) !== null) continue;
    const readDirectlyMax = rule.readDirectlyMax ?? (acceleratorOf(ctx).postingsStale() ? READ_DIRECTLY_WHILE_STALE_MAX : READ_DIRECTLY_MAX);
    if (universe.size <= readDirectlyMax) return null;
    const parts = rule.orderedParts?.(ctx, universe, terms) ?? null;
    if (parts === null) return null;
    const iterator = parts[Symbol.iterator]();
    const first = iterator.next();
    if (first.done === true) return null;
    // The parts taken from the (possibly lazy) iterator, then the ones it still has.
    if (first.value.score !== null) return { ruleIndex, taken: [first.value], rest: iterator };
    // One part of unknown score splits nothing.
    const second = iterator.next();
    return second.done === true ? null : { ruleIndex, taken: [first.value, second.value], rest: iterator };
  }
  return null;
}

/** Every rule's score when all are constant (nothing to read), else null. */
function constantScores(ctx: SearchContext, rules: readonly RankingRule[], terms: ActiveTerms): number[] | null {
  const scores: number[] = [];
  for (const rule of rules) {
    const score = rule.constantScore?.(ctx, terms) ?? null;
    if (score === null) return null;
    scores.push(score);
  }
  return scores;
}

/**
 * The one group of a universe every rule scores alike (nothing to read, so no deadline either). With
 * a finite `needed` it holds only the first `needed` ids (the caller stops there): the parts of known
 * score the splits hand out are often thousands of documents of which 20 are wanted, and filling and
 * ordering score vectors for all of them cost prefix queries 8%.
 */
function constantGroup(scratch: SearchScratch, universe: roaring.RoaringBitmap32, scores: number[], needed: number): ScoreGroup {
  return {
    scores,
    docIds: needed < universe.size ? firstIds(scratch, universe, Math.max(0, needed)) : universe.size <= SMALL_GROUP_MAX ? firstIds(scratch, universe, universe.size) : universe.toUint32Array(),
    // A copy: parts may be shared bitmaps (a lone word's posting list), and the next rules must not alter them.
    bitmap: () => universe.clone(),
  };
}

/** The rule as it scores every document of a part whose score it already knows. */
function constantRule(rule: RankingRule, score: number): RankingRule {
  return new ConstantRule(rule.name, score);
}

/** A class rather than an object of closures: one allocation per part instead of six. */
class ConstantRule implements RankingRule {
  constructor(readonly name: string, private readonly score: number) {}

  start(): void {}

  nextBucket(): null {
    return null;
  }

  end(): void {}

  scoreDocument(): number {
    return this.score;
  }

  constantScore(): number {
    return this.score;
  }
}

function scoreEveryDocument(ctx: SearchContext, rules: readonly RankingRule[], docIds: Uint32Array,
  terms: ActiveTerms, needed: number): ScoreGroup[] {
  const run = new ScoredRun(ctx, rules, terms, docIds.length, needed);
  try {
    run.read(docIds);
    return groupsInOrder(run.scores, rules.length, docIds, needed, searchScratchOf(ctx));
  } finally {
    run.release();
  }
}

/**
 * A part of unknown score read class by class (OrderedPart.lowerBounds): a class whose bound is above
 * the lead score of `needed` documents already read cannot hold any of the best `needed`, nor can
 * the classes after it (higher bounds), so they are never read. The groups are those of reading the
 * whole part (the documents left out are behind `needed` others in the lead rule alone).
 */
function scoreBoundedClasses(ctx: SearchContext, rules: readonly RankingRule[], part: OrderedPart, terms: ActiveTerms,
  needed: number): ScoreGroup[] {
  const classes = part.lowerBounds!();
  const run = new ScoredRun(ctx, rules, terms, part.docs.size, needed);
  let groups: ScoreGroup[];
  try {
    const read: Uint32Array[] = [];
    for (const boundedClass of classes) {
      // Past the deadline the rest is read as timed out (nothing read), as scoreEveryDocument does.
      if (!run.timedOut && boundedClass.atLeast > run.leadBound()) break;
      const docIds = boundedClass.docIds;
      run.read(docIds);
      read.push(docIds);
    }
    if (read.length === 1) {
      groups = groupsInOrder(run.scores, rules.length, read[0]!, needed, searchScratchOf(ctx));
    } else {
      // Rows in ascending id order, so that ties between equal vectors fall to the lower id as elsewhere.
      const { docIds, scores } = byAscendingId(read, run.scores, rules.length, (row) => run.mayBeAmongBest(row));
      groups = groupsInOrder(scores, rules.length, docIds, needed, searchScratchOf(ctx));
    }
  } finally {
    run.release();
  }
  return groups;
}


