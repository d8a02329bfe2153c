// One search on one shard: parse q, find each term's documents, then bucket-sort the matching
// documents with the index's ranking rules. Placeholder search lists documents by ascending id.
import roaring from 'roaring';
import type { MatchingStrategyName } from '../../protocol/messages.js';
import { parseQueryParts, type ParsedQuery } from '../../query/parse-query.js';
import type { QueryTerm, WordTerm } from '../../query/query-term.js';
import { typoBudget } from '../../query/typo-budget.js';
import { multiWordSynonyms } from '../../query/synonyms.js';
import { exactAttributeKey, ownBitmap, withAlternatives, withNgrams, type TermAlternative, type TermDerivations } from '../words/derivations.js';
import { bucketSort, type RankedHit, type ScoreFloor } from '../../ranking/bucket-sort.js';
import { ScorePlan } from '../../ranking/scores/score-details.js';
import { emptyProfile, type DocMatchProfile } from '../../ranking/match-profile.js';
import { reusableRulesFor } from '../../ranking/rules/rules-from-settings.js';
import type { RankingRule } from '../../ranking/ranking-rule.js';
import { SortRule, type SortOrder } from '../../ranking/rules/sort.js';
import { NO_DOCUMENTS } from '../../ranking/scores/score-layers.js';
import { costNote, withNotedCosts } from '../pairs/pair-cost-memo.js';
import { keepFirstPerKey, type DistinctCount, type DistinctKeys } from '../facets/distinct.js';
import { CANNOT_TELL, type KnownPairCosts, type SearchAccelerator, type SearchContext } from '../../ranking/search-context.js';
import { docsMatchingAll, termRemovalSteps } from '../../ranking/rules/words.js';
import { buildProfile, buildProfileAt, documentHasPhrase, documentOffsets, fieldWordCount, lookupArrays, phraseStarts, touchEntries, TOUCH_AHEAD, WordLookup, type PhraseOfTerm } from '../documents/match-profile-builder.js';
import type { ShardIndex } from '../shard-index.js';
import { fieldRankKey, positionKey, type TokenKey, type TokenKeyPostings } from '../postings/token-key-postings.js';
import type { FieldStartDocs } from '../postings/field-start-pairs.js';
import type { PairLookupMemo, PairSide } from '../pairs/near-pair-postings.js';
import { remeasureSharedPairMemo, sharedPairMemo } from '../pairs/shared-pair-memos.js';
import type { ScratchBitmaps } from '../../ranking/scratch-bitmaps.js';
import { giveBackSearchScratch, takeSearchScratch } from './thread-scratch.js';
import type { SearchScratch } from '../../ranking/search-scratch.js';
import type { RankingMemos } from '../../ranking/ranking-memos.js';
import { LazyLists, type KeyedLists } from '../../ranking/keyed-lists.js';
import { SearchBudget } from './search-budget.js';
import type { FieldRestriction } from './field-restriction.js';
import type { SplitDecider } from './split-decider.js';
import { occurrenceTypos } from '../../ranking/match-profile.js';
import { pairCost } from '../../ranking/rules/proximity.js';
import { positionCount } from '../../query/query-term.js';
import { mapPacked } from '../../ranking/packed-arrays.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export interface ShardSearchRequest {
  /** null or empty: placeholder search. */
  q: string | null;
  hitsWanted: number;
  matchingStrategy: MatchingStrategyName;
  /** Milliseconds timestamp; default now + the index's searchCutoffMs (1500 ms when unset). Ignored with `budget`. */
  deadline?: number;
  /** The search's deadline and yield points (search-budget.ts), shared by every phase of the search. */
  budget?: SearchBudget;
  /** The query's sort parameter (criteria texts). */
  sort?: readonly string[] | null;
  /** Instead of the index's ranking rules (the documents routes: `['sort']`). */
  rankingRules?: readonly string[];
  /** The shard's order for a sort criterion or custom ranking rule (sort-order.ts). */
  sortOrder?: (criterion: string) => SortOrder | null;
  /** The filter's documents: when set, only these documents can match. */
  restrictTo?: RoaringBitmap32 | null;
  /** distinct: the key of each document (null = no value, always kept) and the count of the matches' keys. */
  distinct?: DistinctKeys | null;
  /** distinct: list the matches' keys too (another shard or worker may hold some of them). */
  listDistinctKeys?: boolean;
  /** distinct: the count is shown capped at this (ShardSearchOptions.countCap): counting may stop there. */
  distinctCountCap?: number;
  /**
   * false: the reference path, the search context's accelerator answering "cannot tell" to everything
   * (CANNOT_TELL): rules never split buckets from postings or pair tables, every document of a scored
   * run is read (what the equivalence tests hold the shortcuts to). Default true.
   */
  bitmapBuckets?: boolean;
  /**
   * Tests: the accelerator this search uses, made from the shard's (withCannotTell turns methods off,
   * so each is held to the reference path alone; a wrapper may count their answers).
   */
  wrapAccelerator?: (accelerator: SearchAccelerator) => SearchAccelerator;
  /** rankingScoreThreshold: hits scoring under it are left out, and so are they from candidates when the sort reached them. */
  rankingScoreThreshold?: number | null;
  /** matchingStrategy frequency: each term's documents in the whole index (SearchContext.termDocCounts). */
  termDocCounts?: readonly number[] | null;
  /** attributesToSearchOn: the fields the query words are looked for in (null: every searchable field). */
  fieldRestriction?: FieldRestriction | null;
  /** An index of several shards: the split each query word takes (split-decider.ts); undecided, the search answers no hit. */
  splits?: SplitDecider | null;
}

export interface ShardHit extends RankedHit {
  /** With distinct: the hit's distinct key, so merges can drop duplicates across shards. */
  distinctKey?: string | null;
}

