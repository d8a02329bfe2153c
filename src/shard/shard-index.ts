// One shard of one index in memory: posting lists, forward index, and the set of its documents.
// Everything here is synchronous and thread-free, so tests and the bench drive it directly.
import roaring from 'roaring';
import { analyzeDocument, analyzeDocumentInto, DocumentTokenScratch } from '../analysis/document-tokens.js';
import { selectsField } from '../documents/flatten.js';
import type { FoundSplit } from './search/split-decider.js';
import type { LexiconListMemos } from './words/lexicon.js';
import { derivationsFootprint, derivationsFromWords, deriveWordIds, exactAttributeKey, mayDeriveAny, withSynonyms, withAlternatives, bestSplit, chosenSplit, type TermDerivations } from './words/derivations.js';
import { documentHasPhrase } from './documents/match-profile-builder.js';
import { ForwardIndex } from './documents/forward-index.js';
import { FacetStore } from './facets/facet-store.js';
import { facetedFieldsOf } from './facets/faceted-fields.js';
import type { IndexConfig } from './index-config.js';
import { searchShard, type ShardSearchRequest, type ShardSearchResult } from './search/shard-search.js';
import { Vocabulary } from './words/vocabulary.js';
import { NearPairPostings } from './pairs/near-pair-postings.js';
import { FieldStartPairs } from './postings/field-start-pairs.js';
import { SoleWordFields } from './postings/sole-word-fields.js';
import { finishSteps, whileStale, type SlicedJob } from './sliced-jobs.js';
import type { BuildHelperClient } from './build-helper-client.js';
import { OffloadedBuild, type OffloadedPart } from './offloaded-build.js';
import { derivationCacheBytes, packWalk, ShardCaches, walkByTypo, type CacheStamp, type WalkedWords } from './shard-caches.js';
import type { DerivedStructure } from './derived-structure.js';
import { idSpanOf, unionOfMany } from './words/bitmap-union.js';
import { fieldRankKey, KEPT_MIN_DOCUMENTS, positionKey, TokenKeyPostings } from './postings/token-key-postings.js';
import { mapPacked } from '../ranking/packed-arrays.js';
import { PrefixPostings, ShortPrefixes } from './postings/prefix-postings.js';

/** Field ranks and positions below these get posting lists (token-key-postings.ts). */
const RANK_POSTING_LIMIT = 16;
const POSITION_POSTING_LIMIT = 4;

const { RoaringBitmap32 } = roaring;

/** Work of deriving a term besides its bytes, per derived word (a union over its lists per rank and position). */
const DERIVATION_WORK_PER_WORD = 1024;

/** Ranks (field ordinals with searchableAttributes `*`) whose names a shard keeps (ShardIndex.nameAtRank); later ones read the document. */
export const MAX_NAMED_RANKS = 256;

