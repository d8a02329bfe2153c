// Applying a run of document-scoring rules in one pass: every document of the universe is read
// once, given one score per rule, and the documents are grouped by equal score vectors in
// ascending order — exactly the buckets the rules would have produced one after the other.
import roaring from 'roaring';
import { TIMED_OUT_SCORE, type RankingRule } from './ranking-rule.js';
import type { ActiveTerms, SearchContext } from './search-context.js';
import type { OrderedPart } from './score-layers.js';
import { orderByScores } from './score-order.js';

const { RoaringBitmap32 } = roaring;

export interface ScoreGroup {
  scores: number[];
  /** Ascending ids. */
  docIds: Uint32Array;
  bitmap(): roaring.RoaringBitmap32;
}

const DEADLINE_CHECK_EVERY = 512;
/**
 * Universes this small are read document by document (~1-2 µs each) rather than split: the postings
 * a split needs can cost far more, e.g. a one-letter prefix's rank lists union thousands of words.
 */
const READ_DIRECTLY_MAX = 256;

/**
 * Groups in ascending score order. With a finite `needed`, only the groups holding the best
 * `needed` documents are produced (a caller that stops there loses nothing).
 */
export function* scoreChainGroups(ctx: SearchContext, rules: readonly RankingRule[], universe: roaring.RoaringBitmap32,
  terms: ActiveTerms, needed: number): Generator<ScoreGroup> {
  const split = splitByFirstScoredRule(ctx, rules, universe, terms);
  if (split === null) {
    yield* scoreEveryDocument(ctx, rules, universe.toUint32Array(), terms, needed);
    return;
  }
  // Parts are in strict score order, so the groups of each part, part after part, are the groups of
  // the whole universe; the documents of the parts never reached are never read. Within a part of
  // known score that rule is constant, so the next rule may split it in turn.
  let remaining = needed;
  for (const part of split.parts) {
    const groups = part.score === null
      ? scoreEveryDocument(ctx, rules, part.docs.toUint32Array(), terms, remaining)
      : scoreChainGroups(ctx, rules.map((rule, r) => (r === split.ruleIndex ? constantRule(rule, part.score!) : rule)), part.docs, terms, remaining);
    for (const group of groups) {
      remaining -= group.docIds.length;
      yield group;
    }
    if (remaining <= 0) return;
  }
}

/**
 * The parts of the first rule that reads documents, when every rule before it is constant (so that
 * rule's score decides the order first) and it can split the universe from bitmaps.
 */
function splitByFirstScoredRule(ctx: SearchContext, rules: readonly RankingRule[], universe: roaring.RoaringBitmap32,
  terms: ActiveTerms): { ruleIndex: number; parts: OrderedPart[] } | null {
  if (universe.size <= READ_DIRECTLY_MAX) return null;
  for (let ruleIndex = 0; ruleIndex < rules.length; ruleIndex++) {
    const rule = rules[ruleIndex]!;
    if ((rule.constantScore?.(ctx, terms) ?? null) !== null) continue;
    const parts = rule.orderedParts?.(ctx, universe, terms) ?? null;
    // One part of unknown score splits nothing.
    return parts === null || (parts.length === 1 && parts[0]!.score === null) ? null : { ruleIndex, parts };
  }
  return null;
}

/** The rule as it scores every document of a part whose score it already knows. */
function constantRule(rule: RankingRule, score: number): RankingRule {
  return {
    name: rule.name,
    start: () => {},
    nextBucket: () => null,
    end: () => {},
    scoreDocument: () => score,
    constantScore: () => score,
  };
}

function* scoreEveryDocument(ctx: SearchContext, rules: readonly RankingRule[], docIds: Uint32Array,
  terms: ActiveTerms, needed: number): Generator<ScoreGroup> {
  const width = rules.length;
  const constants = rules.map((rule) => rule.constantScore?.(ctx, terms) ?? null);
  const scored = constants.some((constant) => constant === null);
  const scores = new Float64Array(docIds.length * width);
  const profileAt = scored ? ctx.profilesOf?.(docIds) ?? ((index: number) => ctx.profile(docIds[index]!)) : null;
  let timedOut = false;
  for (let i = 0; i < docIds.length; i++) {
    if (!timedOut && i % DEADLINE_CHECK_EVERY === DEADLINE_CHECK_EVERY - 1 && Date.now() > ctx.deadline) timedOut = true;
    const profile = profileAt !== null && !timedOut ? profileAt(i) : null;
    for (let r = 0; r < width; r++) {
      scores[i * width + r] = timedOut ? TIMED_OUT_SCORE : constants[r] ?? rules[r]!.scoreDocument!(ctx, profile!, terms);
    }
  }
  const order = orderByScores(scores, width, docIds.length, needed);
  let k = 0;
  while (k < order.length) {
    let end = k + 1;
    while (end < order.length && sameScores(scores, width, order[k]!, order[end]!)) end++;
    const group = new Uint32Array(end - k);
    for (let g = k; g < end; g++) group[g - k] = docIds[order[g]!]!;
    const first = order[k]! * width;
    // A plain loop: Array.from of a subarray (a typed array object and an iterator per group) showed in profiles.
    const groupScores = new Array<number>(width);
    for (let r = 0; r < width; r++) groupScores[r] = scores[first + r]!;
    yield {
      scores: groupScores,
      docIds: group,
      bitmap: () => new RoaringBitmap32(group),
    };
    k = end;
  }
}

function sameScores(scores: Float64Array, width: number, a: number, b: number): boolean {
  for (let r = 0; r < width; r++) if (scores[a * width + r] !== scores[b * width + r]) return false;
  return true;
}