export interface ShardSearchResult {
  /** Documents matching the query (exact count; with distinct, one per distinct value). */
  candidates: number;
  hits: ShardHit[];
  /** The matching documents (what facet counts are computed on). */
  universe: RoaringBitmap32;
  /**
   * Which entries of the hit scores come from ranking rules (true) rather than sort criteria (false);
   * null when no sort rule ran. `_rankingScore` ignores sort entries, as Meilisearch's does.
   */
  rankingEntries: boolean[] | null;
  /** Meilisearch's scores of the hits (`_rankingScore`, details), made on first call: the same for every shard of one query. */
  scorePlan: () => ScorePlan;
  /** With distinct: how many keys the matching documents hold (listed when asked) and how many have none (candidates = both). */
  distinctCount?: DistinctCount;
}

export function searchShard(shard: ShardIndex, request: ShardSearchRequest): ShardSearchResult {
  const config = shard.config;
  const budget = request.budget ?? new SearchBudget(request.deadline ?? Date.now() + config.searchCutoffMs);
  const parsed = request.q ? parseQueryParts(request.q, { stopWords: config.stopWords, prefixSearch: config.prefixSearch, classify: config.analysis.classify }) : null;
  const terms = parsed?.terms ?? [];
  const placeholder = terms.length === 0;
  const restriction = request.fieldRestriction ?? null;
  // Restricted: the postings by rank, position and pair hold every field, so every document is read (the bitmapBuckets false reference).
  const ctx = new ShardSearchContext(shard, terms, budget, restriction === null && (request.bitmapBuckets ?? true), request.termDocCounts ?? undefined,
    request.wrapAccelerator, restriction, request.splits ?? null);
  // The front asks again with every worker's counts summed (shard-engine.ts answers them).
  if (request.splits?.undecided != null) {
    ctx.release();
    return { candidates: 0, hits: [], universe: new RoaringBitmap32(), rankingEntries: null, scorePlan: () => { throw new Error('A search of undecided splits has no scores.'); } };
  }
  if (restriction !== null && !placeholder) ctx.restrictTermDocs(request.restrictTo ?? null);
  const rules = reusableRulesFor({
    rankingRules: request.rankingRules ?? config.settings.rankingRules,
    placeholder,
    matchingStrategy: request.matchingStrategy,
    sort: request.sort ?? null,
    ...(request.sortOrder ? { sortOrder: request.sortOrder } : {}),
  }, ctx.scratch);
  try {
    const excluded = parsed === null ? null : negativeDocs(shard, parsed, restriction, budget);
    return rankedSearch(shard, ctx, rules, excluded === null ? request : { ...request, restrictTo: withoutDocs(shard, request.restrictTo ?? null, excluded) });
  } finally {
    ctx.release();
  }
}

function rankedSearch(shard: ShardIndex, ctx: ShardSearchContext, rules: readonly RankingRule[], request: ShardSearchRequest): ShardSearchResult {
  const terms = ctx.terms;
  const placeholder = terms.length === 0;
  const allTerms = mapPacked(terms, (_, index) => index);
  // Read-only from here on (the rules copy what they narrow): with one term it is that term's own list.
  let universe: RoaringBitmap32;
  /** The matching strategy's steps of terms kept (none for a placeholder search): the score plan's too. */
  let removalSteps: readonly (readonly number[])[] = [];
  if (placeholder) {
    universe = request.restrictTo ? RoaringBitmap32.and(shard.documents, request.restrictTo) : shard.documents.clone();
  } else {
    const steps = termRemovalSteps(ctx, allTerms, request.matchingStrategy);
    removalSteps = steps;
    const fewestTerms = steps[steps.length - 1]!;
    if (fewestTerms.length === 1) {
      universe = request.restrictTo ? RoaringBitmap32.and(ctx.termDocs(fewestTerms[0]!), request.restrictTo) : ctx.termDocs(fewestTerms[0]!);
    } else {
      // An owned bitmap (not the search's scratch ones): the result hands the universe out (facets).
      universe = docsMatchingAll(ctx, fewestTerms);
      if (request.restrictTo) universe.andInPlace(request.restrictTo);
    }
  }
  const rankingEntries = rules.some((rule) => rule instanceof SortRule)
    ? rules.flatMap((rule) => (rule instanceof SortRule ? new Array<boolean>(rule.width).fill(false) : [true]))
    : null;
  // Made only when asked (a threshold, or hits showing their score): most searches never need it.
  let plan: ScorePlan | null = null;
  const scorePlan = (): ScorePlan => (plan ??= scorePlanOf(shard, rules, terms, request.matchingStrategy, removalSteps));
  const threshold = request.rankingScoreThreshold ?? null;
  const floorOf = (): ScoreFloor | undefined => (threshold === null || !scorePlan().hasRankingRules ? undefined
    : { below: (score) => scorePlan().globalScore(score) < threshold, reached: false });
  const distinct = request.distinct;
  if (!distinct) {
    const floor = floorOf();
    const hits = bucketSort(ctx, rules, universe, allTerms, request.hitsWanted, floor);
    // The sort reached the threshold: the hits are all the documents above it (facets count them alone).
    if (floor?.reached) return { candidates: hits.length, hits, universe: bitmapOf(hits), rankingEntries, scorePlan };
    return { candidates: universe.size, hits, universe, rankingEntries, scorePlan };
  }
  // Duplicates are dropped after ranking, so rank more until enough distinct hits (or the end).
  let wanted = Math.max(1, request.hitsWanted);
  let hits: ShardHit[];
  let floor: ScoreFloor | undefined;
  let ranked: ShardHit[];
  for (;;) {
    floor = floorOf();
    ranked = bucketSort(ctx, rules, universe, allTerms, wanted, floor);
    hits = keepFirstPerKey(ranked.map((hit) => ({ ...hit, distinctKey: distinct.keyOf(hit.docId) })), (hit) => hit.distinctKey, request.hitsWanted);
    if (hits.length >= request.hitsWanted || ranked.length < wanted) break;
    wanted *= 4;
  }
  const counted = floor?.reached ? bitmapOf(ranked) : universe;
  const distinctCount = distinct.count(counted, ctx.searchBudget, request.listDistinctKeys === true, request.distinctCountCap ?? Infinity);
  return { candidates: distinctCount.keyCount + distinctCount.withoutKey, hits, universe: counted, distinctCount, rankingEntries, scorePlan };
}

