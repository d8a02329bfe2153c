// The words of a shard that a query word stands for: itself, the words it is a prefix of (last
// query word), and its typo variants (search-semantics reference §3: a typo on the first letter
// counts as two; at most 150 one-typo and 50 two-typo words, in lexicon order, as milli caps them).
import roaring from 'roaring';
import { prefixRange, type LexiconListMemos } from './lexicon.js';
import { walkFuzzy } from './fuzzy-walk.js';
import { walkFirstLetterEdits } from './first-letter-edits.js';
import { walkCandidateRuns, type DeletionCandidates } from './deletion-index.js';
import { unionOfMany } from './bitmap-union.js';
import type { Vocabulary } from './vocabulary.js';
import type { CacheStamp, WalkedWords } from '../shard-caches.js';
import { NO_DOCUMENTS } from '../../ranking/scores/score-layers.js';
import type { KeyedLists } from '../../ranking/keyed-lists.js';
import { mapPacked } from '../../ranking/packed-arrays.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export const MAX_ONE_TYPO_WORDS = 150;
export const MAX_TWO_TYPO_WORDS = 50;

export interface WordDerivation {
  wordId: number;
  typos: number;
  /** The query word itself (not a prefix extension, not a typo): what the exactness rule rewards. */
  exact: boolean;
}

/**
 * Words in a row standing for a term (the term's word split in two, a multi-word synonym): a
 * document holds it where the words stand in a row in one field, as one occurrence at the first
 * word (never wherever one of the words is).
 */
export interface PhraseAlternative {
  wordIds: readonly number[];
  /** Its cost for the typo rule (a split 1, a synonym 0). */
  typos: number;
  /** The documents holding the words in a row. */
  docs: RoaringBitmap32;
}

export interface TermDerivations {
  words: WordDerivation[];
  /** Runs of words standing for the term (not among `words`: their words alone are no match). */
  phrases?: readonly PhraseAlternative[];
  /** Every document matching some derivation. */
  docs: RoaringBitmap32;
  /** docsByTypo[k]: documents whose best derivation has exactly k typos (disjoint, k = 0..2). */
  docsByTypo: RoaringBitmap32[];
  /** Memos of the search: [rank] / [position] = documents holding a derivation there (token-key-postings.ts). */
  docsByRank?: KeyedLists;
  docsByPosition?: KeyedLists;
  /** Memo: the documents of the phrases (their union; NO_DOCUMENTS without phrases). */
  phraseDocs?: RoaringBitmap32;
  /** Memos: documents of the exact words (exact: true), and those per position. */
  exactDocs?: RoaringBitmap32;
  exactDocsByPosition?: RoaringBitmap32[];
  wordIds?: number[];
  exactWordIds?: number[];
  /** The word's split (ShardIndex.derive) among the words, when it has one. */
  splitWordIds?: readonly number[];
  /** Memo: these derivations with the word's split (themselves when it has none). */
  withSplit?: TermDerivations;
  /**
   * Memo: these derivations with a search's n-gram alternatives (withNgrams), by the n-grams' derivation
   * objects, the last NGRAM_MEMOS combinations: lives as long as these derivations.
   */
  withNgrams?: NgramCombination[];
  /**
   * Set on such a combination: the term's own derivations and the words the n-grams added (none of the
   * base's), so unions over its words are made from the base's memoized ones plus those few words.
   */
  ngramOf?: { base: TermDerivations; extraWordIds: readonly number[] };
  /** On withSplit (maybe these derivations themselves): its split point (0: none) when it was given (ShardIndex.derive's `split.at`), not chosen by the shard. */
  splitAt?: number;
  /**
   * Set when their zero-typo level is a short prefix's kept list (postings/prefix-postings.ts) and they
   * were those `words` alone: their rank / position lists are the prefix's kept ones too (while `words`
   * still counts these derivations' words: a copy with more words, synonyms, is not).
   */
  keptPrefix?: { prefix: string; words: number };
  /** Set when the shard's cache holds them: checked against later writes before each use (shard-caches.ts). */
  cachedAt?: CacheStamp;
  /** The lexicon walk they were made from, while the shard's cache holds them (ShardIndex.cachedDerive). */
  walk?: WalkedWords;
  /** This object's number for the pair memos' keys, given by its shard's caches (ShardCaches.derivationId). */
  memoId?: number;
  /** Memo: the words as match-profile-builder.ts's WordLookup.addTerm takes them (lookupArrays). */
  lookupArrays?: { wordIds: Int32Array; flags: Uint8Array };
  /**
   * The bitmaps made for these derivations alone (unions; never a word's or a structure's own list, never
   * NO_DOCUMENTS), among the fields above: once the shard's caches let the derivations go, their native
   * memory is freed at the worker's top level in slices (ShardCaches.releaseRetired) instead of inside a
   * full collection's pause. A bitmap made here and not listed is simply left to the collector.
   */
  owned?: RoaringBitmap32[];
}

