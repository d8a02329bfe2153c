// One query over the shards a worker owns, with its shaping (search-plan.ts): the filter as a bitmap
// per shard, sort orders from each shard's facet store, distinct keys, facet partials, and each
// hit's `_geoDistance`. Returns the worker's best hits merged, and `extras` for the front.
import type { MatchingStrategyName, ShardExtras } from '../../protocol/messages.js';
import { mergeRankedHits } from '../../ranking/scores/merge-ranked-hits.js';
import { parseSortCriterion } from '../../filter/sort-criteria.js';
import { parseCustomFieldRule } from '../../ranking/rules/custom-field.js';
import type { SortOrder } from '../../ranking/rules/sort.js';
import { distinctKeysOf, keepFirstPerKey, type DistinctKeyOf } from '../facets/distinct.js';
import { facetPartials, keepFirstValues, type FacetCut, type FacetPartials } from '../facets/facet-distribution.js';
import { evaluateFilter } from '../facets/filter-evaluator.js';
import { haversineMeters } from '../../filter/geo-distance.js';
import { attributePatternsOf } from '../../filter/attribute-patterns.js';
import { addCount } from '../../filter/facet-value.js';
import { ownValue, setOwn } from '../../documents/own-fields.js';
import roaring from 'roaring';
import { expandFacetNames, type SearchPlan } from './search-plan.js';
import type { ShardIndex } from '../shard-index.js';
import type { SearchBudget } from './search-budget.js';
import { shardTermDocCounts, type ShardHit } from './shard-search.js';
import type { ScorePlan } from '../../ranking/scores/score-details.js';
import { sortOrderFor } from '../facets/sort-order.js';
import type { FieldRestriction } from './field-restriction.js';
import type { SplitDecider } from './split-decider.js';

const { RoaringBitmap32 } = roaring;

export interface PlannedHit extends ShardHit {
  /** Meters to the first `_geoPoint` of the sort, rounded; absent when the document has no `_geo`. */
  geoDistance?: number;
}

export interface PlannedSearchResult {
  candidates: number;
  hits: PlannedHit[];
  /**
   * Facet partials ({facetDistribution, facetStats}) and, with distinct, `distinctKeys` aligned with
   * hits plus `distinctCount` ({keys, unshared}) so the front counts matches exactly.
   */
  extras: ShardExtras | null;
  /** See ShardSearchResult.rankingEntries (the same for every shard of one query). */
  rankingEntries: boolean[] | null;
  /** See ShardSearchResult.scorePlan; null when no shard was searched. */
  scorePlan: (() => ScorePlan) | null;
}

export interface PlannedQuery {
  q: string | null;
  hitsWanted: number;
  matchingStrategy: MatchingStrategyName;
  /** The deadline and yield points of every phase: filter, ranking, sort, distinct, facets (search-budget.ts). */
  budget: SearchBudget;
  rankingScoreThreshold?: number | null;
  /** matchingStrategy frequency: each term's documents in the whole index, summed by the front (ShardSearchRequest). */
  termDocCounts?: readonly number[] | null;
  /** attributesToSearchOn (ShardSearchRequest.fieldRestriction). */
  fieldRestriction?: FieldRestriction | null;
  /** Facet search: the facets' string values only (facetPartials). */
  facetStringsOnly?: boolean;
  /** Facet search's facetQuery: only the values (display spellings) it matches are counted (facetPartials). */
  facetValueFilter?: (value: string) => boolean;
  /** Facets in alpha order: each shard's first maxValuesPerFacet values only (facetPartials). */
  facetCut?: FacetCut | null;
  /**
   * Facet search's exhaustiveFacetCount with a distinct attribute (milli counts facets over the
   * candidates after distinct: per value, the document of lowest id). 'mins': answer each key's lowest
   * matching document id (extras.distinctMins); a set: count facets over the documents without a
   * key and these (the front's lowest per key) only.
   */
  distinctFacets?: 'mins' | ReadonlySet<number>;
  /** An index of several shards: each query word's split (ShardSearchRequest.splits). */
  splits?: SplitDecider | null;
  /** This worker holds every shard of the index and no other node's answer joins: its counts are the index's (distinct's need no keys). */
  wholeIndex?: boolean;
  /** The count is shown capped at this (ShardSearchOptions.countCap): a distinct count may stop there. */
  countCap?: number;
}