function bitmapOf(hits: readonly ShardHit[]): RoaringBitmap32 {
  const ids = new Uint32Array(hits.length);
  for (let k = 0; k < hits.length; k++) ids[k] = hits[k]!.docId;
  return new RoaringBitmap32(ids);
}

/** The plan turning this search's hit scores into Meilisearch's (score-details.ts). */
function scorePlanOf(shard: ShardIndex, rules: readonly RankingRule[], terms: readonly QueryTerm[], matchingStrategy: MatchingStrategyName,
  removalSteps: readonly (readonly number[])[]): ScorePlan {
  const config = shard.config;
  const entryNames = rules.flatMap((rule): (string | null)[] => {
    if (!(rule instanceof SortRule)) return [rule.name];
    const names: (string | null)[] = new Array<string | null>(rule.width).fill(null);
    names[0] = rule.name.startsWith('sort:') ? rule.name.slice('sort:'.length) : rule.name;
    return names;
  });
  const searchable = config.settings.searchableAttributes;
  return new ScorePlan({
    entryNames, terms, matchingStrategy,
    removalSteps,
    typoBudgets: terms.map((term) => (term.kind === 'word' ? typoBudget(term.word, config.typoPolicy) : 0)),
    maxAttributeWeight: searchable.includes('*') ? 0 : Math.max(0, searchable.length - 1),
  });
}

/** A term's n-gram alternatives, and the key naming where they came from (withNgrams). */
interface NgramAlternatives {
  alternatives: TermAlternative[];
  key: string;
}

/** Longest run of query words concatenated into one (milli's 2- and 3-grams). */
const MAX_NGRAM_WORDS = 3;

/**
 * milli's n-grams: 2 or 3 query words in a row (soft separators only, no phrase) also match their
 * concatenation (with its prefix, typo budget minus one per extra word, and synonyms), so a document
 * holding `sunflower` matches `sun flower` whole. Its typo cost is the word count plus its typos
 * (milli's typo graph): one per word, the first word carrying the concatenation's typos. term -> alternatives.
 */
function ngramAlternatives(shard: ShardIndex, terms: readonly QueryTerm[]): Map<number, NgramAlternatives> {
  const out = new Map<number, NgramAlternatives>();
  for (let first = 0; first + 1 < terms.length; first++) {
    for (let count = 2; count <= MAX_NGRAM_WORDS && first + count <= terms.length; count++) {
      const run = terms.slice(first, first + count);
      if (run.some((term, k) => term.kind !== 'word' || (k > 0 && term.position !== run[k - 1]!.position + 1))) break;
      const words = mapPacked(run, (term) => (term as WordTerm).word);
      const joined = words.join('');
      const last = run[count - 1] as WordTerm;
      const budget = Math.max(0, typoBudget(joined, shard.config.typoPolicy) - (count - 1));
      // Without the concatenation's own split: milli drops it when it is the run's words, which it
      // nearly always is, and finding it verifies documents (a third of an n-gram's cost).
      // Most n-grams are no word of the shard: proved without walking the lexicon (near-prefix-filter.ts).
      if (!shard.mayDeriveSome(joined, budget)) continue;
      const derivations = shard.derive(joined, last.isPrefix, budget, [], false);
      if (derivations.docs.isEmpty) continue;
      // What the terms get from this n-gram follows from its derivation object and whether the term starts it.
      const id = shard.caches.derivationId(derivations);
      for (let term = first; term < first + count; term++) {
        const entry = out.get(term) ?? { alternatives: [], key: '' };
        entry.key += term === first ? `${id}f,` : `${id},`;
        out.set(term, entry);
      }
      for (let typos = 0; typos < derivations.docsByTypo.length; typos++) {
        const docs = derivations.docsByTypo[typos]!;
        if (docs.isEmpty) continue;
        const wordIds = mapPacked(derivations.words.filter((word) => word.typos === typos), (word) => word.wordId);
        for (let term = first; term < first + count; term++) {
          out.get(term)!.alternatives.push({ wordIds, docs, typos: Math.min(2, term === first ? 1 + typos : 1) });
        }
      }
    }
  }
  return out;
}

/** [term]: the documents each term of `q` matches in the shard (what matchingStrategy frequency weighs). */
export function shardTermDocCounts(shard: ShardIndex, q: string, budget: SearchBudget, restriction: FieldRestriction | null = null,
  splits: SplitDecider | null = null): number[] {
  const config = shard.config;
  const terms = parseQueryParts(q, { stopWords: config.stopWords, prefixSearch: config.prefixSearch, classify: config.analysis.classify }).terms;
  const ctx = new ShardSearchContext(shard, terms, budget, restriction === null, undefined, undefined, restriction, splits);
  try {
    if (restriction !== null) ctx.restrictTermDocs(null);
    return terms.map((_, term) => ctx.termDocs(term).size);
  } finally {
    ctx.release();
  }
}

/**
 * The documents of the query's negative words (the exact word, in plain and typo-disabled spelling:
 * milli's word_docids, no typo, prefix or synonym) and phrases; null when it has none. Reading
 * documents (a restriction's fields, a phrase's positions) stops at the deadline: the documents not
 * read yet stay excluded, so a cut search answers only proven matches, as a cut filter.
 */
