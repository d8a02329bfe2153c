// Meilisearch's `_rankingScore` and `_rankingScoreDetails` (milli's score_details.rs) from a hit's
// score array. Each ranking rule gives a document a Rank {rank, maxRank} (maxRank is the best; 0 would
// not match); the global score folds them in rule order (Rank.merge: outer.rank - 1 scaled by the
// inner maxRank, plus the inner rank), sort and geo sort entries left out. The ranks come from our
// absolute rule scores and the query alone (never a shard's statistics), so every shard scores a
// document alike, and they never increase along the bucket order (rankingScoreThreshold may stop there).
//
// Per rule, as milli's graph rules count it (maxRank = 1 + the highest path cost):
// - words: maxRank = 1 + (words in phrases - 1) + terms the strategy may drop; rank = maxRank - dropped.
//   Absent with matchingStrategy `all` (milli adds no words rule then).
// - typo: maxRank = 1 + sum over active terms of the most typos it may cost (its budget; a word
//   without a typo budget may still be split in two, which costs 1; a phrase 0); rank = maxRank - typos.
// - proximity: 3 per pair of adjacent active terms (milli's MAX_DISTANCE 4: distances 1, 2, 3 cost
//   0, 1, 2, farther or apart 3). Our rule tells distances up to 7 apart (search-semantics §5), its
//   score being their sum: cost = sum - pairs, at most 3 per pair (exact while no pair is 4 to 7 apart;
//   above, the cost is the cap, never lower than milli's).
// - attributeRank: maxRank = 1 + active terms * the highest searchable weight (searchableAttributes'
//   length - 1; 0 with `*`, where milli weighs every field 0); rank = maxRank - the summed ranks.
// - wordPosition: maxRank = 1 + 10 per active term; rank = maxRank - the summed position costs.
// - attribute: attributeRank then wordPosition, one entry (details: `attribute`).
// - exactness: matchType (exactMatch 3, matchesStart 2, noExactMatch 1, of 3), then the exact words:
//   maxRank = active terms + 1, rank = exact terms + 1.
// A rule past the search deadline is "skipped": Rank {0, 1}, and nothing after it counts.
import type { MatchingStrategyName } from '../../protocol/messages.js';
import type { QueryTerm } from '../../query/query-term.js';
import type { ActiveTerms } from '../search-context.js';
import { TIMED_OUT_SCORE } from '../ranking-rule.js';
import { STATE_SPAN } from '../rules/exactness.js';
import { MAX_QUERY_TERMS } from '../../query/parse-query.js';
import { MAX_POSITION_COST } from '../rules/word-position.js';

export interface Rank {
  rank: number;
  maxRank: number;
}

/** What the plan needs of the search: the rules' names per score entry, the terms and their budgets. */
export interface ScorePlanInput {
  /** One name per score entry (a sort rule of width w names its first entry, then w - 1 nulls). */
  entryNames: readonly (string | null)[];
  terms: readonly QueryTerm[];
  /** The words rule's successive term sets (termRemovalSteps): its score is the index of the set. */
  removalSteps: readonly ActiveTerms[];
  matchingStrategy: MatchingStrategyName;
  /** The most typos each term may cost (typoBudget of its word; phrases 0). */
  typoBudgets: readonly number[];
  /** searchableAttributes' length - 1, 0 with `*`. */
  maxAttributeWeight: number;
}

type EntryKind = 'words' | 'typo' | 'proximity' | 'attributeRank' | 'wordPosition' | 'attribute' | 'exactness' | 'sort' | 'ignored';

interface PlanEntry {
  kind: EntryKind;
  /** The rule's name (sort criteria: `price:asc`, `_geoPoint(1, 2):asc`). */
  name: string;
}

/** The per-query part of the scores: built once per search, applied per hit. */
export class ScorePlan {
  private readonly entries: PlanEntry[];
  private readonly wordsMaxRank: number;
  /** Per words step: the figures of its active terms. */
  private readonly stepFigures: StepFigures[];
  readonly hasRankingRules: boolean;

  constructor(private readonly input: ScorePlanInput) {
    this.entries = input.entryNames.map((name) => ({ kind: kindOf(name, input), name: name ?? '' }));
    let phraseWords = 0;
    for (const term of input.terms) if (term.kind === 'phrase') phraseWords += term.words.filter((word) => word !== null).length;
    this.wordsMaxRank = 1 + Math.max(0, phraseWords - 1) + Math.max(0, input.removalSteps.length - 1);
    this.stepFigures = input.removalSteps.map((terms) => figuresOf(terms, input));
    this.hasRankingRules = this.entries.some((entry) => entry.kind !== 'sort' && entry.kind !== 'ignored');
  }