export class ShardIndex {
  readonly vocabulary = new Vocabulary();
  readonly forward = new ForwardIndex();
  readonly documents = new RoaringBitmap32();
  readonly rankPostings = new TokenKeyPostings(this.vocabulary, this.forward, this.documents, 'fieldRank', RANK_POSTING_LIMIT);
  readonly positionPostings = new TokenKeyPostings(this.vocabulary, this.forward, this.documents, 'position', POSITION_POSTING_LIMIT);
  readonly nearPairs = new NearPairPostings(this.vocabulary, this.forward, this.documents);
  readonly soleWordFields = new SoleWordFields(this.forward, this.documents);
  readonly fieldStartPairs = new FieldStartPairs(this.forward, this.documents);
  /** Per 2- and 3-letter prefix, the union of its words' lists, and by field rank and position, following the writes (a short prefix term's). */
  readonly shortPrefixes = new ShortPrefixes(this.vocabulary);
  readonly prefixDocs = new PrefixPostings(this.shortPrefixes, this.forward, null, 1);
  readonly prefixRanks = new PrefixPostings(this.shortPrefixes, this.forward, fieldRankKey, RANK_POSTING_LIMIT);
  readonly prefixPositions = new PrefixPostings(this.shortPrefixes, this.forward, positionKey, POSITION_POSTING_LIMIT);
  /** Every structure derived from the documents and kept across writes (derived-structure.ts), in build order. */
  readonly derived: readonly DerivedStructure[] = [this.rankPostings, this.positionPostings, this.nearPairs, this.soleWordFields, this.fieldStartPairs,
    this.prefixDocs, this.prefixRanks, this.prefixPositions];
  /** What searches cache between writes (derivations, lexicon walks, pair memos), each entry checked against the writes since it was made. */
  readonly caches = new ShardCaches(this.vocabulary);
  /** upsert's token arrays and tokenizer scratch, reused document after document (document-tokens.ts). */
  private readonly tokens = new DocumentTokenScratch();
  /**
   * With explicit searchableAttributes: the ranks some document's field with words held under a name
   * other than the rank's selector (a path inside it, a pattern's match), since the shard was built;
   * never shrinks. null: not known (restored from a snapshot that did not keep them).
   */
  private inexactRanks: Set<number> | null = new Set();
  /**
   * With searchableAttributes `*`: per rank (a field's ordinal in its document, below MAX_NAMED_RANKS), the
   * one name every field with words at that rank has had in this shard, or null once two names met there;
   * absent: no such field yet. Marked by each write, never shrinking; the map null when not known (a
   * snapshot written before it was kept). attributesToSearchOn then tells a field's verdict from its rank.
   */
  private starRankNames: Map<number, string | null> | null = new Map();
  /**
   * JSON of the documents upserted by the latest write batch: the scheduler commits them to LMDB only
   * after every shard acknowledged, and a search in between must still be able to show them.
   */
  recentDocuments = new Map<number, string>();
  /** The write batch before's: with the next batch sent ahead (scheduler plan-ahead.ts), it may not be committed yet either. */
  previousRecentDocuments = new Map<number, string>();
  /** Values of the filterable / sortable / distinct fields (filters, facets, sort). */
  readonly facets: FacetStore;
  /** Some field is faceted (else upserts skip the facet store's flattening of every document). */
  private readonly hasFacets: boolean;
  /** Derivations are offered to the cache from a term's second miss on (ShardCaches.seenBefore); false: from the first (tests). */
  cacheOnSecondMiss = true;
  /**
   * ...except those of a term in at least this share of the shard's documents, offered at their first miss:
   * frequent terms come back (a Zipf law), and their unions cost the most to derive again. Infinity: none (tests).
   */
  frequentTermShare = 1 / 1024;
  /** n-grams the lexicon's NearPrefixFilter proves derive nothing are not derived (mayDeriveSome); false: every one is (tests). */
  nearPrefixFilter = true;
  /**
   * A term's rank / position unions (over its derived words) are made key by key when a rule first
   * reads them (ranking/keyed-lists.ts); false: every key's at once (tests, A/B).
   */
  lazyKeyUnions = true;
  /**
   * A word term's derivations with the query's n-gram alternatives are memoized on its derivations, by
   * the n-grams' derivation objects (words/derivations.ts withNgrams): every search of `for re` made them
   * anew, and with them their word lists, rank / position unions and pair memos; false: made per search (tests, A/B).
   */
  memoNgramDerivations = true;
  /**
   * A large write batch's whole drop of the caches (dropCachesForBatch) keeps the lexicon walks, checked
   * when next read (ShardCaches.keepWalks); false: drops them too (tests, A/B).
   */
  get keepWalksOnDrop(): boolean {
    return this.caches.keepWalks;
  }

  set keepWalksOnDrop(on: boolean) {
    this.caches.keepWalks = on;
  }

  /**
   * The rank / position lists rebuilt after a write are kept for every word (TokenKeyPostings.keptMinDocuments);
   * false: only for those in ≥ KEPT_MIN_DOCUMENTS documents (tests, A/B).
   */
  get keepRareKeyLists(): boolean {
    return this.rankPostings.keptMinDocuments === 1;
  }

  set keepRareKeyLists(on: boolean) {
    for (const postings of [this.rankPostings, this.positionPostings]) postings.keptMinDocuments = on ? 1 : KEPT_MIN_DOCUMENTS;
  }