/** Notes `bitmap` (just made for `derivations` alone) among their own bitmaps (TermDerivations.owned). */
export function ownBitmap(derivations: TermDerivations, bitmap: RoaringBitmap32): RoaringBitmap32 {
  if (bitmap !== NO_DOCUMENTS) (derivations.owned ??= []).push(bitmap);
  return bitmap;
}

/**
 * Bytes the derivations hold once their memos are filled, for the shard's cache budget: bitmaps that
 * are a word's own posting list cost nothing (a lone word's derivations and memos are mostly its
 * lists); the memos (rank, position and exact unions) of several words hold about 1.5 times their
 * documents (1.35 measured on the bench's movies at 500,000 documents a shard).
 */
export function derivationsFootprint(vocabulary: Vocabulary, derivations: TermDerivations): number {
  const words = derivations.words;
  const ownLists = new Set(words.length <= 4 ? words.map((word) => vocabulary.docs(word.wordId)) : []);
  const counted = new Set<RoaringBitmap32>();
  let bytes = 256 + 32 * words.length;
  for (const docs of [derivations.docs, ...derivations.docsByTypo]) {
    if (docs === NO_DOCUMENTS || ownLists.has(docs) || counted.has(docs)) continue;
    counted.add(docs);
    bytes += 64 + docs.getSerializationSizeInBytes('portable');
  }
  if (words.length > 1) bytes += 1.5 * derivations.docs.getSerializationSizeInBytes('portable');
  return Math.ceil(bytes);
}

/**
 * Words of attributes in typoTolerance.disableOnAttributes are indexed under this mark (milli's exact
 * word docids): exact and prefix lookups try both spellings, typo walks never reach marked words (the
 * two mark characters alone are more edits than the first-letter rules allow).
 */
export const EXACT_ATTRIBUTE_MARK = '\u0001\u0001';

export function exactAttributeKey(word: string): string {
  return EXACT_ATTRIBUTE_MARK + word;
}

export function deriveWord(vocabulary: Vocabulary, word: string, isPrefix: boolean, budget: number): TermDerivations {
  return derivationsFromWords(vocabulary, word, deriveWordIds(vocabulary, word, isPrefix, budget));
}

/** [k]: ids of the words the query word stands for with k typos (the costly lexicon walks; no bitmap work). */
export function deriveWordIds(vocabulary: Vocabulary, word: string, isPrefix: boolean, budget: number): number[][] {
  const byTypo: Map<number, number>[] = [new Map(), new Map(), new Map()];
  const considerId = (id: number | undefined, typos: number) => {
    if (id === undefined || vocabulary.docs(id).isEmpty) return;
    for (let k = 0; k < typos; k++) if (byTypo[k]!.has(id)) return;
    byTypo[typos]!.set(id, typos);
  };
  considerId(vocabulary.idOf(word), 0);
  considerId(vocabulary.idOf(exactAttributeKey(word)), 0);
  const lists = vocabulary.lexicon.lists();
  if (isPrefix) {
    for (const list of lists) {
      const ids = idsOfList(vocabulary, list);
      for (const start of [word, exactAttributeKey(word)]) {
        const [from, to] = prefixRange(list, start);
        for (let k = from; k < to; k++) considerId(ids[k], 0);
      }
    }
  }
  if (budget > 0 && word.length > 0) collectTypos(vocabulary, lists, word, isPrefix, budget, byTypo, considerId);
  return mapPacked(byTypo, (ids) => [...ids.keys()]);
}