function negativeDocs(shard: ShardIndex, parsed: ParsedQuery, restriction: FieldRestriction | null, budget: SearchBudget): RoaringBitmap32 | null {
  if (parsed.negativeWords.length === 0 && parsed.negativePhrases.length === 0) return null;
  const vocabulary = shard.vocabulary;
  const lists: RoaringBitmap32[] = [];
  const wordIds = new Set<number>();
  for (const word of parsed.negativeWords) {
    for (const spelling of [word, exactAttributeKey(word)]) {
      const id = vocabulary.idOf(spelling);
      if (id !== undefined) {
        lists.push(vocabulary.docs(id));
        wordIds.add(id);
      }
    }
  }
  let excluded = RoaringBitmap32.orMany(lists);
  // attributesToSearchOn: a negative word excludes the documents holding it in the fields searched only (milli's restricted word_docids).
  if (restriction !== null && !excluded.isEmpty) {
    const held: number[] = [];
    let read = 0;
    let cutAt = -1;
    for (const docId of excluded) {
      if ((++read & 255) === 0 && budget.passed()) {
        cutAt = docId;
        break;
      }
      if (restriction.holdsWord(shard.forward, docId, wordIds)) held.push(docId);
    }
    const kept = new RoaringBitmap32(held);
    if (cutAt >= 0) kept.orInPlace(unreadFrom(excluded, cutAt));
    excluded = kept;
  }
  for (const words of parsed.negativePhrases) {
    const spellings = [(word: string) => word];
    if (shard.config.exactAttributes.length > 0) spellings.push(exactAttributeKey);
    for (const spell of spellings) phraseDocs(shard, words.map((word) => (word === null ? null : vocabulary.idOf(spell(word)) ?? -1)), excluded, restriction, budget, true);
  }
  return excluded;
}

/** The documents of `docs` from `docId` on (those a loop cut at `docId` has not read). */
function unreadFrom(docs: RoaringBitmap32, docId: number): RoaringBitmap32 {
  const unread = docs.clone();
  unread.removeRange(0, docId);
  return unread;
}

/** The documents a search may match once the excluded ones are taken out: an owned bitmap. */
function withoutDocs(shard: ShardIndex, restrictTo: RoaringBitmap32 | null, excluded: RoaringBitmap32): RoaringBitmap32 {
  return RoaringBitmap32.andNot(restrictTo ?? shard.documents, excluded);
}

/**
 * Adds to `into` the documents holding the words (ids; null: any word, -1: a word the shard lacks) in a
 * row within one field. Past the deadline the candidates not read yet are added too when `keepUnread`
 * (a negative phrase: excluded unless proven absent), else left out.
 */
function phraseDocs(shard: ShardIndex, wordIds: readonly (number | null)[], into: RoaringBitmap32, restriction: FieldRestriction | null = null,
  budget: SearchBudget | null = null, keepUnread = false): void {
  if (wordIds.includes(-1)) return;
  // Each distinct word's list once (a phrase may repeat a word many times).
  const postings = [...new Set(wordIds.filter((id): id is number => id !== null))].map((id) => shard.vocabulary.docs(id));
  if (postings.length === 0) return;
  const candidates = postings.length === 1 ? postings[0]! : postings.reduce((acc, posting) => RoaringBitmap32.and(acc, posting));
  let read = 0;
  for (const docId of candidates) {
    if (budget !== null && (++read & 255) === 0 && budget.passed()) {
      if (keepUnread) into.orInPlace(unreadFrom(candidates, docId));
      return;
    }
    const holds = restriction === null ? documentHasPhrase(shard.forward, docId, wordIds as (number | null)[])
      : restriction.holdsPhrase(shard.forward, docId, wordIds as (number | null)[]);
    if (holds) into.add(docId);
  }
}

/**
 * [key] for every key below the postings' limit (the length tells which keys are known): the
 * documents holding a derivation with that key, and those where a phrase of the term (a split, a
 * multi-word synonym) starts at a token with that key, read from the forward index (the postings
 * hold single words only). Each key's union is made when first read (keyed-lists.ts), unless
 * `makeAll` (ShardIndex.lazyKeyUnions false).
 */
function unionByKey(shard: ShardIndex, postings: TokenKeyPostings, tokenKey: TokenKey, derivations: TermDerivations, makeAll: boolean): KeyedLists {
  const made = (derivations.owned ??= []);
  const wordIds = mapPacked(derivations.words, (word) => word.wordId);
  const phrases = derivations.phrases;
  let added: number[][] | undefined;
  if (phrases !== undefined && phrases.length > 0) {
    added = [];
    const forward = shard.forward;
    const data = forward.arena;
    for (const phrase of phrases) {
      for (const docId of phrase.docs) {
        const offset = forward.offsetOf(docId);
        if (offset < 0) continue;
        for (const start of phraseStarts(data, offset, phrase.wordIds as number[])) {
          const key = tokenKey(data, offset, start);
          if (key < postings.limit) (added[key] ??= []).push(docId);
        }
      }
    }
  }
  const kept = keptPrefixLists(shard, postings, derivations);
  if (kept !== undefined) return added === undefined ? kept : mapPacked(kept, (list, key) => withDocuments(list, added[key], made));
  const byKey = postings.keyedUnions(wordIds, postings.limit, made, added);
  return makeAll ? byKey.makeAll() : byKey;
}

/** A short prefix term's lists by key as the shard keeps them (postings/prefix-postings.ts), when it does. */
function keptPrefixLists(shard: ShardIndex, postings: TokenKeyPostings, derivations: TermDerivations): RoaringBitmap32[] | undefined {
  if (derivations.keptPrefix === undefined) return undefined;
  const kept = postings === shard.rankPostings ? shard.prefixRanks : postings === shard.positionPostings ? shard.prefixPositions : undefined;
  return kept?.listsOfTerm(derivations, postings);
}

/** `list` with the documents `added` (a new bitmap, among `made`), or itself when there are none. */
function withDocuments(list: RoaringBitmap32, added: readonly number[] | undefined, made: RoaringBitmap32[]): RoaringBitmap32 {
  if (added === undefined) return list;
  const union = RoaringBitmap32.or(list, new RoaringBitmap32(added));
  made.push(union);
  return union;
}

/** Kept in the search's scratch (SearchScratch): word-membership sets, and profiles by term count below this. */
const MAX_SPARE_WORD_SETS = 16;
const MAX_SPARE_PROFILE_TERMS = 64;

/** The ids of every derivation, memoized on them (the same array while they stay cached). */
function wordIdsOf(derivations: TermDerivations): readonly number[] {
  return (derivations.wordIds ??= mapPacked(derivations.words, (word) => word.wordId));
}