  /** Cached entries are checked against older runs of appeared words merged (ShardCaches.mergeOldRuns); false: derived again past RUNS_CHECKED runs (tests, A/B). */
  get mergeOldRuns(): boolean {
    return this.caches.mergeOldRuns;
  }

  set mergeOldRuns(on: boolean) {
    this.caches.mergeOldRuns = on;
  }

  /**
   * A short prefix term's zero-typo level and rank / position lists are the kept ones (postings/prefix-postings.ts);
   * false: unioned from its words' lists, those structures not kept (tests, A/B).
   */
  get prefixUnions(): boolean {
    return this.prefixDocs.enabled;
  }

  set prefixUnions(on: boolean) {
    for (const postings of [this.prefixDocs, this.prefixRanks, this.prefixPositions]) postings.enabled = on;
  }

  /** Typo walks go over the runs the lexicon's DeletionIndex finds (words/deletion-index.ts); false: over every word of the first letter (tests, A/B). */
  get deletionIndex(): boolean {
    return this.vocabulary.lexicon.useDeletionIndex;
  }

  set deletionIndex(on: boolean) {
    this.vocabulary.lexicon.useDeletionIndex = on;
  }

  /** The compiled settings; replaced only by adoptSearchTimeSettings. */
  get config(): IndexConfig {
    return this.settingsNow;
  }

  private settingsNow: IndexConfig;

  /**
   * Settings that differ from the current ones in search-time settings only (settings/search-time-settings.ts):
   * nothing built from the documents depends on those, so the shard keeps every structure.
   */
  adoptSearchTimeSettings(config: IndexConfig): void {
    this.settingsNow = config;
  }

  constructor(config: IndexConfig) {
    this.settingsNow = config;
    const faceted = facetedFieldsOf(config.settings);
    this.facets = new FacetStore(faceted.isFaceted, faceted.geo, faceted.geojson);
    this.hasFacets = !faceted.none;
    this.vocabulary.onFirstDocument = (wordId) => this.caches.noteAppeared(wordId);
  }

  get documentCount(): number {
    return this.documents.size;
  }

  /** Indexes the document under docId, replacing what was there. */
  upsert(docId: number, document: Record<string, unknown>): void {
    this.delete(docId);
    // Scratch arrays reused across documents: the forward index copies them into its arena.
    const scratch = this.tokens;
    scratch.clear();
    const wordIds = scratch.wordIds;
    const exactAttributes = this.config.exactAttributes;
    const vocabulary = this.vocabulary;
    if (exactAttributes.length === 0) {
      // Words interned as the tokenizer meets them (no string per known word).
      analyzeDocumentInto(document, this.config.analysis, vocabulary, scratch);
      for (let k = 0; k < wordIds.length; k++) vocabulary.addDocument(wordIds[k]!, docId);
      for (const rank of scratch.inexactRanks) this.inexactRanks?.add(rank);
      const names = scratch.rankNames;
      for (let k = 0; k < names.length; k++) this.noteRankName(scratch.fieldRanks[k]!, names[k]!);
    } else this.collectWithExactAttributes(docId, document);
    this.forward.put(docId, scratch);
    if (this.hasFacets) this.facets.upsert(docId, document);
    this.documents.add(docId);
    this.noteWrite(docId, true, wordIds);
  }

  /** upsert's tokens when some fields are exactAttributes (their words are interned under a typo-free key). */
  private collectWithExactAttributes(docId: number, document: Record<string, unknown>): void {
    const { fieldRanks, wordIds, fields: fieldOrdinals, positions } = this.tokens;
    const exactAttributes = this.config.exactAttributes;
    const vocabulary = this.vocabulary;
    const fields = analyzeDocument(document, this.config.analysis);
    const searchable = this.config.analysis.searchableAttributes;
    for (let ordinal = 0; ordinal < fields.length; ordinal++) {
      const field = fields[ordinal]!;
      fieldRanks.push(field.rank);
      if (!searchable.includes('*') && field.field !== searchable[field.rank]) this.inexactRanks?.add(field.rank);
      if (searchable.includes('*')) this.noteRankName(field.rank, field.field);
      const typoFree = exactAttributes.some((selector) => selectsField(selector, field.field));
      const words = field.words;
      for (let k = 0; k < words.length; k++) {
        const wordId = vocabulary.intern(typoFree ? exactAttributeKey(words[k]!) : words[k]!);
        vocabulary.addDocument(wordId, docId);
        wordIds.push(wordId);
        fieldOrdinals.push(ordinal);
        positions.push(field.positions[k]!);
      }
    }
  }

