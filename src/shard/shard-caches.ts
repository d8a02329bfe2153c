// Everything one shard caches for its searches between writes, in one object (ShardIndex.caches), with
// ONE place that drops it on a write (clearOnWrite, from ShardIndex.upsert / delete) and one account of
// its bytes (byteSizes). Each cache's entries depend on the words and documents alone, so any write
// may make any of them wrong:
// - term derivations (words/derivations.ts) by word, prefix flag and typo budget, with what is memoized
//   on them (unions by rank / position, word id lists); kept by worth per byte (worth-per-byte-cache.ts);
// - the lexicon walks' results alone (word ids, no bitmaps), many more of them, least recently used out;
// - pair lookup memos (pairs/shared-pair-memos.ts) by the near-pair build's generation and the two
//   terms' derivation objects, bounded by their bitmaps' bytes, least recently used out;
// - the ranking rules' memos over the derivations' lists (ranking/ranking-memos.ts), weak by list.
// The structures a shard derives from its documents and keeps up to date across writes (rank /
// position postings, pair tables, prefix pair tables, sole-word fields, field-start pairs) are not
// caches: they follow writes themselves (markChanged, writeDocument) and stay.
import { LRUCache } from 'lru-cache';
import { derivationsFootprint, type TermDerivations } from './words/derivations.js';
import type { PairLookupMemo } from './pairs/near-pair-postings.js';
import { pairMemoBytes } from './pairs/shared-pair-memos.js';
import { WorthPerByteCache } from './search/worth-per-byte-cache.js';
import { RankingMemos } from '../ranking/ranking-memos.js';
import type { Vocabulary } from './words/vocabulary.js';

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

const DERIVED_WORDS_CACHE_LIMIT = 65_536;

/** Pair lookup memos per shard, by their bitmaps' bytes (pairs/shared-pair-memos.ts). */
const PAIR_MEMO_BYTES = 32 * 2 ** 20;

export class ShardCaches {
  readonly derivations: WorthPerByteCache<TermDerivations>;
  /** The lexicon walks' results alone (word ids, no bitmaps): small, so many more are kept. */
  readonly derivedWords = new LRUCache<string, number[][]>({ max: DERIVED_WORDS_CACHE_LIMIT });
  readonly pairMemos = new LRUCache<string, PairLookupMemo>({ maxSize: PAIR_MEMO_BYTES, sizeCalculation: pairMemoBytes });
  /** The ranking rules' memos (a WeakMap cannot be cleared: replaced whole at a write). */
  rankingMemos = new RankingMemos();
  /** A number per derivation object, for the pair memos' keys (the objects are replaced at any write). */
  private readonly derivationIds = new WeakMap<TermDerivations, number>();
  private nextDerivationId = 0;

  constructor(vocabulary: Vocabulary) {
    this.derivations = new WorthPerByteCache<TermDerivations>({
      maxBytes: DERIVATION_CACHE_BYTES, sizeOf: (derivations) => derivationsFootprint(vocabulary, derivations),
      maxRemembered: DERIVATION_WORTHS_REMEMBERED,
    });
  }

  /** A write changed the shard's words or documents: nothing cached may be used again. */
  clearOnWrite(): void {
    this.derivations.clear();
    if (this.derivedWords.size > 0) this.derivedWords.clear();
    if (this.pairMemos.size > 0) this.pairMemos.clear();
    this.rankingMemos = new RankingMemos();
  }

  derivationId(derivations: TermDerivations): number {
    let id = this.derivationIds.get(derivations);
    if (id === undefined) this.derivationIds.set(derivations, (id = this.nextDerivationId++));
    return id;
  }

  /** Bytes held per cache (the lexicon walks' entries are counted, not measured: word id arrays). */
  byteSizes(): { derivations: number; pairMemos: number; derivedWordsEntries: number } {
    return { derivations: this.derivations.byteLength, pairMemos: this.pairMemos.calculatedSize, derivedWordsEntries: this.derivedWords.size };
  }
}