/** The ids of the exact derivations (the word itself, in plain and typo-disabled spelling), memoized on them. */
function exactWordIds(derivations: TermDerivations): readonly number[] {
  return (derivations.exactWordIds ??= mapPacked(derivations.words.filter((word) => word.exact), (word) => word.wordId));
}

class ShardSearchContext implements SearchContext, SearchAccelerator {
  /**
   * See SearchContext.accelerator: this context's own shortcuts; CANNOT_TELL with bitmapBuckets false
   * (the reference path); wrapped by the request's wrapAccelerator (tests).
   */
  readonly accelerator: SearchAccelerator;
  private readonly docs: RoaringBitmap32[] = [];
  private readonly docsByTypo: RoaringBitmap32[][] = [];
  /** Per word term, its derivations (their rank unions are memoized on them); undefined for phrases. */
  private readonly derivations: (TermDerivations | undefined)[] = [];
  /**
   * Which terms each word stands for, made on the first document read: many searches settle from
   * bitmaps alone, and a short prefix adds thousands of words.
   */
  private wordLookup: WordLookup | null = null;
  /** The profile read documents fill, made on the first document read (many searches settle from bitmaps alone). */
  private scratchProfile: DocMatchProfile | null = null;
  /** The profile the accelerator's own reads fill (phrase documents of a pair lookup), made on first use. */
  private acceleratorProfile: DocMatchProfile | null = null;
  private readonly phrases: PhraseOfTerm[] = [];
  private readonly wordSets: Uint8Array[] = [];
  /** Per pair of terms, what its pair lookups gather whatever the universe (see PairLookupMemo). */
  private readonly pairMemos = new Map<number, PairLookupMemo>();
  /**
   * [left * terms + right]: the costs (costNote) of the documents read in this search with the pair's
   * proximity cost from KNOWN_COST_MIN on, added to the pair's shared memo at the end (notePairCost).
   */
  private pairCostNotes: (number[] | undefined)[] | null = null;
  /** The arena offsets of the last profilesOf (from the scratch's offsets, given back by release()). */
  private offsets: Int32Array | null = null;
  /** postingsStale() answered false once in this search. */
  private postingsFresh = false;
  readonly proximityByAttribute: boolean;
  /** The thread's search scratch while this search holds it (taken on first use, given back by release()). */
  private lentScratch: SearchScratch | null = null;

  constructor(private readonly shard: ShardIndex, readonly terms: readonly QueryTerm[], readonly searchBudget: SearchBudget,
    bitmapBuckets: boolean, readonly termDocCounts?: readonly number[], wrapAccelerator?: (accelerator: SearchAccelerator) => SearchAccelerator,
    private readonly restriction: FieldRestriction | null = null,
    private readonly splits: SplitDecider | null = null) {
    this.accelerator = !bitmapBuckets ? CANNOT_TELL : wrapAccelerator !== undefined ? wrapAccelerator(this) : this;
    this.proximityByAttribute = shard.config.settings.proximityPrecision === 'byAttribute';
    const keyRuns = multiWordSynonyms(terms, shard.config.synonyms);
    const ngrams = ngramAlternatives(shard, terms);
    terms.forEach((term, index) => (term.kind === 'word' ? this.matchWord(index, term.word, term.isPrefix, keyRuns.get(index), ngrams.get(index))
      : this.matchPhrase(index, term.words)));
  }

  termDocs(term: number): RoaringBitmap32 {
    return this.docs[term]!;
  }

  /**
   * attributesToSearchOn: each term's documents (and by best typo count) narrowed to those holding it
   * in a field the search reads, from the restricted profile of every document holding some term
   * (within `limit`, the filter's documents). Past the deadline the documents not read yet are left
   * out (proven matches only, as a cut filter).
   */
  restrictTermDocs(limit: RoaringBitmap32 | null): void {
    const termCount = this.terms.length;
    const all = RoaringBitmap32.orMany(this.docs);
    if (limit !== null) all.andInPlace(limit);
    const byTypo: number[][][] = mapPacked(this.terms, () => [[], [], []]);
    let read = 0;
    for (const docId of all) {
      if ((++read & 255) === 0 && Date.now() > this.deadline) break;
      const profile = this.profile(docId);
      for (let term = 0; term < termCount; term++) {
        const count = profile.counts[term]!;
        if (count === 0) continue;
        const list = profile.occurrences[term]!;
        let best = 2;
        for (let k = 0; k < count && best > 0; k++) best = Math.min(best, occurrenceTypos(list[k]!));
        byTypo[term]![best]!.push(docId);
      }
    }
    for (let term = 0; term < termCount; term++) {
      const levels = mapPacked(byTypo[term]!, (ids) => new RoaringBitmap32(ids));
      this.docsByTypo[term] = levels;
      this.docs[term] = RoaringBitmap32.orMany(levels);
    }
  }

  /**
   * Rules read the deadline exactly where they may stop refining (every few hundred documents, each
   * bucket): the search's yield points, where searches that arrived meanwhile may run (search-budget.ts).
   */
  get deadline(): number {
    const budget = this.searchBudget;
    budget.yieldPoint();
    if (Date.now() > budget.deadline) budget.cutShort = true;
    return budget.deadline;
  }

  /** See SearchContext.scratchBitmaps: valid until release(), so nothing that outlives the search may keep one. */
  get scratchBitmaps(): ScratchBitmaps {
    return this.scratch.bitmaps;
  }

  /** See SearchContext.rankingMemos: the shard's (ShardCaches). */
  get rankingMemos(): RankingMemos {
    return this.shard.caches.rankingMemos;
  }

  /** See SearchContext.scratch: this search's alone until release(). */
  get scratch(): SearchScratch {
    return (this.lentScratch ??= takeSearchScratch());
  }

  termDocsByTypo(term: number): readonly RoaringBitmap32[] {
    return this.docsByTypo[term]!;
  }