  /**
   * Whether every field with words at this rank was named by the rank's selector itself (explicit
   * searchableAttributes): attributesToSearchOn then tells a field's verdict from its rank, without
   * reading the document (search/field-restriction.ts). False when not known.
   */
  fieldNamedByRank(rank: number): boolean {
    return this.inexactRanks !== null && !this.config.analysis.searchableAttributes.includes('*') && !this.inexactRanks.has(rank);
  }

  private noteRankName(rank: number, name: string): void {
    const names = this.starRankNames;
    if (names === null || rank >= MAX_NAMED_RANKS) return;
    const known = names.get(rank);
    if (known === undefined) names.set(rank, name);
    else if (known !== null && known !== name) names.set(rank, null);
  }

  /**
   * With searchableAttributes `*`: the name of every field with words at this rank in the shard; null when
   * fields of several names were there or it is not known; undefined when no field with words was.
   */
  nameAtRank(rank: number): string | null | undefined {
    if (this.starRankNames === null || rank >= MAX_NAMED_RANKS) return null;
    return this.starRankNames.get(rank);
  }

  /** starRankNames for a snapshot, as [rank, name or null] pairs (null: not known); restoreRankNames takes them back. */
  rankNamesState(): [number, string | null][] | null {
    return this.starRankNames === null ? null : [...this.starRankNames];
  }

  restoreRankNames(pairs: readonly [number, string | null][] | null): void {
    this.starRankNames = pairs === null ? null : new Map(pairs);
  }

  /** The ranks for a snapshot (null: not known); restoreInexactRanks takes them back. */
  inexactRanksState(): number[] | null {
    return this.inexactRanks === null ? null : [...this.inexactRanks];
  }

  restoreInexactRanks(ranks: readonly number[] | null): void {
    this.inexactRanks = ranks === null ? null : new Set(ranks);
  }

  /** Applies buffered posting additions (end of a write batch: the lists are read by the next search anyway). */
  flushWrites(): void {
    this.vocabulary.flush();
  }

  /** Removes the document from every posting list; false when it was not there. */
  delete(docId: number): boolean {
    if (!this.documents.has(docId)) return false;
    const wordIds = this.forward.wordIdsOf(docId);
    for (const wordId of wordIds) this.vocabulary.removeDocument(wordId, docId);
    this.noteWrite(docId, false, wordIds);
    this.forward.remove(docId);
    if (this.hasFacets) this.facets.delete(docId);
    this.documents.remove(docId);
    return true;
  }

  /** Releases slack memory after a bulk load, and builds the rank postings at once. */
  trim(): void {
    this.forward.trim();
    this.vocabulary.trim();
    this.rankPostings.buildAll();
    this.positionPostings.buildAll();
  }

  /**
   * A write to the document (`wordIds`: the words it now holds, or held), while it is in the forward
   * index (just put, or about to leave): every derived structure is told, and the caches (the entries
   * of these words go stale).
   */
  private noteWrite(docId: number, added: boolean, wordIds: readonly number[]): void {
    const derived = this.derived;
    for (let k = 0; k < derived.length; k++) derived[k]!.noteWrite(docId, added, wordIds);
    this.caches.noteWrite(wordIds);
  }

  /**
   * Builds now what the next searches would otherwise build on their way (after a bulk load, a
   * million documents' rank lists and pair tables take seconds): the worker calls it when the
   * scheduler has been quiet a while (never between the batches of a bulk load, where it would
   * rebuild after every batch).
   */
  prepareForSearch(): void {
    finishSteps(this.prepareSteps());
  }

