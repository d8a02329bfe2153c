// One shard of one index in memory: posting lists, forward index, and the set of its documents.
// Everything here is synchronous and thread-free, so tests and the bench drive it directly.
import { LRUCache } from 'lru-cache';
import roaring from 'roaring';
import { analyzeDocument, analyzeDocumentInto } from '../analysis/document-tokens.js';
import { selectsField } from '../documents/flatten.js';
import { derivationsFootprint, derivationsFromWords, deriveWordIds, exactAttributeKey, withSynonyms, withAlternatives, bestSplit, type TermDerivations } from './derivations.js';
import { documentHasPhrase } from './match-profile-builder.js';
import { ForwardIndex } from './forward-index.js';
import { FacetStore } from './facet-store.js';
import { facetedFieldsOf } from './faceted-fields.js';
import type { IndexConfig } from './index-config.js';
import { searchShard, type ShardSearchRequest, type ShardSearchResult } from './shard-search.js';
import { Vocabulary } from './vocabulary.js';
import { NearPairPostings } from './near-pair-postings.js';
import { FieldStartPairs } from './field-start-pairs.js';
import { SoleWordFields } from './sole-word-fields.js';
import { finishSteps } from './sliced-jobs.js';
import { WorthPerByteCache } from './worth-per-byte-cache.js';
import { idSpanOf } from './bitmap-union.js';
import { fieldRankKey, positionKey, TokenKeyPostings } from './token-key-postings.js';

/** Field ranks and positions below these get posting lists (token-key-postings.ts). */
const RANK_POSTING_LIMIT = 16;
const POSITION_POSTING_LIMIT = 4;

const { RoaringBitmap32 } = roaring;

/** upsert's per-document token arrays, reused (one thread, no reentrancy). */
const scratch = { fieldRanks: [] as number[], wordIds: [] as number[], fields: [] as number[], positions: [] as number[] };

/**
 * Derivations kept per shard between writes, at most about this much memory per shard (the memos of
 * a common word's derivations are big), those saving the most work per byte (worth-per-byte-cache.ts:
 * least recently used out missed on nearly every query of the bench's loop at a million documents):
 * users' queries repeat words (a Zipf law), and a one-letter prefix's derivations union thousands of lists.
 */
const DERIVATION_CACHE_BYTES = 128 * 2 ** 20;
/**
 * And at least this much per document of the shard: at 1,000,000 documents the bench's loop of
 * queries derives ~334 MiB, and with 128 MiB re-deriving evicted terms was a quarter of the warm
 * engine's time; 224 MiB ran the warm loop 13% faster (search-time RSS: +~60 MiB at 200 B). At
 * 200 B (191 MiB) one term in six still missed when warm, and re-deriving it (its unions, and its
 * rank / position unions after) was a fifth of the warm time, and made a third of the native bitmap
 * bytes the collector had to free; 400 B (381 MiB) holds the whole loop, for ~+130 MiB of RSS.
 */
const DERIVATION_CACHE_BYTES_PER_DOCUMENT = 400;

/** The derivation cache's budget for a shard of `documentCount` documents. */
export function derivationCacheBytes(documentCount: number): number {
  return Math.max(DERIVATION_CACHE_BYTES, documentCount * DERIVATION_CACHE_BYTES_PER_DOCUMENT);
}
/** Terms without derivations kept whose worth is remembered. */
const DERIVATION_WORTHS_REMEMBERED = 32_768;
/** Work of deriving a term besides its bytes, per derived word (a union over its lists per rank and position). */
const DERIVATION_WORK_PER_WORD = 1024;

const DERIVED_WORDS_CACHE_LIMIT = 65_536;

export class ShardIndex {
  readonly vocabulary = new Vocabulary();
  readonly forward = new ForwardIndex();
  readonly documents = new RoaringBitmap32();
  readonly rankPostings = new TokenKeyPostings(this.vocabulary, this.forward, this.documents, fieldRankKey, RANK_POSTING_LIMIT);
  readonly positionPostings = new TokenKeyPostings(this.vocabulary, this.forward, this.documents, positionKey, POSITION_POSTING_LIMIT);
  readonly nearPairs = new NearPairPostings(this.vocabulary, this.forward, this.documents);
  readonly soleWordFields = new SoleWordFields(this.forward, this.documents);
  readonly fieldStartPairs = new FieldStartPairs(this.forward, this.documents);
  private readonly derivationCache = new WorthPerByteCache<TermDerivations>({
    maxBytes: DERIVATION_CACHE_BYTES, sizeOf: (derivations) => derivationsFootprint(this.vocabulary, derivations),
    maxRemembered: DERIVATION_WORTHS_REMEMBERED,
  });
  /** The lexicon walks' results alone (word ids, no bitmaps): small, so many more are kept. */
  private readonly derivedWordsCache = new LRUCache<string, number[][]>({ max: DERIVED_WORDS_CACHE_LIMIT });
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