  termDocsByRank(term: number): KeyedLists | null {
    const derivations = this.derivations[term];
    if (derivations === undefined) return null;
    // Memoized on the derivations, which the shard caches between writes (as long as the postings hold).
    return (derivations.docsByRank ??= this.keyedUnionsOf(derivations, true));
  }

  /** A term's rank (`rank`) or position lists; an n-gram combination's from its base's (memoized on the base) and its extra words'. */
  private keyedUnionsOf(derivations: TermDerivations, rank: boolean): KeyedLists {
    const shard = this.shard;
    const postings = rank ? shard.rankPostings : shard.positionPostings;
    const tokenKey = rank ? fieldRankKey : positionKey;
    const ngramOf = derivations.ngramOf;
    if (ngramOf === undefined) return unionByKey(shard, postings, tokenKey, derivations, !shard.lazyKeyUnions);
    const base = ngramOf.base;
    const baseLists = rank ? (base.docsByRank ??= this.keyedUnionsOf(base, true)) : (base.docsByPosition ??= this.keyedUnionsOf(base, false));
    const made = (derivations.owned ??= []);
    const extraLists = postings.keyedUnions(ngramOf.extraWordIds, postings.limit, made);
    const lists = new LazyLists(postings.limit, (key) => {
      const fromBase = baseLists.at(key) ?? NO_DOCUMENTS;
      const extra = extraLists.at(key)!;
      if (extra.isEmpty || extra.isSubset(fromBase)) return fromBase;
      if (fromBase.isEmpty) return extra;
      const union = RoaringBitmap32.or(fromBase, extra);
      made.push(union);
      return union;
    });
    return shard.lazyKeyUnions ? lists : lists.makeAll();
  }

  allFieldRanksListed(): boolean {
    // With searchableAttributes ["*"] a field's rank is its place in its document: bounded by the documents only.
    return this.shard.forward.maxFieldRank < this.shard.rankPostings.limit;
  }

  termDocsByPosition(term: number): KeyedLists | null {
    const derivations = this.derivations[term];
    if (derivations === undefined) return null;
    return (derivations.docsByPosition ??= this.keyedUnionsOf(derivations, false));
  }

  termExactDocs(term: number): RoaringBitmap32 | null {
    const derivations = this.derivations[term];
    if (derivations === undefined) return null;
    // A lone exact word's own list as is (read-only), as the rank unions do: no copy in the cache.
    const exactIds = exactWordIds(derivations);
    return (derivations.exactDocs ??= exactIds.length === 1 ? this.shard.vocabulary.docs(exactIds[0]!)
      : ownBitmap(derivations, RoaringBitmap32.orMany(mapPacked(exactIds, (wordId) => this.shard.vocabulary.docs(wordId)))));
  }

  termExactDocsAtPosition(term: number, position: number): RoaringBitmap32 | null {
    const derivations = this.derivations[term];
    const postings = this.shard.positionPostings;
    if (derivations === undefined || position >= postings.limit) return null;
    const byPosition = (derivations.exactDocsByPosition ??= postings.unionByKey(exactWordIds(derivations), (derivations.owned ??= [])));
    return byPosition[position] ?? NO_DOCUMENTS;
  }

  termExactSoleFieldDocs(term: number, universe: RoaringBitmap32): RoaringBitmap32 | null {
    const derivations = this.derivations[term];
    if (derivations === undefined) return null;
    return this.shard.soleWordFields.docsOf(exactWordIds(derivations), universe, this.scratchBitmaps);
  }

  termsExactFieldStartDocs(first: number, second: number, universe: RoaringBitmap32): FieldStartDocs | null {
    const firstDerivations = this.derivations[first];
    const secondDerivations = this.derivations[second];
    if (firstDerivations === undefined || secondDerivations === undefined) return null;
    return this.shard.fieldStartPairs.docsOf(exactWordIds(firstDerivations), exactWordIds(secondDerivations), universe, this.scratchBitmaps);
  }

  termPairDocsWithin(left: number, right: number, cost: 1 | 2, universe: RoaringBitmap32): RoaringBitmap32 | null {
    const found = this.pairLookup(left, right, cost, (leftSide, rightSide, memo) => this.shard.nearPairs.pairDocsWithin(cost, leftSide, rightSide, universe, memo,
      this.scratchBitmaps));
    if (found === null) return null;
    // The tables hold single words: the documents where a phrase of a term (a split...) may be closer are read.
    const toRead = this.phraseDocsOfPair(left, right, universe, found);
    if (toRead === null) return found;
    const leftLength = positionCount(this.terms[left]!);
    for (const docId of toRead) {
      const profile = this.accelerationProfile(docId);
      if (pairCost(profile.occurrences[left]!, profile.counts[left]!, leftLength, profile.occurrences[right]!, profile.counts[right]!) <= cost) found.add(docId);
    }
    return found;
  }

  termPairDocsSettled(left: number, right: number, cost: 1 | 2, universe: RoaringBitmap32): { within: RoaringBitmap32; unsettled: RoaringBitmap32 } | null {
    const settled = this.pairLookup(left, right, cost, (leftSide, rightSide, memo) => this.shard.nearPairs.pairDocsSettled(cost, leftSide, rightSide, universe, memo,
      this.scratchBitmaps));
    if (settled === null) return null;
    // A phrase of a term (a split...) can only bring a pair closer: its documents not within are unsettled.
    const unsettled = this.phraseDocsOfPair(left, right, universe, settled.within);
    if (unsettled !== null) settled.unsettled.orInPlace(unsettled);
    return settled;
  }

  /**
   * The documents of `universe` not in `known` holding a phrase of either term (PhraseAlternative),
   * whose pair cost the single-word tables cannot tell; null when there is none (a new bitmap otherwise).
   */
  private phraseDocsOfPair(left: number, right: number, universe: RoaringBitmap32, known: RoaringBitmap32): RoaringBitmap32 | null {
    const leftDocs = this.termPhraseDocs(left);
    const rightDocs = this.termPhraseDocs(right);
    if (leftDocs.isEmpty && rightDocs.isEmpty) return null;
    const docs = leftDocs.isEmpty ? RoaringBitmap32.and(rightDocs, universe) : rightDocs.isEmpty ? RoaringBitmap32.and(leftDocs, universe)
      : RoaringBitmap32.and(RoaringBitmap32.or(leftDocs, rightDocs), universe);
    docs.andNotInPlace(known);
    return docs.isEmpty ? null : docs;
  }