/**
 * The word id of each entry of a lexicon list, kept in the lexicon's memos until the list changes
 * length (lists are replaced, or grow, when words are added): a prefix stands for thousands of words,
 * and looking each one up by its text was most of the cost of deriving it.
 */
function idsOfList(vocabulary: Vocabulary, list: readonly string[]): Int32Array {
  const memos = vocabulary.lexicon.memos;
  let ids = memos.ids.get(list);
  if (ids === undefined || ids.length !== list.length) {
    ids = Int32Array.from(list, (word) => vocabulary.idOf(word) ?? -1);
    memos.ids.set(list, ids);
  }
  return ids;
}

function collectTypos(vocabulary: Vocabulary, lists: readonly (readonly string[])[], word: string, isPrefix: boolean, budget: number,
  byTypo: Map<number, number>[], considerId: (id: number | undefined, typos: number) => void): void {
  const caps = [Infinity, MAX_ONE_TYPO_WORDS, MAX_TWO_TYPO_WORDS];
  // The runs of words that may be near the word (deletion-index.ts), when the lexicon's index can tell.
  const candidates = vocabulary.lexicon.deletionIndex()?.candidates(word, budget) ?? null;
  if (lists.length === 1) {
    const full = (typos: number) => byTypo[typos]!.size >= caps[typos]!;
    walkTypos(vocabulary, lists[0]!, word, isPrefix, budget, candidates, full, considerId);
    return;
  }
  // Several lists (words added since the last merges wait in younger ones): the caps are the first
  // 150 / 50 words of the one merged list's walk, as a shard holding the same words in one list (a
  // fresh or restored one) takes them. Each list's walk, capped on its own, finds a superset of its
  // share of those; they are merged in the one list's visit order: one-typo words by word, two-typo
  // words of the query's first letter by word, then those of another first letter by word.
  // [0]: two typos by another first letter; [1], [2]: one and two typos of the query's first letter.
  const found: [TypoWord[], TypoWord[], TypoWord[]] = [[], [], []];
  for (const list of lists) {
    const taken = [0, 0, 0];
    const full = (typos: number) => taken[typos]! >= caps[typos]!;
    walkTypos(vocabulary, list, word, isPrefix, budget, candidates, full, (id, typos, elsewhere, text) => {
      if (id === undefined || vocabulary.docs(id).isEmpty || byTypo[0]!.has(id)) return;
      taken[typos]++;
      found[elsewhere ? 0 : typos]!.push({ word: text, id });
    });
  }
  const byWord = (a: TypoWord, b: TypoWord) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);
  for (const [typos, words] of [[1, found[1]], [2, found[2]], [2, found[0]]] as const) {
    words.sort(byWord);
    for (const { id } of words) {
      if (byTypo[typos]!.size >= caps[typos]!) break;
      considerId(id, typos);
    }
  }
}

interface TypoWord {
  word: string;
  id: number;
}

/**
 * One list's typo walks: words of the query's first letter within `budget` edits (over the deletion
 * index's runs when `candidates` is not null), then, at two typos, those of another first letter
 * (`elsewhere`: a changed first letter counts double), in list order; stops once `full` says both
 * levels are (the visit decides what it takes).
 */
function walkTypos(vocabulary: Vocabulary, list: readonly string[], word: string, isPrefix: boolean, budget: number,
  candidates: DeletionCandidates | null, full: (typos: number) => boolean,
  take: (id: number | undefined, typos: number, elsewhere: boolean, word: string) => void): void {
  const memos = vocabulary.lexicon.memos;
  const ids = idsOfList(vocabulary, list);
  const [sameStart, sameEnd] = prefixRange(list, word.slice(0, 1));
  const visit = (candidate: string, distance: number, index: number) => {
    if (distance > 0 && !full(distance)) take(ids[index], distance, false, candidate);
    return !(full(1) && (budget < 2 || full(2)));
  };
  if (candidates === null) walkFuzzy(list, word, budget, isPrefix, visit, sameStart, sameEnd, memos);
  else walkCandidateRuns(list, word, budget, isPrefix, visit, candidates, sameStart, sameEnd, memos);
  if (budget < 2) return;
  // A different first letter is a typo that counts double: allowed only as the whole two-typo budget.
  const elsewhere = (candidate: string, distance: number, index: number) => {
    if (distance > 0 && !full(2)) take(ids[index], 2, true, candidate);
    return !full(2);
  };
  // One call over the whole list (it skips the words of the query's first letter): the same visits as
  // one call before that letter's words and one after, for half its binary searches.
  walkFirstLetterEdits(list, word, isPrefix, elsewhere, 0, list.length, memos);
}