  constructor(readonly config: IndexConfig) {
    const faceted = facetedFieldsOf(config.settings);
    this.facets = new FacetStore(faceted.isFaceted, faceted.geo);
    this.hasFacets = !faceted.none;
  }

  get documentCount(): number {
    return this.documents.size;
  }

  /** Indexes the document under docId, replacing what was there. */
  upsert(docId: number, document: Record<string, unknown>): void {
    this.delete(docId);
    // Scratch arrays reused across documents: the forward index copies them into its arena.
    const { fieldRanks, wordIds, fields: fieldOrdinals, positions } = scratch;
    fieldRanks.length = wordIds.length = fieldOrdinals.length = positions.length = 0;
    const exactAttributes = this.config.exactAttributes;
    const vocabulary = this.vocabulary;
    if (exactAttributes.length === 0) {
      // Words interned as the tokenizer meets them (no string per known word).
      analyzeDocumentInto(document, this.config.analysis, vocabulary, scratch);
      for (let k = 0; k < wordIds.length; k++) vocabulary.addDocument(wordIds[k]!, docId);
    } else this.collectWithExactAttributes(docId, document);
    this.rankPostings.invalidateWords(wordIds);
    this.positionPostings.invalidateWords(wordIds);
    this.forward.put(docId, scratch);
    if (this.hasFacets) this.facets.upsert(docId, document);
    this.documents.add(docId);
    this.nearPairs.markChanged(docId);
    this.soleWordFields.markChanged(docId);
    this.fieldStartPairs.markChanged(docId);
    this.clearDerivations();
  }