  /**
   * prepareForSearch in steps of a few milliseconds (SlicedJobs, quiet time): each structure is built
   * aside and swapped in when done; writes meanwhile do not cancel it (src/shard/README.md says what each
   * structure does with them). A search needing a
   * structure meanwhile still builds it at once (the slower exact paths without it, reading every
   * document of a universe, cost far more at a million documents than waiting for the build).
   */
  *prepareSteps(helper: BuildHelperClient | null = null): SlicedJob {
    this.flushWrites();
    // A large shard's near-pair tables and position lists are built in the build helper thread, on the
    // other core, while this thread builds the rest.
    const offloaded = helper === null ? null : yield* this.offloadSteps(helper);
    try {
      // A search may build a structure itself meanwhile: its sliced build then stops.
      for (const structure of this.derived) {
        if (offloaded?.covers(structure)) continue;
        yield* whileStale(() => structure.needsBuild, structure.buildSteps());
      }
      // Lists of the lexicon's walks (a step each: writes meanwhile only add pending words, which walks handle).
      yield* this.vocabulary.lexicon.prepareSteps((word) => this.vocabulary.idOf(word));
      yield* this.vocabulary.lexicon.deletionIndexSteps();
      if (offloaded !== null) yield* offloaded.finishSteps();
    } finally {
      offloaded?.abandon();
    }
  }

  /**
   * What of a full build goes to the build helper (prepareSteps): the near-pair tables (the largest
   * build) and the position lists' passes, over a copy of the arena, once the shard holds
   * helper.minDocuments documents; the rank lists, the other structures and the lexicon's stay here,
   * about the same work at 100k and 1M npm rows. Null when none of them is stale.
   */
  private *offloadSteps(helper: BuildHelperClient): Generator<void, OffloadedBuild | null, unknown> {
    if (this.documents.size < helper.minDocuments) return null;
    const near = yield* this.nearPairs.offloadSteps();
    const position = this.positionPostings.offload();
    if (near === null && position === null) return null;
    const parts: OffloadedPart[] = [];
    if (near !== null) parts.push(near.part);
    if (position !== null) {
      parts.push({
        structure: this.positionPostings,
        adoptSteps: (result) => position.adoptSteps(result.tokenKeys[0]!),
        abandon: () => position.abandon(),
      });
    }
    // The forward index's offsets memo keeps `documents` (the builds here read it too): the helper gets copies.
    const documents = near?.documents ?? this.documents.toUint32Array();
    const offsets = this.forward.offsetsOfAll(documents)?.slice() ?? Int32Array.from(documents, (docId) => this.forward.offsetOf(docId));
    const answer = helper.build({
      arena: this.forward.arenaCopy(), documents: documents.slice(), offsets,
      nearPairs: near?.plan ?? null, tokenKeys: position === null ? [] : [position.spec],
    });
    return new OffloadedBuild(answer, parts);
  }

  /**
   * While prepareSteps runs in the background (the worker's sliced jobs), searches do not build the
   * near-pair tables and sole-word fields at once (after a bulk load of a million documents the
   * near-pair build took the first searches 8 s and more): they read the documents those would have
   * settled (slower per search, but searches are answered meanwhile) and the build goes on between
   * them. The rank and position lists are still built at once when a search needs them: without
   * them a term's lists are built from its words' documents, per search (a prefix's: most of the
   * shard), which at a million documents cost far more than their whole build.
   */
  deferBuilds(deferred: boolean): void {
    for (const structure of this.derived) structure.deferBuilds(deferred);
  }

  /**
   * Whether prepareSteps would build the lexicon's DeletionIndex (words/deletion-index.ts): not part of
   * needsPreparing (never built at once: typo walks go over every word of the first letter meanwhile).
   */
  get lexiconIndexDue(): boolean {
    return this.vocabulary.lexicon.deletionIndexDue;
  }

  /** Whether prepareSteps has anything to build. */
  get needsPreparing(): boolean {
    return this.derived.some((structure) => structure.needsBuild);
  }