/**
 * Whether deriveWordIds(vocabulary, word, isPrefix, budget) could take some word of `sorted` (a sorted
 * run of words that just got their first documents: what a cached walk is checked against): the word
 * or its marked spelling, with isPrefix a word starting with either, or within `budget` edits of the
 * word (walkFuzzy over the whole run: the walk's first-letter rule and caps only take fewer). `memos`: the
 * run's packed words and the walk's scratch (ShardCaches.runMemos; null: made for this call).
 */
export function mayDeriveAny(sorted: readonly string[], word: string, isPrefix: boolean, budget: number, memos: LexiconListMemos | null = null): boolean {
  for (const start of [word, exactAttributeKey(word)]) {
    const [from, to] = prefixRange(sorted, start);
    if (from < to && (isPrefix || sorted[from] === start)) return true;
  }
  if (budget <= 0 || word.length === 0) return false;
  let found = false;
  walkFuzzy(sorted, word, budget, isPrefix, () => {
    found = true;
    return false;
  }, 0, sorted.length, memos);
  return found;
}

/**
 * The derivations of `word` from the ids deriveWordIds found; `idSpan`: the span of the shard's
 * document ids (bitmap-union.ts; Infinity: always roaring's orMany); `keptUnion`: the union of
 * the zero-typo words' lists (given their ids) when the shard keeps it (a short prefix's,
 * postings/prefix-postings.ts), used as is like a lone word's own list.
 */
export function derivationsFromWords(vocabulary: Vocabulary, word: string, byTypo: readonly (readonly number[])[], idSpan = Infinity,
  keptUnion?: (ids: readonly number[]) => RoaringBitmap32 | undefined): TermDerivations {
  const exactIds = [vocabulary.idOf(word), vocabulary.idOf(exactAttributeKey(word))];
  const words: WordDerivation[] = [];
  const docsByTypo: RoaringBitmap32[] = [];
  // The bitmaps made here (the others are the words' own lists): TermDerivations.owned.
  const made = new Set<RoaringBitmap32>();
  let seen: RoaringBitmap32 | null = null;
  let keptPrefix: TermDerivations['keptPrefix'];
  for (let typos = 0; typos < 3; typos++) {
    const ids = byTypo[typos]!;
    for (const wordId of ids) words.push({ wordId, typos, exact: typos === 0 && exactIds.includes(wordId) });
    // A lone word's own posting list is used as is, not copied: derivations are read-only and dropped
    // by any write to the word (ShardIndex.cachedDerive), and at a million documents the copies showed.
    const kept = ids.length > 1 && typos === 0 ? keptUnion?.(ids) : undefined;
    if (kept !== undefined && byTypo[1]!.length + byTypo[2]!.length === 0) keptPrefix = { prefix: word, words: ids.length };
    let union = ids.length === 1 ? vocabulary.docs(ids[0]!) : kept ?? unionOfMany(mapPacked(ids, (id) => vocabulary.docs(id)), idSpan);
    if (ids.length !== 1 && kept === undefined) made.add(union);
    if (seen !== null && !union.isEmpty) made.add(union = RoaringBitmap32.andNot(union, seen));
    // An empty level is the one shared empty bitmap: the cache holds tens of thousands of derivations,
    // most with an empty level, and each native bitmap is an object the collector tracks and finalizes.
    if (union.isEmpty) union = NO_DOCUMENTS;
    docsByTypo.push(union);
    if (seen === null || seen.isEmpty) seen = union;
    else if (!union.isEmpty) made.add(seen = RoaringBitmap32.or(seen, union));
  }
  const derivations: TermDerivations = { words, docs: seen!, docsByTypo };
  if (keptPrefix !== undefined) derivations.keptPrefix = keptPrefix;
  for (const docs of new Set([seen!, ...docsByTypo])) if (made.has(docs)) ownBitmap(derivations, docs);
  return derivations;
}