  /** The ranks of a hit's score, in rule order, with the sort entries (null rank) where they stand. */
  details(score: readonly number[]): ScoreDetail[] {
    const out: ScoreDetail[] = [];
    let figures = this.stepFigures[0] ?? NO_TERMS;
    let step = 0;
    for (let k = 0; k < this.entries.length && k < score.length; k++) {
      const entry = this.entries[k]!;
      const value = score[k]!;
      if (entry.kind === 'ignored') continue;
      if (value >= TIMED_OUT_SCORE) {
        out.push({ kind: 'skipped', name: 'skipped', ranks: [{ rank: 0, maxRank: 1 }] });
        break;
      }
      switch (entry.kind) {
        case 'words': {
          step = Math.min(value, this.stepFigures.length - 1);
          figures = this.stepFigures[step] ?? NO_TERMS;
          out.push({ kind: 'words', name: 'words', ranks: [{ rank: Math.max(1, this.wordsMaxRank - value), maxRank: this.wordsMaxRank }] });
          break;
        }
        case 'typo': {
          const maxRank = figures.typoMax + 1;
          out.push({ kind: 'typo', name: 'typo', ranks: [{ rank: Math.max(1, maxRank - value), maxRank }] });
          break;
        }
        case 'proximity': {
          const maxRank = 1 + 3 * figures.adjacentPairs;
          const cost = Math.min(3 * figures.adjacentPairs, Math.max(0, value - figures.pairs));
          out.push({ kind: 'proximity', name: 'proximity', ranks: [{ rank: maxRank - cost, maxRank }] });
          break;
        }
        case 'attributeRank':
          out.push({ kind: 'attributeRank', name: 'attributeRank', ranks: [this.fidRank(value, figures)] });
          break;
        case 'wordPosition':
          out.push({ kind: 'wordPosition', name: 'wordPosition', ranks: [positionRank(value, figures)] });
          break;
        case 'attribute': {
          const fid = Math.floor(value / POSITION_SPAN);
          out.push({ kind: 'attribute', name: 'attribute', ranks: [this.fidRank(fid, figures), positionRank(value - fid * POSITION_SPAN, figures)] });
          break;
        }
        case 'exactness': {
          const state = Math.floor(value / STATE_SPAN);
          const inexact = value - state * STATE_SPAN;
          const maxRank = figures.count + 1;
          out.push({ kind: 'exactness', name: 'exactness', ranks: [{ rank: 3 - Math.min(2, state), maxRank: 3 }, { rank: Math.max(1, maxRank - inexact), maxRank }] });
          break;
        }
        case 'sort':
          out.push({ kind: 'sort', name: entry.name, ranks: [] });
          break;
      }
    }
    return out;
  }

  /**
   * Meilisearch's score values of a hit (milli's weighted_score_values, before the weight): each run of
   * consecutive ranking rules folded into one Rank (Rank.merge) and given as its local score; each sort
   * criterion as [kind, ascending, ...its sort key] (sort-key.ts: lower is better; geo's is the distance).
   * A skipped rule is Rank {0, 1} and ends the list. Federated search merges by them (front/federation).
   */
  values(score: readonly number[]): ScoreValue[] {
    const out: ScoreValue[] = [];
    let k = 0;
    let rank = 1;
    let maxRank = 1;
    let open = false;
    const flush = (): void => {
      if (open) out.push(rank / maxRank);
      rank = 1;
      maxRank = 1;
      open = false;
    };
    for (const detail of this.details(score)) {
      if (detail.kind === 'sort') {
        // The entry's place in the score array: the plan's entries line up with it.
        while (k < this.entries.length && (this.entries[k]!.kind !== 'sort' || this.entries[k]!.name !== detail.name)) k++;
        let end = k + 1;
        while (end < this.entries.length && this.entries[end]!.kind === 'ignored' && this.entries[end]!.name === '') end++;
        flush();
        out.push([detail.name.startsWith('_geoPoint(') ? 'geo' : 'sort', detail.name.endsWith(':asc'), ...score.slice(k, end)]);
        k = end;
        continue;
      }
      for (const inner of detail.ranks) {
        rank = Math.max(0, rank - 1) * inner.maxRank + inner.rank;
        maxRank *= inner.maxRank;
        open = true;
      }
    }
    flush();
    return out;
  }

  private fidRank(summedRanks: number, figures: StepFigures): Rank {
    const maxRank = 1 + figures.count * this.input.maxAttributeWeight;
    // With `*` every field weighs 0 (milli): our ranks by field place do not count.
    if (this.input.maxAttributeWeight === 0) return { rank: 1, maxRank: 1 };
    return { rank: Math.max(1, maxRank - summedRanks), maxRank };
  }