  /** Bytes of the derived structures (each), of the lexicon's indexes and of the caches (memory reports, tests). */
  memoryBytes(): { derived: number[]; lexicon: number; caches: ReturnType<ShardCaches['byteSizes']> } {
    return { derived: this.derived.map((structure) => structure.byteLength), lexicon: this.vocabulary.lexicon.byteLength, caches: this.caches.byteSizes() };
  }

  /**
   * Whether derive(word, isPrefix, budget, [], false) may find some word: false proves it finds none
   * (its lexicon walks, exact and prefix lookups: the lexicon's NearPrefixFilter; the word has no synonyms).
   */
  mayDeriveSome(word: string, budget: number): boolean {
    if (!this.nearPrefixFilter || this.config.synonyms.has(word)) return true;
    return this.vocabulary.lexicon.nearPrefixFilter().mayDerive(word, budget);
  }

  /** Drops the caches whole before a large write batch (ShardEngine.writeBatch), but the lexicon walks with keepWalksOnDrop. */
  dropCachesForBatch(): void {
    if (this.caches.keepWalks) this.caches.dropKeepingWalks();
    else this.caches.clear();
  }

  /** `extraAlternatives`: synonyms the word has as part of a multi-word key (not cached: they depend on the query). */
  /**
   * `split`: with the word's best split in two words of the shard (milli's split words, a one-typo
   * derivation), unless that split is these words (an n-gram's own words: they match as the terms);
   * `{ at }`: the split point chosen over the index's shards instead (0: none; search/split-decider.ts),
   * with its words and documents here when the choice counted them (`found`).
   */
  derive(word: string, isPrefix: boolean, budget: number, extraAlternatives: readonly (readonly string[])[] = [],
    split: { unless: readonly string[] } | { at: number; found?: FoundSplit | undefined } | boolean = true): TermDerivations {
    let derivations = this.cachedDerive(word, isPrefix, budget);
    if (split !== false) {
      // Memoized on the cached derivations (itself when the word has no split), as their other memos.
      const at = typeof split === 'object' && 'at' in split ? split.at : undefined;
      let withSplit = derivations.withSplit;
      if (withSplit === undefined || withSplit.splitAt !== at) {
        const found = typeof split === 'object' && 'at' in split ? split.found : undefined;
        const best = at === undefined ? bestSplit(this.vocabulary, word, (wordIds) => this.phraseDocs(wordIds))
          : found !== undefined ? found : chosenSplit(this.vocabulary, word, at, (wordIds) => this.phraseDocs(wordIds));
        withSplit = best === null ? derivations
          : { ...withAlternatives(derivations, [{ wordIds: best.wordIds, inRow: true, docs: best.docs, typos: 1 }]), splitWordIds: best.wordIds, memoId: undefined };
        derivations.withSplit = withSplit;
        // Written only when given (one shard never writes it: no new property on its cached derivations).
        if (at !== undefined || withSplit.splitAt !== undefined) withSplit.splitAt = at;
      }
      const unless = typeof split === 'object' && 'unless' in split ? split.unless.map((part) => this.vocabulary.idOf(part)) : null;
      if (unless === null || withSplit.splitWordIds === undefined || withSplit.splitWordIds.some((id, k) => id !== unless[k]) || unless.length !== 2) derivations = withSplit;
    }
    if (extraAlternatives.length === 0) return derivations;
    return withSynonyms(this.vocabulary, derivations, extraAlternatives, (wordIds) => this.phraseDocs(wordIds));
  }