/**
 * Adds a term's synonyms (search-semantics §4) to its derivations at zero typos, non-exact: a
 * one-word alternative as a word (it matches like the word itself), a multi-word one as a phrase (it
 * matches where its words are consecutive, which `phraseDocs` verifies against the forward index).
 */
export function withSynonyms(vocabulary: Vocabulary, base: TermDerivations, alternatives: readonly (readonly string[])[],
  phraseDocs: (wordIds: number[]) => RoaringBitmap32): TermDerivations {
  if (alternatives.length === 0) return base;
  const words = [...base.words];
  const phrases = [...(base.phrases ?? [])];
  const known = new Set(words.map((derivation) => derivation.wordId));
  const extra: RoaringBitmap32[] = [];
  for (const alternative of alternatives) {
    if (alternative.length === 1) {
      // A one-word alternative, in ordinary and in typo-disabled attributes alike.
      for (const key of [alternative[0]!, exactAttributeKey(alternative[0]!)]) {
        const id = vocabulary.idOf(key);
        if (id === undefined || vocabulary.docs(id).isEmpty) continue;
        extra.push(vocabulary.docs(id));
        if (!known.has(id)) words.push({ wordId: id, typos: 0, exact: false });
        known.add(id);
      }
      continue;
    }
    const wordIds = alternative.map((word) => vocabulary.idOf(word));
    if (wordIds.some((id) => id === undefined || vocabulary.docs(id).isEmpty)) continue;
    const docs = phraseDocs(wordIds as number[]);
    if (docs.isEmpty) continue;
    extra.push(docs);
    phrases.push({ wordIds: wordIds as number[], typos: 0, docs });
  }
  if (extra.length === 0) return base;
  const zeroTypo = RoaringBitmap32.orMany([base.docsByTypo[0]!, ...extra]);
  const docsByTypo = [zeroTypo, ...base.docsByTypo.slice(1).map((docs) => RoaringBitmap32.andNot(docs, zeroTypo))];
  const derivations: TermDerivations = { words, phrases, docs: RoaringBitmap32.or(base.docs, zeroTypo), docsByTypo };
  // Each made here (the base's stay the base's).
  for (const docs of [derivations.docs, ...docsByTypo]) ownBitmap(derivations, docs);
  return derivations;
}

/**
 * Words standing for a term at a typo cost: concatenations (one word, among the derivations) and
 * splits (two words in a row, a PhraseAlternative) of query words (query graph).
 */
export interface TermAlternative {
  /** Words each standing for the term (a concatenation's derivations), or with inRow the words of a split. */
  wordIds: readonly number[];
  /** The words stand for the term only together, in a row (a split: a PhraseAlternative). */
  inRow?: boolean;
  /** The documents holding it (for words in a row: in a row). */
  docs: RoaringBitmap32;
  /** Its cost for the typo rule, 1 or 2. */
  typos: number;
}

/** A term's derivations with n-gram alternatives, memoized on the term's own (TermDerivations.withNgrams). */
export interface NgramCombination {
  /** The n-grams' derivation objects (their ShardCaches.derivationId) and whether the term starts each. */
  readonly key: string;
  readonly derivations: TermDerivations;
}

/** Combinations kept per derivations object: a word follows or precedes a few others in the queries asking it. */
export const NGRAM_MEMOS = 2;

/**
 * withAlternatives(base, alternatives), memoized on `base` by `key` (which names the n-grams' derivation
 * objects: those of a concatenation derived again after a write are new objects, so a new key).
 * The result's own memos (word ids, rank / position unions, pair memos) then serve the next search too.
 */
export function withNgrams(base: TermDerivations, alternatives: readonly TermAlternative[], key: string): TermDerivations {
  const memos = (base.withNgrams ??= []);
  for (let k = 0; k < memos.length; k++) if (memos[k]!.key === key) return memos[k]!.derivations;
  const derivations = combineNgrams(base, alternatives);
  if (memos.length >= NGRAM_MEMOS) memos.shift();
  memos.push({ key, derivations });
  return derivations;
}

/**
 * withAlternatives for n-gram alternatives (words, no phrase; typo cost 1 or 2), the same words and
 * levels, made without copying the base's big lists where the n-grams add nothing to them, and noting
 * where the words came from (TermDerivations.ngramOf). The base's levels are disjoint and their union is
 * its `docs` (derivationsFromWords, withAlternatives, withSynonyms), which the shortcuts rely on.
 */