  /** The documents of the term's phrases (PhraseAlternative), memoized on its derivations. */
  private termPhraseDocs(term: number): RoaringBitmap32 {
    const derivations = this.derivations[term];
    if (derivations === undefined) return NO_DOCUMENTS;
    const phrases = derivations.phrases;
    return (derivations.phraseDocs ??= phrases === undefined || phrases.length === 0 ? NO_DOCUMENTS
      : phrases.length === 1 ? phrases[0]!.docs : ownBitmap(derivations, RoaringBitmap32.orMany(phrases.map((phrase) => phrase.docs))));
  }

  /** A profile for the accelerator's own reads (not the rules' scratch profile, which a caller may hold). */
  private accelerationProfile(docId: number): DocMatchProfile {
    const profile = (this.acceleratorProfile ??= emptyProfile(this.terms.length));
    return buildProfile(this.shard.forward, docId, this.words(), this.phrases, profile);
  }

  termPairKnownCosts(left: number, right: number): KnownPairCosts | null {
    return this.pairMemos.get(left * 1024 + right)?.knownCosts ?? null;
  }

  notePairCost(left: number, right: number, docId: number, cost: number): void {
    const termCount = this.terms.length;
    const notes = (this.pairCostNotes ??= new Array<number[] | undefined>(termCount * termCount));
    const key = left * termCount + right;
    const pairNotes = notes[key];
    if (pairNotes === undefined) notes[key] = [costNote(docId, cost)];
    else pairNotes.push(costNote(docId, cost));
  }

  /**
   * The pair costs noted in this search, into the pairs' shared memos (of the pairs this search looked
   * up: those whose rest classes ask for them).
   */
  private keepNotedCosts(): void {
    const notes = this.pairCostNotes;
    if (notes === null) return;
    this.pairCostNotes = null;
    const termCount = this.terms.length;
    for (let key = 0; key < notes.length; key++) {
      const pairNotes = notes[key];
      if (pairNotes === undefined) continue;
      const left = Math.floor(key / termCount);
      const right = key - left * termCount;
      const memo = this.pairMemos.get(left * 1024 + right);
      if (memo === undefined) continue;
      const known = withNotedCosts(memo.knownCosts, pairNotes);
      if (known === memo.knownCosts) continue;
      memo.knownCosts = known;
      remeasureSharedPairMemo(this.shard, this.derivations[left]!, this.derivations[right]!, memo);
    }
  }

  /** A lookup of the pair through its memo; a shared memo that gathered a cost is counted anew (its bitmaps are its size). */
  private pairLookup<T>(left: number, right: number, cost: 1 | 2, lookup: (leftSide: PairSide, rightSide: PairSide, memo: PairLookupMemo) => T): T | null {
    const leftSide = this.pairSide(left);
    const rightSide = this.pairSide(right);
    if (leftSide === null || rightSide === null) return null;
    const memo = this.pairMemo(left, right);
    const before = memo.byCost[cost];
    const found = lookup(leftSide, rightSide, memo);
    if (memo.byCost[cost] !== before) remeasureSharedPairMemo(this.shard, this.derivations[left]!, this.derivations[right]!, memo);
    return found;
  }

  /**
   * The memo of the pair's lookups: the shard's, shared by every search with these two terms' derivations
   * (shared-pair-memos.ts; a term with query-bound synonyms has derivations of its own each search).
   */
  private pairMemo(left: number, right: number): PairLookupMemo {
    // Terms number at most a few dozen: one key per ordered pair.
    const key = left * 1024 + right;
    let memo = this.pairMemos.get(key);
    if (memo === undefined) {
      // Built first if due: the shared memo is keyed by the tables' build generation, and one made
      // before the build (then filled from the new tables) would be left under the old one.
      this.shard.nearPairs.buildIfStale();
      memo = sharedPairMemo(this.shard, this.derivations[left]!, this.derivations[right]!);
      this.pairMemos.set(key, memo);
    }
    return memo;
  }

  private pairSide(term: number): PairSide | null {
    const derivations = this.derivations[term];
    if (derivations === undefined) return null;
    const queryTerm = this.terms[term]!;
    const side: PairSide = { wordIds: wordIdsOf(derivations), set: this.termWordSet(term) };
    // A prefix term derives every word starting with its word (derivations.ts): a prefix pair table may stand for its rare ones.
    if (queryTerm.kind === 'word' && queryTerm.isPrefix) side.prefix = queryTerm.word;
    const ngramOf = derivations.ngramOf;
    if (ngramOf !== undefined) side.parts = { base: wordIdsOf(ngramOf.base), extra: ngramOf.extraWordIds };
    return side;
  }

  /** The words standing for the term, as a membership array over the vocabulary (made on first use). */
  private termWordSet(term: number): Uint8Array {
    let set = this.wordSets[term];
    if (set === undefined) {
      // Vocabulary-sized, so taken from the thread's pool (all zero) rather than allocated per query.
      const size = this.shard.vocabulary.size;
      set = this.scratch.wordSets.pop() ?? new Uint8Array(size);
      if (set.length < size) set = new Uint8Array(Math.max(size, set.length * 2));
      const wordIds = this.lookupArraysOf(term).wordIds;
      for (let k = 0; k < wordIds.length; k++) set[wordIds[k]!] = 1;
      this.wordSets[term] = set;
    }
    return set;
  }