  /**
   * The word's derivations, from the cache when they still hold: an entry is dropped when a document
   * written since holds (or held) one of its words, or a word it could take got its first documents
   * (shard-caches.ts); its split is derived again when a word the split could use was written.
   */
  private cachedDerive(word: string, isPrefix: boolean, budget: number): TermDerivations {
    const key = `${isPrefix ? 'p' : 'w'}${budget}${word}`;
    const caches = this.caches;
    const vocabulary = this.vocabulary;
    // Buffered additions applied first: the words getting their first documents are logged before the checks.
    vocabulary.flush();
    const synonyms = this.config.synonyms.get(word) ?? [];
    const mayTake = (sorted: readonly string[], memos: LexiconListMemos) => mayDeriveAny(sorted, word, isPrefix, budget, memos)
      || synonyms.some((words) => words.some((synonym) => mayDeriveAny(sorted, synonym, false, 0, memos)));
    let derivations = caches.derivations.get(key);
    let walked: WalkedWords | undefined;
    if (derivations !== undefined) {
      const at = derivations.cachedAt!;
      const splitAt = { ...at };
      if (!caches.holds(at, derivations.words, null, mayTake)) {
        caches.derivations.drop(key);
        walked = derivations.walk;
        derivations = undefined;
      } else if (derivations.withSplit !== undefined && this.splitWritten(word, splitAt)) derivations.withSplit = undefined;
    }
    if (derivations === undefined) {
      walked ??= caches.walkOf(key);
      // A walk's words go stale only when one lost its last document (the others' documents are not in it).
      if (walked !== undefined && !caches.holds(walked, walked.ids, (wordId) => vocabulary.docs(wordId).isEmpty, mayTake)) walked = undefined;
      // A term's first miss derives without keeping anything (ShardCaches.seenBefore): most terms of unique queries never come back.
      const keep = walked !== undefined || !this.cacheOnSecondMiss || caches.seenBefore(key, this.documents.size);
      if (walked === undefined) walked = packWalk(deriveWordIds(vocabulary, word, isPrefix, budget), caches.stamp());
      const idSpan = idSpanOf(this.documents);
      // A short prefix's zero-typo union: its kept list, made now from its words' lists when first needed.
      const keptUnion = isPrefix ? (ids: readonly number[]) => this.prefixDocs.listOf(word, 0, () => [unionOfMany(mapPacked(ids, (id) => vocabulary.docs(id)), idSpan)]) : undefined;
      derivations = withSynonyms(vocabulary, derivationsFromWords(vocabulary, word, walkByTypo(walked), idSpan, keptUnion),
        synonyms, (wordIds) => this.phraseDocs(wordIds));
      // Frequent terms are kept at once: they come back (a Zipf law), and their unions cost the most to derive again.
      if (!keep && derivations.docs.size < this.documents.size * this.frequentTermShare) return derivations;
      derivations.cachedAt = caches.stamp();
      const words = derivations.words.length;
      // The budget follows the shard's size (a restored shard never went through upsert).
      caches.derivations.maxBytes = derivationCacheBytes(this.documents.size);
      caches.derivations.offer(key, derivations, (bytes) => bytes + DERIVATION_WORK_PER_WORD * words);
      // The walk goes with derivations the cache kept (derived again from it when they go stale), else
      // to the walks' own cache: one copy, not one in each (a read-only run never read the second).
      if (caches.derivations.has(key)) {
        derivations.walk = walked;
        caches.derivedWords.delete(key);
      } else caches.derivedWords.set(key, walked);
    }
    return derivations;
  }

  /** Whether a word the split of `word` could use (its two parts, at any point) was written since `at`. */
  private splitWritten(word: string, at: CacheStamp): boolean {
    // Most searches come between writes: no word to look up (two lookups per cut of every cached word).
    if (!this.caches.anyWrittenSince(at)) return false;
    for (let cut = 1; cut < word.length; cut++) {
      for (const part of [word.slice(0, cut), word.slice(cut)]) {
        const wordId = this.vocabulary.idOf(part);
        if (wordId !== undefined && this.caches.writtenSince(at, wordId)) return true;
      }
    }
    return false;
  }

  /** Documents holding the words consecutively. */
  phraseDocs(wordIds: number[]): roaring.RoaringBitmap32 {
    // Each distinct word's list once (a phrase may repeat a word).
    const lists = mapPacked([...new Set(wordIds)], (id) => this.vocabulary.docs(id));
    const candidates = lists.length === 1 ? lists[0]! : lists.reduce((acc, docs) => RoaringBitmap32.and(acc, docs));
    const verified = new RoaringBitmap32();
    for (const docId of candidates) if (documentHasPhrase(this.forward, docId, wordIds)) verified.add(docId);
    return verified;
  }

  search(request: ShardSearchRequest): ShardSearchResult {
    return searchShard(this, request);
  }
}