export function combineNgrams(base: TermDerivations, alternatives: readonly TermAlternative[]): TermDerivations {
  const useful = alternatives.filter((alternative) => !alternative.docs.isEmpty);
  if (useful.length === 0) return base;
  if (useful.some((alternative) => alternative.inRow === true || alternative.typos < 1) || base.docsByTypo.length !== 3) return withAlternatives(base, alternatives);
  const words = [...base.words];
  const known = new Set(words.map((derivation) => derivation.wordId));
  const extraWordIds: number[] = [];
  for (const alternative of useful) {
    for (const wordId of alternative.wordIds) {
      if (known.has(wordId)) continue;
      known.add(wordId);
      words.push({ wordId, typos: alternative.typos, exact: false });
      extraWordIds.push(wordId);
    }
  }
  const [zero, one, two] = base.docsByTypo as [RoaringBitmap32, RoaringBitmap32, RoaringBitmap32];
  const added = (typos: number) => {
    const lists = mapPacked(useful.filter((alternative) => Math.min(2, alternative.typos) === typos), (alternative) => alternative.docs);
    return lists.length === 0 ? null : lists.length === 1 ? lists[0]! : RoaringBitmap32.orMany(lists);
  };
  const addedOne = added(1);
  const addedTwo = added(2);
  const made: RoaringBitmap32[] = [];
  const make = (bitmap: RoaringBitmap32) => {
    made.push(bitmap);
    return bitmap;
  };
  // Level 1: (one ∪ addedOne) \ zero = one ∪ (addedOne \ zero), one and zero being disjoint.
  const newOne = addedOne === null ? null : RoaringBitmap32.andNot(addedOne, zero);
  if (newOne !== null && newOne.isEmpty === false) newOne.andNotInPlace(one);
  const levelOne = newOne === null || newOne.isEmpty ? one : make(RoaringBitmap32.or(one, newOne));
  // Level 2: (two ∪ addedTwo) \ (zero ∪ levelOne); two is disjoint from zero and one.
  let levelTwo = two;
  if (addedTwo !== null) {
    const grown = RoaringBitmap32.or(two, addedTwo);
    grown.andNotInPlace(zero);
    grown.andNotInPlace(levelOne);
    levelTwo = make(grown);
  } else if (newOne !== null && !newOne.isEmpty && two.intersects(newOne)) {
    levelTwo = make(RoaringBitmap32.andNot(two, newOne));
  }
  const docsByTypo = [zero, levelOne, levelTwo];
  // docs: zero ∪ levelOne ∪ levelTwo = the base's docs ∪ what the n-grams add.
  let docs = base.docs;
  const addedAll = addedOne === null ? addedTwo : addedTwo === null ? addedOne : RoaringBitmap32.or(addedOne, addedTwo);
  if (addedAll !== null && !addedAll.isSubset(docs)) docs = make(RoaringBitmap32.or(docs, addedAll));
  const derivations: TermDerivations = { words, phrases: [...(base.phrases ?? [])], docs, docsByTypo, ngramOf: { base, extraWordIds } };
  for (const bitmap of made) ownBitmap(derivations, bitmap);
  return derivations;
}

/**
 * The derivations with the alternatives added at their typo cost (words as non-exact words, words
 * in a row as a phrase): a new object
 * (the base may be the shard's cached one), docsByTypo kept disjoint (a document counts at its best).
 */
