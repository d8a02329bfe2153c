// What ranking rules may ask of the search in progress. Implemented per shard (src/shard/search/shard-search.ts).
import type roaring from 'roaring';
import type { QueryTerm } from '../query/query-term.js';
import type { DocMatchProfile } from './match-profile.js';
import { OWNED_BITMAPS, type BitmapSource } from './scratch-bitmaps.js';
import { SearchScratch } from './search-scratch.js';
import { RankingMemos } from './ranking-memos.js';
import type { KeyedLists } from './keyed-lists.js';

export interface SearchContext {
  readonly terms: readonly QueryTerm[];
  /** Milliseconds timestamp; past it, rules stop refining (see RankingRule). */
  readonly deadline: number;
  /**
   * Optional: where the search's short-lived bitmaps come from (parts, layers, buckets, lookups within
   * a universe): lent until the search ends (scratch-bitmaps.ts), so never kept in anything that
   * outlives it. Absent: plain bitmaps.
   */
  readonly scratchBitmaps?: BitmapSource;
  /**
   * Optional: the search's reused buffers (search-scratch.ts), this search's alone until it ends.
   * Absent (tests' contexts): searchScratchOf gives a new one per call.
   */
  readonly scratch?: SearchScratch;
  /** Optional: the shard's memos of the rules (ranking-memos.ts). Absent (tests' contexts): nothing is kept. */
  readonly rankingMemos?: RankingMemos;
  /**
   * Optional: [term] = the documents the term matches in the whole index (every shard), for
   * matchingStrategy frequency; absent: this shard's (termDocs sizes).
   */
  readonly termDocCounts?: readonly number[];
  /**
   * Optional: the shard's shortcuts (SearchAccelerator). Absent: every one answers "cannot tell"
   * (CANNOT_TELL), so the rules take the reference path. Rules reach it through acceleratorOf.
   */
  readonly accelerator?: SearchAccelerator;
  /**
   * proximityPrecision `byAttribute` (milli's db_cache: every pair lookup answers the documents holding
   * both words in one field): a pair costs 1 in a same field, else the far cost; no pair table applies.
   */
  readonly proximityByAttribute?: boolean;
  /** Every document matching term `term` (any derivation). Do not mutate. */
  termDocs(term: number): roaring.RoaringBitmap32;
  /** [k]: documents whose best match of `term` has exactly k typos (disjoint). Do not mutate. */
  termDocsByTypo(term: number): readonly roaring.RoaringBitmap32[];
  /** Where each term occurs in the document; may be a reused object, valid until the next call. */
  profile(docId: number): DocMatchProfile;
  /** Number of indexed words in one field (by ordinal) of the document. */
  fieldWordCount(docId: number, field: number): number;
}

/**
 * What a shard can answer faster than the rules' reference path, which reads documents through the
 * core above (profile, fieldWordCount) and knows nothing else (Tantivy's Weight: overridable methods
 * whose defaults are the plain definition). Invariants, for every method:
 * - "Cannot tell" is always a valid answer (null; false for allFieldRanksListed and postingsStale;
 *   nothing kept for notePairCost; null for profilesOf, read profile() one by one instead), for any
 *   call and independently of the other methods' answers: the rule then takes its reference path.
 * - Any other answer is exactly what the plain definition gives (reading every document of the
 *   universe through profile()): the same documents, the same costs, so answers never depend on
 *   which shortcut answered. postingsStale changes only how much a rule reads at once, never what.
 * - Answers are read-only and may be the shard's own lists (never mutated) unless said otherwise.
 * CANNOT_TELL is the accelerator answering "cannot tell" to everything (contexts without one; the
 * shard's search with bitmapBuckets: false). Each method is held to the plain definition by
 * test/unit/engine-accelerator.test.ts (each in turn answering "cannot tell", the others not, on
 * randomized shards and queries), besides the tests named in src/shard/README.md.
 */