export function searchShards(shards: readonly ShardIndex[], plan: SearchPlan, query: PlannedQuery): PlannedSearchResult {
  const facetCut = query.facetCut ? { ...query.facetCut, soleShard: query.facetCut.whole && shards.length === 1 } : null;
  let candidates = 0;
  let rankingEntries: boolean[] | null = null;
  let scorePlan: (() => ScorePlan) | null = null;
  const lists: PlannedHit[][] = [];
  const partials: FacetPartials[] = [];
  // distinct: keys are listed only when another shard's documents may share them (this worker's, unioned
  // here, or another worker's, unioned by the front); the index in this worker's one shard needs the count alone.
  const listDistinctKeys = !(query.wholeIndex === true && shards.length === 1);
  const distinctKeys = new Set<string>();
  let distinctKeyCount = 0;
  let withoutDistinctKey = 0;
  const distinctMins: Record<string, number> = {};
  for (const shard of shards) {
    const budget = query.budget;
    const restrictTo = plan.filter ? evaluateFilter(plan.filter, shard.facets, shard.documents, budget) : null;
    const distinct = plan.distinct ? distinctKeysOf(shard.facets.field(plan.distinct)) : null;
    const result = shard.search({
      q: query.q, hitsWanted: query.hitsWanted, matchingStrategy: query.matchingStrategy, budget,
      sort: plan.sortTexts, sortOrder: sortOrderProvider(shard, budget), restrictTo, distinct, listDistinctKeys, distinctCountCap: query.countCap ?? Infinity,
      rankingScoreThreshold: query.rankingScoreThreshold ?? null, termDocCounts: query.termDocCounts ?? null,
      fieldRestriction: query.fieldRestriction ?? null, splits: query.splits ?? null,
      ...(plan.rankingRules ? { rankingRules: plan.rankingRules } : {}),
    });
    // Undecided splits: the shard engine answers the counts, not hits.
    if (query.splits?.undecided != null) break;
    candidates += result.candidates;
    rankingEntries = result.rankingEntries;
    scorePlan = result.scorePlan;
    if (result.distinctCount) {
      if (result.distinctCount.keys !== null) for (const key of result.distinctCount.keys) distinctKeys.add(key);
      else distinctKeyCount += result.distinctCount.keyCount;
      withoutDistinctKey += result.distinctCount.withoutKey;
    }
    lists.push(plan.geoPoint ? result.hits.map((hit) => withGeoDistance(shard, hit, plan.geoPoint!)) : result.hits);
    if (plan.facets) {
      const names = expandFacetNames(plan.facets, shard.facets.fields.keys(), shard.config.settings.filterableAttributes ?? []);
      partials.push(facetPartials(shard.facets, facetCandidates(result.universe, distinct?.keyOf ?? null, query.distinctFacets, distinctMins, budget), names, budget,
        query.facetStringsOnly === true, query.facetValueFilter, facetCut));
    }
  }
  let hits: PlannedHit[];
  if (plan.distinct) {
    hits = keepFirstPerKey(mergeRankedHits(lists, 0, Infinity), (hit) => hit.distinctKey, query.hitsWanted);
  } else {
    hits = mergeRankedHits(lists, 0, query.hitsWanted);
  }
  let extras: ShardExtras | null = null;
  if (plan.facets) {
    extras = mergePartials(partials);
    if (query.facetCut?.whole === true) keepFirstValues(extras.facetDistribution!, query.facetCut);
  }
  if (query.distinctFacets === 'mins' && plan.distinct) (extras ??= {}).distinctMins = distinctMins;
  if (plan.distinct) {
    // The same value may match in several shards: the union of their keys is counted (here, or by the
    // front when another worker's may share them).
    candidates = distinctKeyCount + distinctKeys.size + withoutDistinctKey;
    extras ??= {};
    extras.distinctKeys = hits.map((hit) => hit.distinctKey ?? null);
    // (a count at the cap needs no union: the index's is at least as large)
    extras.distinctCount = query.wholeIndex === true || candidates >= (query.countCap ?? Infinity)
      ? { keys: [], unshared: candidates } : { keys: [...distinctKeys], unshared: withoutDistinctKey };
  }
  return { candidates, hits, extras, rankingEntries, scorePlan };
}