export function withAlternatives(base: TermDerivations, alternatives: readonly TermAlternative[]): TermDerivations {
  const useful = alternatives.filter((alternative) => !alternative.docs.isEmpty);
  if (useful.length === 0) return base;
  const words = [...base.words];
  const phrases = [...(base.phrases ?? [])];
  const known = new Set(words.map((derivation) => derivation.wordId));
  for (const alternative of useful) {
    if (alternative.inRow === true) {
      phrases.push({ wordIds: alternative.wordIds, typos: alternative.typos, docs: alternative.docs });
      continue;
    }
    for (const wordId of alternative.wordIds) {
      if (known.has(wordId)) continue;
      known.add(wordId);
      words.push({ wordId, typos: alternative.typos, exact: false });
    }
  }
  const levels = mapPacked(base.docsByTypo, (docs) => docs);
  for (let typos = 1; typos < 3; typos++) {
    const extra = mapPacked(useful.filter((alternative) => Math.min(2, alternative.typos) === typos), (alternative) => alternative.docs);
    if (extra.length > 0) levels[typos] = RoaringBitmap32.orMany([levels[typos]!, ...extra]);
  }
  let seen = levels[0]!;
  const docsByTypo = [seen];
  for (let typos = 1; typos < 3; typos++) {
    const level = RoaringBitmap32.andNot(levels[typos]!, seen);
    docsByTypo.push(level);
    seen = RoaringBitmap32.or(seen, level);
  }
  // Levels 1 and 2 and the union are made here; level 0 is the base's (its own, or a word's list).
  const derivations: TermDerivations = { words, phrases, docs: seen, docsByTypo };
  for (const docs of [seen, docsByTypo[1]!, docsByTypo[2]!]) ownBitmap(derivations, docs);
  return derivations;
}

/** Document checks one split search may spend (a split's documents are verified in the forward index). */
export const SPLIT_CHECKS_PER_WORD = 512;

/**
 * milli's split_best_frequency: the split of `word` into two words of the shard whose pair in a row
 * holds the most documents (the first such split on a tie), with those documents; null when none.
 * Splits are tried by their upper bound (the two words' common documents), best first, and verified
 * until no other can beat the best or SPLIT_CHECKS_PER_WORD documents were read.
 */
export function bestSplit(vocabulary: Vocabulary, word: string, phraseDocs: (wordIds: number[], limit: number) => RoaringBitmap32):
  { wordIds: [number, number]; docs: RoaringBitmap32 } | null {
  const candidates = splitCandidates(vocabulary, word);
  let best: { at: number; wordIds: [number, number]; docs: RoaringBitmap32 } | null = null;
  let checks = SPLIT_CHECKS_PER_WORD;
  for (const candidate of candidates) {
    if (best !== null && (candidate.bound < best.docs.size || (candidate.bound === best.docs.size && candidate.at > best.at))) break;
    if (checks <= 0) break;
    checks -= candidate.bound;
    const docs = phraseDocs([candidate.left, candidate.right], candidate.bound);
    if (docs.isEmpty) continue;
    if (best === null || docs.size > best.docs.size || (docs.size === best.docs.size && candidate.at < best.at)) {
      best = { at: candidate.at, wordIds: [candidate.left, candidate.right], docs };
    }
  }
  return best === null ? null : { wordIds: best.wordIds, docs: best.docs };
}

/** The splits of `word` into two words of the shard that share documents, by that upper bound (best first, then by split point). */
export function splitCandidates(vocabulary: Vocabulary, word: string): { at: number; left: number; right: number; bound: number }[] {
  const candidates: { at: number; left: number; right: number; bound: number }[] = [];
  // Split points at code point boundaries (a surrogate pair stays whole).
  for (let at = 1; at < word.length; at++) {
    const code = word.charCodeAt(at);
    if (code >= 0xdc00 && code <= 0xdfff) continue;
    const left = vocabulary.idOf(word.slice(0, at));
    if (left === undefined) continue;
    const right = vocabulary.idOf(word.slice(at));
    if (right === undefined) continue;
    const bound = vocabulary.docs(left).andCardinality(vocabulary.docs(right));
    if (bound > 0) candidates.push({ at, left, right, bound });
  }
  return candidates.sort((a, b) => b.bound - a.bound || a.at - b.at);
}

/** The split of `word` at `at` (a choice made over the index) as words of the shard in a row, with their documents; null when it has none here. */
export function chosenSplit(vocabulary: Vocabulary, word: string, at: number, phraseDocs: (wordIds: number[], limit: number) => RoaringBitmap32):
  { wordIds: [number, number]; docs: RoaringBitmap32 } | null {
  if (at <= 0 || at >= word.length) return null;
  const left = vocabulary.idOf(word.slice(0, at));
  const right = vocabulary.idOf(word.slice(at));
  if (left === undefined || right === undefined) return null;
  const docs = phraseDocs([left, right], Infinity);
  return docs.isEmpty ? null : { wordIds: [left, right], docs };
}