  /** upsert's tokens when some fields are exactAttributes (their words are interned under a typo-free key). */
  private collectWithExactAttributes(docId: number, document: Record<string, unknown>): void {
    const { fieldRanks, wordIds, fields: fieldOrdinals, positions } = scratch;
    const exactAttributes = this.config.exactAttributes;
    const vocabulary = this.vocabulary;
    const fields = analyzeDocument(document, this.config.analysis);
    for (let ordinal = 0; ordinal < fields.length; ordinal++) {
      const field = fields[ordinal]!;
      fieldRanks.push(field.rank);
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

  /** Applies buffered posting additions (end of a write batch: the lists are read by the next search anyway). */
  flushWrites(): void {
    this.vocabulary.flush();
  }

  /** Removes the document from every posting list; false when it was not there. */
  delete(docId: number): boolean {
    if (!this.documents.has(docId)) return false;
    const wordIds = this.forward.wordIdsOf(docId);
    for (const wordId of wordIds) this.vocabulary.removeDocument(wordId, docId);
    this.rankPostings.invalidateWords(wordIds);
    this.positionPostings.invalidateWords(wordIds);
    this.forward.remove(docId);
    if (this.hasFacets) this.facets.delete(docId);
    this.documents.remove(docId);
    this.nearPairs.markChanged(docId);
    this.soleWordFields.markChanged(docId);
    this.fieldStartPairs.markChanged(docId);
    this.clearDerivations();
    return true;
  }

  /** Releases slack memory after a bulk load, and builds the rank postings at once. */
  trim(): void {
    this.forward.trim();
    this.vocabulary.trim();
    this.rankPostings.buildAll();
    this.positionPostings.buildAll();
  }

  private clearDerivations(): void {
    this.derivationCache.clear();
    if (this.derivedWordsCache.size > 0) this.derivedWordsCache.clear();
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
   * aside and swapped in when done. Any write to the shard must cancel it first. A search needing a
   * structure meanwhile still builds it at once (the slower exact paths without it, reading every
   * document of a universe, cost far more at a million documents than waiting for the build).
   */
  *prepareSteps(): Generator<void, void, unknown> {
    this.flushWrites();
    // A search may build a structure itself meanwhile: its sliced build then stops.
    yield* whileStale(() => this.rankPostings.needsRebuild, this.rankPostings.buildAllSteps());
    yield* whileStale(() => this.positionPostings.needsRebuild, this.positionPostings.buildAllSteps());
    yield* whileStale(() => this.nearPairs.needsBuild, this.nearPairs.buildSteps());
    yield* whileStale(() => this.soleWordFields.needsBuild, this.soleWordFields.buildSteps());
    yield* whileStale(() => this.fieldStartPairs.needsBuild, this.fieldStartPairs.buildSteps());
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
    this.nearPairs.buildsDeferred = deferred;
    this.soleWordFields.buildsDeferred = deferred;
    this.fieldStartPairs.buildsDeferred = deferred;
  }

  /** Whether prepareSteps has anything to build. */
  get needsPreparing(): boolean {
    return this.rankPostings.needsRebuild || this.positionPostings.needsRebuild || this.nearPairs.needsBuild || this.soleWordFields.needsBuild
      || this.fieldStartPairs.needsBuild;
  }

  /** `extraAlternatives`: synonyms the word has as part of a multi-word key (not cached: they depend on the query). */
  /**
   * `split`: with the word's best split in two words of the shard (milli's split words, a one-typo
   * derivation), unless that split is these words (an n-gram's own words: they match as the terms).
   */
  derive(word: string, isPrefix: boolean, budget: number, extraAlternatives: readonly (readonly string[])[] = [],
    split: { unless: readonly string[] } | boolean = true): TermDerivations {
    let derivations = this.cachedDerive(word, isPrefix, budget);
    if (split !== false) {
      // Memoized on the cached derivations (itself when the word has no split), as their other memos.
      let withSplit = derivations.withSplit;
      if (withSplit === undefined) {
        const best = bestSplit(this.vocabulary, word, (wordIds) => this.phraseDocs(wordIds));
        withSplit = best === null ? derivations
          : { ...withAlternatives(derivations, [{ wordIds: best.wordIds, docs: best.docs, typos: 1 }]), splitWordIds: best.wordIds };
        derivations.withSplit = withSplit;
      }
      const unless = split === true ? null : split.unless.map((part) => this.vocabulary.idOf(part));
      if (unless === null || withSplit.splitWordIds === undefined || withSplit.splitWordIds.some((id, k) => id !== unless[k]) || unless.length !== 2) derivations = withSplit;
    }
    if (extraAlternatives.length === 0) return derivations;
    return withSynonyms(this.vocabulary, derivations, extraAlternatives, (wordIds) => this.phraseDocs(wordIds));
  }

  private cachedDerive(word: string, isPrefix: boolean, budget: number): TermDerivations {
    const key = `${isPrefix ? 'p' : 'w'}${budget}${word}`;
    let derivations = this.derivationCache.get(key);
    if (derivations === undefined) {
      let wordIds = this.derivedWordsCache.get(key);
      if (wordIds === undefined) {
        wordIds = deriveWordIds(this.vocabulary, word, isPrefix, budget);
        this.derivedWordsCache.set(key, wordIds);
      }
      derivations = withSynonyms(this.vocabulary, derivationsFromWords(this.vocabulary, word, wordIds, idSpanOf(this.documents)),
        this.config.synonyms.get(word) ?? [], (wordIds) => this.phraseDocs(wordIds));
      const words = derivations.words.length;
      // The budget follows the shard's size (a restored shard never went through upsert).
      this.derivationCache.maxBytes = derivationCacheBytes(this.documents.size);
      this.derivationCache.offer(key, derivations, (bytes) => bytes + DERIVATION_WORK_PER_WORD * words);
    }
    return derivations;
  }

  /** Documents holding the words consecutively. */
  phraseDocs(wordIds: number[]): roaring.RoaringBitmap32 {
    const candidates = wordIds.map((id) => this.vocabulary.docs(id)).reduce((acc, docs) => RoaringBitmap32.and(acc, docs));
    const verified = new RoaringBitmap32();
    for (const docId of candidates) if (documentHasPhrase(this.forward, docId, wordIds)) verified.add(docId);
    return verified;
  }

  search(request: ShardSearchRequest): ShardSearchResult {
    return searchShard(this, request);
  }
}

/** The build's steps while `stale()` holds before each (it is stopped, unfinished, once not). */
function* whileStale(stale: () => boolean, build: Generator<void, void, unknown>): Generator<void, void, unknown> {
  try {
    while (stale()) {
      if (build.next().done) return;
      yield;
    }
  } finally {
    build.return();
  }
}