/**
 * The first round of a matchingStrategy frequency search over several shards: each term's documents
 * in the worker's shards (extras.termDocCounts), which the front sums for the search itself.
 */
export function termDocCountsOfShards(shards: readonly ShardIndex[], q: string, budget: SearchBudget,
  fieldRestriction: FieldRestriction | null = null, splits: SplitDecider | null = null): PlannedSearchResult {
  let sums: number[] = [];
  for (const shard of shards) {
    const counts = shardTermDocCounts(shard, q, budget, fieldRestriction, splits);
    sums = counts.map((count, term) => count + (sums[term] ?? 0));
  }
  return { candidates: 0, hits: [], extras: { termDocCounts: sums }, rankingEntries: null, scorePlan: null };
}

/**
 * The documents facets are counted on (PlannedQuery.distinctFacets); notes each key's lowest document
 * in `mins` when asked. Past the search's deadline the documents not read yet are left out (a degraded count).
 */
function facetCandidates(universe: roaring.RoaringBitmap32, keyOf: DistinctKeyOf | null, distinctFacets: PlannedQuery['distinctFacets'],
  mins: Record<string, number>, budget: SearchBudget): roaring.RoaringBitmap32 {
  if (keyOf === null || distinctFacets === undefined) return universe;
  const kept = new RoaringBitmap32();
  let step = 0;
  for (const docId of universe) {
    if (++step % 4096 === 0 && budget.passed()) break;
    const key = keyOf(docId);
    if (key === null) kept.add(docId);
    else if (distinctFacets === 'mins') mins[key] = Math.min(mins[key] ?? Infinity, docId);
    else if (distinctFacets.has(docId)) kept.add(docId);
  }
  return kept;
}

function sortOrderProvider(shard: ShardIndex, budget: SearchBudget): (criterion: string) => SortOrder | null {
  return (criterion) => {
    const custom = parseCustomFieldRule(criterion);
    if (custom && !criterion.startsWith('_geoPoint')) return sortOrderFor(shard.facets, { field: custom.field, point: null, direction: custom.direction }, budget);
    try {
      return sortOrderFor(shard.facets, parseSortCriterion(criterion), budget);
    } catch {
      return null;
    }
  };
}

function withGeoDistance(shard: ShardIndex, hit: PlannedHit, point: { lat: number; lng: number }): PlannedHit {
  const location = shard.facets.geo.get(hit.docId);
  if (!location) return hit;
  return { ...hit, geoDistance: Math.round(haversineMeters(point.lat, point.lng, location.lat, location.lng)) };
}

/** The worker's shards summed (the front sums the workers the same way, facet-merge.ts). */
function mergePartials(partials: readonly FacetPartials[]): ShardExtras {
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, { min: number; max: number }> = {};
  for (const partial of partials) {
    for (const [name, counts] of Object.entries(partial.facetDistribution)) {
      let into = ownValue(facetDistribution, name);
      if (into === undefined) setOwn(facetDistribution, name, (into = {}));
      for (const value of Object.keys(counts)) addCount(into, value, counts[value]!);
    }
    for (const [name, { min, max }] of Object.entries(partial.facetStats)) {
      const into = ownValue(facetStats, name);
      setOwn(facetStats, name, into ? { min: Math.min(into.min, min), max: Math.max(into.max, max) } : { min, max });
    }
  }
  return { facetDistribution, facetStats };
}