export interface SearchAccelerator {
  /**
   * at(rank) = documents holding the term in a field of that rank (overlapping across ranks); ranks
   * from `length` on are unknown. Null for terms without such postings (phrases). Each list may be
   * made only when first read (keyed-lists.ts): read the ranks needed, not all.
   */
  termDocsByRank(term: number): KeyedLists | null;
  /**
   * True when no field of the shard has a rank past termDocsByRank's lists (so a document in none of
   * two terms' common ranks never has them in one field).
   */
  allFieldRanksListed(): boolean;
  /** The same per position within a field (positions from the array's length on unknown). */
  termDocsByPosition(term: number): KeyedLists | null;
  /**
   * The documents of `universe` where proximity's cost of the pair (left, right) is at most `cost`
   * (1: right just after left, or one word standing for both; 2: also one word between them, or right
   * just before left). Null when the shard cannot tell without reading every document.
   */
  termPairDocsWithin(left: number, right: number, cost: 1 | 2, universe: roaring.RoaringBitmap32): roaring.RoaringBitmap32 | null;
  /**
   * Reading no document: the documents of `universe` known to have the pair within `cost`, and those
   * whose cost only reading them would tell (the others' cost is above `cost`). Null when the shard cannot tell.
   */
  termPairDocsSettled(left: number, right: number, cost: 1 | 2, universe: roaring.RoaringBitmap32): { within: roaring.RoaringBitmap32; unsettled: roaring.RoaringBitmap32 } | null;
  /**
   * The proximity costs of the pair (left, right) from KNOWN_COST_MIN on (proximity.ts) that earlier
   * searches read in documents (notePairCost; the pair tables stop at 2), ids ascending. Null when none is known.
   */
  termPairKnownCosts(left: number, right: number): KnownPairCosts | null;
  /**
   * proximity read the document and found the pair's cost (both terms one word each), from
   * KNOWN_COST_MIN on; the shard may keep it for later searches of the pair, as long as the documents stand.
   */
  notePairCost(left: number, right: number, docId: number, cost: number): void;
  /** The documents holding the term exactly (its own word, no typo, no prefix extension); null for phrases. */
  termExactDocs(term: number): roaring.RoaringBitmap32 | null;
  /** The same at one position within a field; null when the position is past the postings' limit. */
  termExactDocsAtPosition(term: number, position: number): roaring.RoaringBitmap32 | null;
  /** The documents of `universe` with a field made of one exact word of the term alone (at position 0). */
  termExactSoleFieldDocs(term: number, universe: roaring.RoaringBitmap32): roaring.RoaringBitmap32 | null;
  /**
   * The documents of `universe` with a field holding an exact word of `first` at position 0 and one
   * of `second` at position 1 (`starts`), and those of them where that field has these two words alone
   * (`alone`); null for phrases. Both are the caller's (from scratchBitmaps).
   */
  termsExactFieldStartDocs(first: number, second: number, universe: roaring.RoaringBitmap32):
    { starts: roaring.RoaringBitmap32; alone: roaring.RoaringBitmap32 } | null;
  /**
   * True while the shard's rank / position postings or sole-word fields wait for a full (re)build,
   * which a split would then make at once (score-chain.ts reads small universes instead).
   */
  postingsStale(): boolean;
  /**
   * A reader of the profiles of `docIds` by index, for reading many documents in a row (it may look
   * them all up at once, which is faster); same profiles as profile(), same reuse rule. The reader is
   * valid until the next call of profilesOf.
   */
  profilesOf(docIds: Uint32Array): ((index: number) => DocMatchProfile) | null;
}

/** Every method of SearchAccelerator (tests turn them off one by one). */
export type AcceleratorMethod = keyof SearchAccelerator;

/** The reference path's accelerator: "cannot tell" to everything. */
export const CANNOT_TELL: SearchAccelerator = Object.freeze({
  termDocsByRank: () => null,
  allFieldRanksListed: () => false,
  termDocsByPosition: () => null,
  termPairDocsWithin: () => null,
  termPairDocsSettled: () => null,
  termPairKnownCosts: () => null,
  notePairCost: () => {},
  termExactDocs: () => null,
  termExactDocsAtPosition: () => null,
  termExactSoleFieldDocs: () => null,
  termsExactFieldStartDocs: () => null,
  postingsStale: () => false,
  profilesOf: () => null,
});

export const ACCELERATOR_METHODS = Object.freeze(Object.keys(CANNOT_TELL) as AcceleratorMethod[]);

/** `accelerator` with the methods `off` answering "cannot tell" (tests hold each method to the reference path). */
export function withCannotTell(accelerator: SearchAccelerator, off: readonly AcceleratorMethod[]): SearchAccelerator {
  const out: Record<string, unknown> = {};
  for (const name of ACCELERATOR_METHODS) {
    out[name] = off.includes(name) ? CANNOT_TELL[name] : (accelerator[name] as (...args: never[]) => unknown).bind(accelerator);
  }
  return out as unknown as SearchAccelerator;
}

/** The search's accelerator (see SearchContext.accelerator). */
export function acceleratorOf(ctx: SearchContext): SearchAccelerator {
  return ctx.accelerator ?? CANNOT_TELL;
}

/** Documents (ascending ids) and the cost of a pair in each (SearchContext.termPairKnownCosts). */
export interface KnownPairCosts {
  docIds: Uint32Array;
  costs: Uint8Array;
}

/** The query terms still in play (indices into SearchContext.terms, ascending); the words rule narrows it. */
export type ActiveTerms = readonly number[];

/** The search's source of short-lived bitmaps (see SearchContext.scratchBitmaps). */
export function scratchOf(ctx: SearchContext): BitmapSource {
  return ctx.scratchBitmaps ?? OWNED_BITMAPS;
}

/** The search's scratch (see SearchContext.scratch). */
export function searchScratchOf(ctx: SearchContext): SearchScratch {
  return ctx.scratch ?? new SearchScratch();
}

/** The shard's memos of the rules (see SearchContext.rankingMemos); a new, unkept one without. */
export function rankingMemosOf(ctx: SearchContext): RankingMemos {
  return ctx.rankingMemos ?? new RankingMemos();
}
