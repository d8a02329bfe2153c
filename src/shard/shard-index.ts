// One shard of one index in memory: posting lists, forward index, and the set of its documents.
// Everything here is synchronous and thread-free, so tests and the bench drive it directly.
import roaring from 'roaring';
import { analyzeDocument } from '../analysis/document-tokens.js';
import { selectsField } from '../documents/flatten.js';
import { deriveWord, exactAttributeKey, withSynonyms, type TermDerivations } from './derivations.js';
import { documentHasPhrase } from './match-profile-builder.js';
import { ForwardIndex } from './forward-index.js';
import { FacetStore } from './facet-store.js';
import { facetedFieldsOf } from './faceted-fields.js';
import type { IndexConfig } from './index-config.js';
import { searchShard, type ShardSearchRequest, type ShardSearchResult } from './shard-search.js';
import { Vocabulary } from './vocabulary.js';
import { fieldRankKey, positionKey, TokenKeyPostings } from './token-key-postings.js';

/** Field ranks and positions below these get posting lists (token-key-postings.ts). */
const RANK_POSTING_LIMIT = 16;
const POSITION_POSTING_LIMIT = 4;

const { RoaringBitmap32 } = roaring;

/** Derivations kept per shard between writes; cleared whole when it grows past this. */
const DERIVATION_CACHE_LIMIT = 2048;

export class ShardIndex {
  readonly vocabulary = new Vocabulary();
  readonly forward = new ForwardIndex();
  readonly documents = new RoaringBitmap32();
  readonly rankPostings = new TokenKeyPostings(this.vocabulary, this.forward, this.documents, fieldRankKey, RANK_POSTING_LIMIT);
  readonly positionPostings = new TokenKeyPostings(this.vocabulary, this.forward, this.documents, positionKey, POSITION_POSTING_LIMIT);
  private readonly derivationCache = new Map<string, TermDerivations>();
  /**
   * JSON of the documents upserted by the latest write batch: the scheduler commits them to LMDB only
   * after every shard acknowledged, and a search in between must still be able to show them.
   */
  recentDocuments = new Map<number, string>();
  /** Values of the filterable / sortable / distinct fields (filters, facets, sort). */
  readonly facets: FacetStore;

  constructor(readonly config: IndexConfig) {
    const faceted = facetedFieldsOf(config.settings);
    this.facets = new FacetStore(faceted.isFaceted, faceted.geo);
  }

  get documentCount(): number {
    return this.documents.size;
  }

  /** Indexes the document under docId, replacing what was there. */
  upsert(docId: number, document: Record<string, unknown>): void {
    this.delete(docId);
    const fields = analyzeDocument(document, this.config.analysis);
    const fieldRanks: number[] = [];
    const wordIds: number[] = [];
    const fieldOrdinals: number[] = [];
    const positions: number[] = [];
    const exactAttributes = this.config.exactAttributes;
    fields.forEach((field, ordinal) => {
      fieldRanks.push(field.rank);
      const typoFree = exactAttributes.length > 0 && exactAttributes.some((selector) => selectsField(selector, field.field));
      for (let k = 0; k < field.words.length; k++) {
        const wordId = this.vocabulary.intern(typoFree ? exactAttributeKey(field.words[k]!) : field.words[k]!);
        this.vocabulary.addDocument(wordId, docId);
        this.rankPostings.invalidate(wordId);
        this.positionPostings.invalidate(wordId);
        wordIds.push(wordId);
        fieldOrdinals.push(ordinal);
        positions.push(field.positions[k]!);
      }
    });
    this.forward.put(docId, { fieldRanks, wordIds, fields: fieldOrdinals, positions });
    this.facets.upsert(docId, document);
    this.documents.add(docId);
    this.derivationCache.clear();
  }

  /** Removes the document from every posting list; false when it was not there. */
  delete(docId: number): boolean {
    if (!this.documents.has(docId)) return false;
    for (const wordId of this.forward.wordIdsOf(docId)) {
      this.vocabulary.removeDocument(wordId, docId);
      this.rankPostings.invalidate(wordId);
      this.positionPostings.invalidate(wordId);
    }
    this.forward.remove(docId);
    this.facets.delete(docId);
    this.documents.remove(docId);
    this.derivationCache.clear();
    return true;
  }

  /** Releases slack memory after a bulk load, and builds the rank postings at once. */
  trim(): void {
    this.forward.trim();
    this.vocabulary.trim();
    this.rankPostings.buildAll();
    this.positionPostings.buildAll();
  }

  /** `extraAlternatives`: synonyms the word has as part of a multi-word key (not cached: they depend on the query). */
  derive(word: string, isPrefix: boolean, budget: number, extraAlternatives: readonly (readonly string[])[] = []): TermDerivations {
    const derivations = this.cachedDerive(word, isPrefix, budget);
    if (extraAlternatives.length === 0) return derivations;
    return withSynonyms(this.vocabulary, derivations, extraAlternatives, (wordIds) => this.phraseDocs(wordIds));
  }

  private cachedDerive(word: string, isPrefix: boolean, budget: number): TermDerivations {
    const key = `${isPrefix ? 'p' : 'w'}${budget}${word}`;
    let derivations = this.derivationCache.get(key);
    if (derivations === undefined) {
      if (this.derivationCache.size >= DERIVATION_CACHE_LIMIT) this.derivationCache.clear();
      derivations = withSynonyms(this.vocabulary, deriveWord(this.vocabulary, word, isPrefix, budget),
        this.config.synonyms.get(word) ?? [], (wordIds) => this.phraseDocs(wordIds));
      this.derivationCache.set(key, derivations);
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