  /** `_rankingScore` of a hit. */
  globalScore(score: readonly number[]): number {
    return globalScoreOf(this.details(score));
  }
}

/** A run of ranking rules' local score, or a sort criterion: [kind, ascending, ...sort key]. */
export type ScoreValue = number | [kind: 'sort' | 'geo', ascending: boolean, ...key: number[]];

const POSITION_SPAN = MAX_POSITION_COST * MAX_QUERY_TERMS + 1;

export interface ScoreDetail {
  kind: EntryKind | 'skipped';
  name: string;
  /** Empty for sort entries; two for `attribute` (fid, position) and `exactness` (attribute, words). */
  ranks: Rank[];
}

interface StepFigures {
  count: number;
  typoMax: number;
  pairs: number;
  adjacentPairs: number;
}

const NO_TERMS: StepFigures = { count: 0, typoMax: 0, pairs: 0, adjacentPairs: 0 };

function figuresOf(active: ActiveTerms, input: ScorePlanInput): StepFigures {
  let typoMax = 0;
  let adjacentPairs = 0;
  for (let k = 0; k < active.length; k++) {
    const term = input.terms[active[k]!]!;
    typoMax += term.kind === 'phrase' ? 0 : Math.max(1, input.typoBudgets[active[k]!] ?? 0);
    if (k > 0) {
      // milli walks a pair whose terms are not next to each other in the query (one dropped between) for free.
      if (active[k - 1] === active[k]! - 1) adjacentPairs++;
    }
  }
  return { count: active.length, typoMax, pairs: Math.max(0, active.length - 1), adjacentPairs };
}

function positionRank(cost: number, figures: StepFigures): Rank {
  const maxRank = 1 + MAX_POSITION_COST * figures.count;
  return { rank: Math.max(1, maxRank - cost), maxRank };
}

function kindOf(name: string | null, input: ScorePlanInput): EntryKind {
  if (name === null) return 'ignored';
  switch (name) {
    case 'words': return input.matchingStrategy === 'all' ? 'ignored' : 'words';
    case 'typo': case 'proximity': case 'attributeRank': case 'wordPosition': case 'attribute': case 'exactness': return name;
    default: return 'sort';
  }
}

/** Rank.merge folded over the ranks, from {1, 1}: the global score. */
export function globalScoreOf(details: readonly ScoreDetail[]): number {
  let rank = 1;
  let maxRank = 1;
  for (const detail of details) {
    for (const inner of detail.ranks) {
      rank = Math.max(0, rank - 1) * inner.maxRank + inner.rank;
      maxRank *= inner.maxRank;
    }
  }
  return rank / maxRank;
}

function localScore(rank: Rank): number {
  return rank.rank / rank.maxRank;
}

/**
 * A sort entry's detail: its key (`price:asc`, `_geoPoint(48.8, 2.3):asc`) and fields (the document's
 * value of the field; or its `_geo` point and distance).
 */
export type SortValueOf = (criterion: string) => [string, Record<string, unknown>];

/** `_rankingScoreDetails` (milli's to_json_map), keyed by rule, each with its `order`. */
export function detailsJson(details: readonly ScoreDetail[], sortValueOf: SortValueOf): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let order = 0;
  for (const detail of details) {
    const [first, second] = detail.ranks;
    switch (detail.kind) {
      case 'words':
        out.words = { order, matchingWords: first!.rank, maxMatchingWords: first!.maxRank, score: localScore(first!) };
        break;
      case 'typo':
        out.typo = { order, typoCount: first!.maxRank - first!.rank, maxTypoCount: first!.maxRank - 1, score: localScore(first!) };
        break;
      case 'proximity':
        out.proximity = { order, score: localScore(first!) };
        break;
      case 'attributeRank':
        out.attributeRank = { order, score: localScore(first!) };
        break;
      case 'wordPosition':
        out.wordPosition = { order, score: localScore(first!) };
        break;
      case 'attribute':
        out.attribute = { order, attributeRankingOrderScore: localScore(first!), queryWordDistanceScore: localScore(second!), score: globalScoreOf([detail]) };
        break;
      case 'exactness': {
        const matchType = first!.rank === 3 ? 'exactMatch' : first!.rank === 2 ? 'matchesStart' : 'noExactMatch';
        out.exactness = matchType === 'noExactMatch'
          ? { order, matchType, matchingWords: second!.rank - 1, maxMatchingWords: second!.maxRank - 1, score: globalScoreOf([detail]) }
          : { order, matchType, score: localScore(first!) };
        break;
      }
      case 'sort':
        {
          const [key, fields] = sortValueOf(detail.name);
          out[key] = { order, ...fields };
        }
        break;
      case 'skipped':
        out.skipped = { order };
        break;
      default:
        continue;
    }
    order++;
  }
  return out;
}