  /** The end of the search: shared scratch goes back to the thread. */
  release(): void {
    this.keepNotedCosts();
    const scratch = this.lentScratch;
    if (this.offsets !== null && scratch !== null && scratch.offsets.length < 4) scratch.offsets.push(this.offsets);
    this.offsets = null;
    this.wordLookup?.release();
    this.wordLookup = null;
    if (this.scratchProfile !== null && scratch !== null && this.terms.length < MAX_SPARE_PROFILE_TERMS) scratch.profiles[this.terms.length] ??= this.scratchProfile;
    this.scratchProfile = null;
    this.wordSets.forEach((set, term) => {
      const wordIds = this.lookupArraysOf(term).wordIds;
      for (let k = 0; k < wordIds.length; k++) set[wordIds[k]!] = 0;
      if (scratch !== null && scratch.wordSets.length < MAX_SPARE_WORD_SETS) scratch.wordSets.push(set);
    });
    this.wordSets.length = 0;
    if (scratch !== null) giveBackSearchScratch(scratch);
    this.lentScratch = null;
  }

  postingsStale(): boolean {
    // Once fresh, fresh until the search ends (nothing writes to the shard meanwhile; a split may
    // only build what was stale): asked at every split, and each answer reads three builds' states.
    if (this.postingsFresh) return false;
    const shard = this.shard;
    const stale = shard.rankPostings.needsRebuild || shard.positionPostings.needsRebuild || shard.soleWordFields.needsBuild;
    this.postingsFresh = !stale;
    return stale;
  }

  /** Not cached, and reused: valid until the next call (the bucket sort reads each document once per run of scoring rules). */
  profile(docId: number): DocMatchProfile {
    const profile = buildProfile(this.shard.forward, docId, this.words(), this.phrases, this.profileScratch());
    return this.restriction === null ? profile : this.restriction.restrictProfile(profile);
  }

  /** The reader it returns is valid until the next call (its offsets are the thread's, reused). */
  profilesOf(docIds: Uint32Array): (index: number) => DocMatchProfile {
    const offsets = documentOffsets(this.shard.forward, docIds, this.offsets ?? this.scratch.offsets.pop() ?? new Int32Array(1024));
    this.offsets = offsets;
    const data = this.shard.forward.arena;
    const words = this.words();
    const scratch = this.profileScratch();
    const restriction = this.restriction;
    // Entries are loaded ahead in chunks (touchEntries): all at once, a long run's would leave the caches before being read.
    let touchedTo = 0;
    return (index) => {
      if (index >= touchedTo) {
        touchedTo = Math.min(docIds.length, index + TOUCH_AHEAD);
        this.scratch.touchSink += touchEntries(data, offsets, index, touchedTo);
      }
      const profile = buildProfileAt(data, offsets[index]!, docIds[index]!, words, this.phrases, scratch);
      return restriction === null ? profile : restriction.restrictProfile(profile);
    };
  }

  private profileScratch(): DocMatchProfile {
    if (this.scratchProfile === null) {
      const termCount = this.terms.length;
      const profiles = this.scratch.profiles;
      this.scratchProfile = profiles[termCount] ?? emptyProfile(termCount);
      profiles[termCount] = undefined;
    }
    return this.scratchProfile;
  }

  private words(): WordLookup {
    if (this.wordLookup === null) {
      const lookup = new WordLookup(this.terms.length === 0 ? 0 : this.shard.vocabulary.size, this.scratch.wordLookup);
      // In term order, as the terms were matched: a word standing for several terms lists them in that order.
      this.derivations.forEach((derivations, term) => {
        if (derivations === undefined) return;
        const arrays = this.lookupArraysOf(term);
        lookup.addTerm(arrays.wordIds, arrays.flags, term);
      });
      this.wordLookup = lookup;
    }
    return this.wordLookup;
  }

  /** The word term's derivations as typed arrays, memoized on them (cached by the shard between writes): a short prefix has thousands. */
  private lookupArraysOf(term: number): { wordIds: Int32Array; flags: Uint8Array } {
    const derivations = this.derivations[term]!;
    return (derivations.lookupArrays ??= lookupArrays(derivations.words));
  }

  fieldWordCount(docId: number, field: number): number {
    return fieldWordCount(this.shard.forward, docId, field);
  }

  private matchWord(term: number, word: string, isPrefix: boolean, keyAlternatives?: readonly (readonly string[])[], ngrams?: NgramAlternatives): void {
    let derivations = this.shard.derive(word, isPrefix, typoBudget(word, this.shard.config.typoPolicy), keyAlternatives,
      this.splits === null ? true : { at: this.splits.splitOf(word), found: this.splits.foundIn(word, this.shard) });
    if (ngrams !== undefined) {
      derivations = this.shard.memoNgramDerivations ? withNgrams(derivations, ngrams.alternatives, ngrams.key)
        : withAlternatives(derivations, ngrams.alternatives);
    }
    for (const phrase of derivations.phrases ?? []) {
      this.phrases.push({ term, wordIds: phrase.wordIds as number[], alternative: { docs: phrase.docs, typos: phrase.typos } });
    }
    this.derivations[term] = derivations;
    this.docs[term] = derivations.docs;
    this.docsByTypo[term] = derivations.docsByTypo;
  }

  private matchPhrase(term: number, words: readonly (string | null)[]): void {
    // A phrase lies within one field: all its words are plain, or all carry the typo-disabled mark.
    const spellings = [(word: string) => word];
    if (this.shard.config.exactAttributes.length > 0) spellings.push(exactAttributeKey);
    const docs = new RoaringBitmap32();
    for (const spell of spellings) this.matchPhraseSpelling(term, words.map((word) => (word === null ? null : spell(word))), docs);
    this.docs[term] = docs;
    this.docsByTypo[term] = [docs, NO_DOCUMENTS, NO_DOCUMENTS];
  }

  private matchPhraseSpelling(term: number, words: readonly (string | null)[], into: RoaringBitmap32): void {
    const vocabulary = this.shard.vocabulary;
    const wordIds = mapPacked(words, (word) => (word === null ? null : vocabulary.idOf(word) ?? -1));
    if (wordIds.includes(-1)) return;
    phraseDocs(this.shard, wordIds, into, null, this.searchBudget);
    this.phrases.push({ term, wordIds });
  }
}
