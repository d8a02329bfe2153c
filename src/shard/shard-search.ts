// One search on one shard: parse q, find each term's documents, then bucket-sort the matching
// documents with the index's ranking rules. Placeholder search lists documents by ascending id.
import roaring from 'roaring';
import type { MatchingStrategyName } from '../protocol/messages.js';
import { parseQuery } from '../query/parse-query.js';
import type { QueryTerm } from '../query/query-term.js';
import { typoBudget } from '../query/typo-budget.js';
import { bucketSort, type RankedHit } from '../ranking/bucket-sort.js';
import type { DocMatchProfile } from '../ranking/match-profile.js';
import { rulesFor } from '../ranking/rules-from-settings.js';
import type { SearchContext } from '../ranking/search-context.js';
import { docsMatchingAll, termRemovalSteps } from '../ranking/words.js';
import { buildProfile, documentHasPhrase, fieldWordCount, WordLookup, type PhraseOfTerm } from './match-profile-builder.js';
import type { ShardIndex } from './shard-index.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export interface ShardSearchRequest {
  /** null or empty: placeholder search. */
  q: string | null;
  hitsWanted: number;
  matchingStrategy: MatchingStrategyName;
  /** Milliseconds timestamp; default now + the index's searchCutoffMs (1500 ms when unset). */
  deadline?: number;
  /** The query's sort parameter (SEAM: the sort rule does not reorder yet). */
  sort?: readonly string[] | null;
  /** SEAM for filters: when set, only these documents can match. */
  restrictTo?: RoaringBitmap32 | null;
}

export interface ShardSearchResult {
  /** Documents matching the query (exact count). */
  candidates: number;
  hits: RankedHit[];
}

export function searchShard(shard: ShardIndex, request: ShardSearchRequest): ShardSearchResult {
  const config = shard.config;
  const deadline = request.deadline ?? Date.now() + config.searchCutoffMs;
  const terms = request.q ? parseQuery(request.q, { stopWords: config.stopWords, prefixSearch: config.prefixSearch }) : [];
  const placeholder = terms.length === 0;
  const rules = rulesFor({
    rankingRules: config.settings.rankingRules,
    placeholder,
    matchingStrategy: request.matchingStrategy,
    sort: request.sort ?? null,
  });
  const ctx = new ShardSearchContext(shard, terms, deadline);
  const allTerms = terms.map((_, index) => index);
  let universe: RoaringBitmap32;
  if (placeholder) {
    universe = shard.documents.clone();
  } else {
    const steps = termRemovalSteps(ctx, allTerms, request.matchingStrategy);
    universe = docsMatchingAll(ctx, steps[steps.length - 1]!);
  }
  if (request.restrictTo) universe.andInPlace(request.restrictTo);
  const hits = bucketSort(ctx, rules, universe, allTerms, request.hitsWanted);
  return { candidates: universe.size, hits };
}

class ShardSearchContext implements SearchContext {
  private readonly docs: RoaringBitmap32[] = [];
  private readonly docsByTypo: RoaringBitmap32[][] = [];
  private readonly words: WordLookup;
  private readonly scratch: DocMatchProfile;
  private readonly phrases: PhraseOfTerm[] = [];

  constructor(private readonly shard: ShardIndex, readonly terms: readonly QueryTerm[], readonly deadline: number) {
    this.words = new WordLookup(terms.length === 0 ? 0 : shard.vocabulary.size);
    this.scratch = { docId: -1, occurrences: terms.map(() => []) };
    terms.forEach((term, index) => (term.kind === 'word' ? this.matchWord(index, term.word, term.isPrefix) : this.matchPhrase(index, term.words)));
  }

  termDocs(term: number): RoaringBitmap32 {
    return this.docs[term]!;
  }

  termDocsByTypo(term: number): readonly RoaringBitmap32[] {
    return this.docsByTypo[term]!;
  }

  /** Not cached, and reused: valid until the next call (the bucket sort reads each document once per run of scoring rules). */
  profile(docId: number): DocMatchProfile {
    return buildProfile(this.shard.forward, docId, this.words, this.phrases, this.scratch);
  }

  fieldWordCount(docId: number, field: number): number {
    return fieldWordCount(this.shard.forward, docId, field);
  }

  private matchWord(term: number, word: string, isPrefix: boolean): void {
    const derivations = this.shard.derive(word, isPrefix, typoBudget(word, this.shard.config.typoPolicy));
    this.docs[term] = derivations.docs;
    this.docsByTypo[term] = derivations.docsByTypo;
    for (const derivation of derivations.words) {
      this.words.add(derivation.wordId, term, derivation.typos, derivation.exact);
    }
  }

  private matchPhrase(term: number, words: readonly (string | null)[]): void {
    const vocabulary = this.shard.vocabulary;
    const wordIds = words.map((word) => (word === null ? null : vocabulary.idOf(word) ?? -1));
    let docs = new RoaringBitmap32();
    if (!wordIds.includes(-1)) {
      const postings = wordIds.filter((id): id is number => id !== null).map((id) => vocabulary.docs(id));
      docs = postings.reduce((acc, posting) => RoaringBitmap32.and(acc, posting));
      const verified = new RoaringBitmap32();
      for (const docId of docs) if (documentHasPhrase(this.shard.forward, docId, wordIds)) verified.add(docId);
      docs = verified;
    }
    this.docs[term] = docs;
    this.docsByTypo[term] = [docs, new RoaringBitmap32(), new RoaringBitmap32()];
    if (!wordIds.includes(-1)) this.phrases.push({ term, wordIds });
  }
}
