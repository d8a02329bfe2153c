// Everything one shard caches for its searches between writes, in one object (ShardIndex.caches), with
// one account of what writes changed since an entry was made (noteWrite, noteAppeared, holds) and one
// of its bytes (byteSizes). Each cache's entries depend on some words alone: their documents, and
// which words the lexicon walk would take (a word counts once it has documents):
// - term derivations (words/derivations.ts) by word, prefix flag and typo budget, with what is memoized
//   on them (unions by rank / position, word id lists, the word's split, its last n-gram combinations:
//   words/derivations.ts withNgrams, whose bytes the footprint does not count); kept by worth per byte
//   (worth-per-byte-cache.ts);
// - the lexicon walks' results alone (word ids, no bitmaps), many more of them, least recently used out;
//   a large write batch drops everything else whole but these and the held derivations' walks (dropKeepingWalks);
// - pair lookup memos (pairs/shared-pair-memos.ts) by the near-pair build's generation and the two
//   terms' derivation objects, bounded by their bitmaps' bytes, least recently used out.
// An entry is checked when read (ShardIndex.cachedDerive) against the writes after it was stamped: it
// went stale when a document written since holds or held one of its words, or a word it could take
// got its first documents (new words, or words emptied once); a stale entry is dropped and derived
// again, never answered. A pair memo is found only through its two derivation objects, so it lives as
// long as both hold. Writes touching other words leave the entries as they are.
// - the ranking rules' memos over the derivations' lists (ranking/ranking-memos.ts), weak by list,
//   replaced whole at any write (rankingMemos);
// - the derivations let go of (evicted, stale, dropped whole), until their own bitmaps (unions made for
//   them alone, TermDerivations.owned, and those of their n-gram combinations) are freed at the worker's
//   top level in slices (releaseRetired).
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
import { LexiconListMemos, mergeSorted } from './words/lexicon.js';
import { wordHash } from '../analysis/word-hash.js';

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
/**
 * Derivations kept per shard at most, whatever their bytes: each is ~15-20 objects in the old
 * generation (words, bitmaps, memos, key), and small ones (a rare word's derivations cost ~300 bytes of
 * the budget) could fill 128 MiB with ~450,000 entries, several million objects the collector marks at
 * each full collection. 100k npm rows and 60,000 of the bench's queries derive ~72,000 terms.
 */
const DERIVATION_CACHE_ENTRIES = 65_536;
/** Terms without derivations kept whose worth is remembered. */
const DERIVATION_WORTHS_REMEMBERED = 32_768;

const DERIVED_WORDS_CACHE_LIMIT = 65_536;
/** The walks kept across large batches' drops (dropKeepingWalks) at most. */
const DROPPED_WALKS_LIMIT = 65_536;

/**
 * Words that got their first documents logged at most, then every entry is dropped (a bulk load
 * interns most of its words: checking each entry against them would cost more than deriving again).
 */
const APPEARED_LOG_LIMIT = 65_536;

/**
 * Runs of appeared words an entry is checked against at most (ShardCaches.holds): one is cut at each
 * check that finds new words (under writes, every write slice), and an entry of a term not asked
 * for this long is derived again instead of being walked against them all (with every run kept, the
 * checks of rarely asked terms grew until searches under writes were slower than dropping everything).
 */
const RUNS_CHECKED = 8;

/** When an entry was made or last found to hold (ShardCaches.holds): the writes counted and the appearance log's length then. */
export interface CacheStamp {
  writes: number;
  appeared: number;
}

/**
 * A lexicon walk's result: its word ids with 0, 1 and 2 typos, one after the other in one array of
 * small integers ([0, oneTypo), [oneTypo, twoTypos), [twoTypos, end)), and its stamp's fields held
 * inline: tens of thousands are kept, and a walk as arrays of arrays plus a stamp object was ~9 objects
 * the collector marks (and copies when made) where this is 3 (a typed array would add a buffer the
 * collector sweeps).
 */
export interface WalkedWords extends CacheStamp {
  readonly ids: readonly number[];
  readonly oneTypo: number;
  readonly twoTypos: number;
}

/** A walk's word ids by typo count packed with its stamp. */
export function packWalk(byTypo: readonly (readonly number[])[], at: CacheStamp): WalkedWords {
  const [exact = [], oneTypo = [], twoTypos = []] = byTypo;
  return { ids: [...exact, ...oneTypo, ...twoTypos], oneTypo: exact.length, twoTypos: exact.length + oneTypo.length, writes: at.writes, appeared: at.appeared };
}

/** The walk's word ids by typo count (what derivationsFromWords takes). */
export function walkByTypo(walk: WalkedWords): number[][] {
  const { ids, oneTypo, twoTypos } = walk;
  return [ids.slice(0, oneTypo), ids.slice(oneTypo, twoTypos), ids.slice(twoTypos)];
}

/**
 * The derivation cache's doorkeeper (ShardCaches.seenBefore): a term's derivations are offered to the
 * cache (and its walk kept) from its second miss on, as TinyLFU's doorkeeper. Under unique queries
 * most terms are asked once (n-grams of two query words, one-typo words, rare words), and each one kept
 * was ~20 objects promoted to the old generation, plus admission passes once the cache was full: 60,000
 * of the npm bench's queries at 100,000 documents promoted 118 -> 77 MB, allocated 3.19 -> 2.79 GB, and
 * left a 183 -> 103 MB heap, at the same CPU per query. Slots (4 bytes each): one per two documents of
 * the shard, a power of two within these bounds, made on the first miss.
 */
const DOORKEEPER_MIN_SLOTS = 1 << 12;
const DOORKEEPER_MAX_SLOTS = 1 << 16;

/**
 * Derivations waiting for their own bitmaps to be freed at most (releaseRetired); older ones are left to
 * the collector. A write batch of 1,000 npm rows drops the whole cache (~19,000 derivations, ~100,000
 * bitmaps at 100k rows), which the next full collection finalized inside its pause: roaring frees a
 * dead bitmap's native memory in a V8 weak callback, `heap.external.weak_global_handles` in
 * --trace-gc-nvp, 140-240 ms of pauses of 190-310 ms under writes.
 */
const RETIRED_LIMIT = 2 * DERIVATION_CACHE_ENTRIES;
/** Bitmaps freed between two looks at the clock (releaseRetired). */
const RELEASES_PER_CLOCK = 64;

/** Pair lookup memos per shard, by their bitmaps' bytes (pairs/shared-pair-memos.ts). */
const PAIR_MEMO_BYTES = 32 * 2 ** 20;

export class ShardCaches {
  readonly derivations: WorthPerByteCache<TermDerivations>;
  /**
   * The lexicon walks' results alone (word ids, no bitmaps) of derivations this cache refused or dropped:
   * small, so many more are kept (a held derivation carries its own walk, TermDerivations.walk).
   */
  readonly derivedWords = new LRUCache<string, WalkedWords>({ max: DERIVED_WORDS_CACHE_LIMIT });
  /**
   * The walks of the derivations the large batches' drops let go of (dropKeepingWalks), each taken out when
   * its term is next derived (walkOf); at most DROPPED_WALKS_LIMIT, the latest drop's first.
   */
  private droppedWalks = new Map<string, WalkedWords>();

  /** The walk kept for the cache key (the walks' cache, else the last drop's), unchecked: ShardIndex.cachedDerive checks it (holds). */
  walkOf(key: string): WalkedWords | undefined {
    const walk = this.derivedWords.get(key);
    if (walk !== undefined || this.droppedWalks.size === 0) return walk;
    const dropped = this.droppedWalks.get(key);
    if (dropped !== undefined) this.droppedWalks.delete(key);
    return dropped;
  }

  /** Walks kept apart from the held derivations (tests). */
  get walksKept(): number {
    return this.derivedWords.size + this.droppedWalks.size;
  }
  readonly pairMemos = new LRUCache<string, PairLookupMemo>({ maxSize: PAIR_MEMO_BYTES, sizeCalculation: pairMemoBytes });
  /** The ranking rules' memos (a WeakMap cannot be cleared: dropped whole at any write, made again when next asked for). */
  private memos: RankingMemos | null = null;
  get rankingMemos(): RankingMemos {
    return (this.memos ??= new RankingMemos());
  }
  /**
   * Hashes of the keys missed once (seenBefore), one per slot: a collision forgets the older key (it is
   * offered one miss later). Kept by clear(): which terms come back does not change with the documents.
   */
  private doorkeeper: Int32Array | null = null;
  /** The next number for a derivation object, for the pair memos' keys (the objects are replaced when they go stale). */
  private nextDerivationId = 0;

  constructor(private readonly vocabulary: Vocabulary) {
    this.derivations = new WorthPerByteCache<TermDerivations>({
      maxBytes: DERIVATION_CACHE_BYTES, sizeOf: (derivations) => derivationsFootprint(vocabulary, derivations),
      maxRemembered: DERIVATION_WORTHS_REMEMBERED, maxEntries: DERIVATION_CACHE_ENTRIES,
      onLeave: (derivations) => this.retire(derivations),
    });
  }

  /**
   * Derivations the cache let go of, oldest first from `retiredStart`: their own bitmaps are freed by
   * releaseRetired. A search running when they left may still read them (a nested search's admission
   * evicts what its caller holds): only the worker's top level, with no search on its stack, frees them.
   */
  private retired: TermDerivations[] = [];
  private retiredStart = 0;

  private retire(derivations: TermDerivations): void {
    if (derivations.owned === undefined && derivations.withSplit?.owned === undefined
      && derivations.withNgrams === undefined && derivations.withSplit?.withNgrams === undefined) return;
    this.retired.push(derivations);
    if (this.retired.length - this.retiredStart > RETIRED_LIMIT) this.retired[this.retiredStart++] = undefined as unknown as TermDerivations;
  }

  /** Derivations whose bitmaps wait to be freed. */
  get retiredCount(): number {
    return this.retired.length - this.retiredStart;
  }

  /**
   * Frees the native memory of the retired derivations' own bitmaps (RoaringBitmap32#clear) until
   * `deadline` (performance.now()) or none is left; the objects left then cost the collector little.
   * Only with no search running on this thread (worker.ts, before a top-level query batch; see `retired`).
   * Whether some are left.
   */
  releaseRetired(deadline: number): boolean {
    const retired = this.retired;
    let sinceClock = 0;
    while (this.retiredStart < retired.length) {
      const derivations = retired[this.retiredStart]!;
      retired[this.retiredStart++] = undefined as unknown as TermDerivations;
      sinceClock += releaseWithCombinations(derivations);
      if (derivations.withSplit !== undefined && derivations.withSplit !== derivations) sinceClock += releaseWithCombinations(derivations.withSplit);
      if (sinceClock >= RELEASES_PER_CLOCK) {
        sinceClock = 0;
        if (performance.now() >= deadline) break;
      }
    }
    if (this.retiredStart === retired.length) {
      this.retired = [];
      this.retiredStart = 0;
    } else if (this.retiredStart > 4096 && this.retiredStart * 2 > retired.length) {
      this.retired = retired.slice(this.retiredStart);
      this.retiredStart = 0;
    }
    return this.retiredStart < this.retired.length;
  }

  /** A large batch's drop keeps the lexicon walks (dropKeepingWalks), else drops everything (clear). */
  keepWalks = true;
  /** Runs of appeared words older than RUNS_CHECKED are merged into one instead of failing the entries stamped before them (holds). */
  mergeOldRuns = true;

  /** Documents written (upserted or deleted) so far: each write a step. */
  private writes = 0;
  /** By word id: `writes` at the latest write of a document holding (or having held) the word; 0: none since start. */
  private lastWritten = new Uint32Array(1024);
  /** Words whose posting list went from empty to not since the log was last emptied, in order. */
  private appeared: string[] = [];
  /** Log positions dropped before `appeared[0]` (a position is absolute: appearedBefore + index). */
  private appearedBefore = 0;
  /**
   * The log cut into runs, each sorted once (when an entry is next checked), so an entry is checked
   * against a run by a walk (prefix range, typo walk) instead of word by word: [start, end) absolute.
   */
  private runs: { start: number; end: number; sorted: string[] }[] = [];
  /**
   * The runs' words packed for the typo walks that check entries against them (mayDeriveAny), weak by
   * run (so as long as the run is kept, ≤ 2 * RUNS_CHECKED), and those walks' scratch: packed again per
   * check, a run of a write slice's new words cost more than the walk over it once walks outlived whole drops.
   */
  private readonly runMemos = new LexiconListMemos();

  /**
   * A document holding (or having held) these words was written: entries stamped before may no longer
   * hold (ShardIndex.noteWrite, for every upsert and delete, before any search reads the caches again).
   */
  noteWrite(wordIds: readonly number[]): void {
    this.memos = null;
    const writes = ++this.writes;
    let lastWritten = this.lastWritten;
    for (let k = 0; k < wordIds.length; k++) {
      const wordId = wordIds[k]!;
      if (wordId >= lastWritten.length) {
        const grown = new Uint32Array(Math.max(wordId + 1, lastWritten.length * 2));
        grown.set(lastWritten);
        this.lastWritten = lastWritten = grown;
      }
      lastWritten[wordId] = writes;
    }
  }

  /**
   * The word's posting list just got its first document (vocabulary.ts, when additions are applied):
   * an entry's walk may now take it. Logged only while some entry could care; a long log drops all.
   */
  noteAppeared(wordId: number): void {
    if (this.derivations.size === 0 && this.walksKept === 0) {
      this.forgetAppeared();
      return;
    }
    this.appeared.push(this.vocabulary.wordOf(wordId));
    if (this.appeared.length > APPEARED_LOG_LIMIT) this.clear();
  }

  /** What a new entry is checked against later (take it after the vocabulary's buffered additions were applied). */
  stamp(): CacheStamp {
    return { writes: this.writes, appeared: this.appearedBefore + this.appeared.length };
  }

  /**
   * Whether an entry stamped `at` still holds, and if so stamps it anew: none of `words` (its words)
   * was written since, unless `changed(wordId)` says that write does not matter to it, and no run of
   * words appeared since holds one it `mayTake` (a run begun before the stamp counts whole: a superset).
   * The vocabulary's buffered additions must be applied first.
   */
  holds(at: CacheStamp, words: readonly { readonly wordId: number }[] | readonly number[], changed: ((wordId: number) => boolean) | null,
    mayTake: (sorted: readonly string[], memos: LexiconListMemos) => boolean): boolean {
    const logEnd = this.appearedBefore + this.appeared.length;
    if (at.writes === this.writes && at.appeared === logEnd) return true;
    if (at.appeared < this.appearedBefore) return false;
    const since = at.writes;
    if (since !== this.writes) {
      const lastWritten = this.lastWritten;
      for (let k = 0; k < words.length; k++) {
        const word = words[k]!;
        const wordId = typeof word === 'number' ? word : word.wordId;
        if (wordId < lastWritten.length && lastWritten[wordId]! > since && (changed === null || changed(wordId))) return false;
      }
    }
    if (at.appeared !== logEnd) {
      const runs = this.runs;
      const sealed = runs.length === 0 ? this.appearedBefore : runs[runs.length - 1]!.end;
      if (sealed < logEnd) {
        runs.push({ start: sealed, end: logEnd, sorted: this.appeared.slice(sealed - this.appearedBefore).sort() });
        if (runs.length > 2 * RUNS_CHECKED && this.mergeOldRuns) {
          // The older runs become one (sorted by merging): an entry is walked against at most 2 * RUNS_CHECKED
          // runs however long ago it was stamped (a walk over a run costs little more for a larger run: packed
          // once, runMemos); APPEARED_LOG_LIMIT still bounds the log.
          const older = runs.splice(0, runs.length - RUNS_CHECKED + 1);
          runs.unshift({ start: older[0]!.start, end: older[older.length - 1]!.end, sorted: older.map((run) => run.sorted).reduce(mergeSorted) });
        } else if (runs.length > 2 * RUNS_CHECKED) {
          runs.splice(0, runs.length - RUNS_CHECKED);
          // No entry stamped before the oldest run left holds any more: the log before it goes (walks kept
          // across whole drops keep the log going, which would otherwise reach APPEARED_LOG_LIMIT and drop them all).
          const cut = runs[0]!.start - this.appearedBefore;
          if (cut > 0) {
            this.appeared = this.appeared.slice(cut);
            this.appearedBefore += cut;
          }
        }
      }
      // Without mergeOldRuns, an entry more runs behind is derived again rather than checked (it was not asked meanwhile).
      const from = this.mergeOldRuns ? 0 : runs.length - RUNS_CHECKED;
      let k = runs.length - 1;
      for (; k >= 0 && runs[k]!.end > at.appeared; k--) if (k < from || mayTake(runs[k]!.sorted, this.runMemos)) return false;
      if (k < 0 && at.appeared < (runs.length === 0 ? logEnd : runs[0]!.start)) return false;
    }
    at.writes = this.writes;
    at.appeared = logEnd;
    return true;
  }

  /** Whether the word was written since the stamp (with `holds`' preconditions). */
  /** Whether any word was written since `at` (when not, writtenSince is false for every word). */
  anyWrittenSince(at: CacheStamp): boolean {
    return this.writes > at.writes;
  }

  writtenSince(at: CacheStamp, wordId: number): boolean {
    return wordId < this.lastWritten.length && this.lastWritten[wordId]! > at.writes;
  }

  /**
   * Whether the derivation cache's key missed before (and its slot still tells): derivations are offered
   * to the cache from their second miss on (see DOORKEEPER_MIN_SLOTS). A key's first miss is noted. Two keys
   * sharing a slot forget each other (one is offered a miss late); sharing a hash, one looks seen (it is
   * offered a miss early, as every key was before). `documentCount`: the shard's, for the table's size.
   */
  seenBefore(key: string, documentCount: number): boolean {
    let slots = DOORKEEPER_MIN_SLOTS;
    while (slots < DOORKEEPER_MAX_SLOTS && slots * 2 < documentCount) slots *= 2;
    let table = this.doorkeeper;
    // Made (or grown with the shard, forgetting what it held) on a miss.
    if (table === null || table.length < slots) this.doorkeeper = table = new Int32Array(slots);
    const hash = wordHash(key) | 1;
    const slot = (hash >>> 16 ^ hash) & (table.length - 1);
    if (table[slot] === hash) return true;
    table[slot] = hash;
    return false;
  }

  /**
   * Drops every entry but the lexicon walks (a large write batch: ShardEngine.writeBatch), which are kept with
   * the appearance log and checked when next read as ever (ShardCaches.holds: a word of the walk emptied, or a
   * word it could take appeared): a batch of 1,000 npm rows left most walks as they were, and walking the
   * lexicon again for every hot term after each batch was a third of the searches' extra CPU under writes.
   * A held derivation's walk is kept (droppedWalks) stamped as the derivation was last found to hold (its
   * words are a superset of the walk's, checked more strictly: so the walk held then too).
   */
  dropKeepingWalks(): void {
    // A plain map, not the walks' LRU: setting ~19,000 entries there (100k npm rows) cost ~13 µs per document of the batch.
    // The earlier drops' walks not asked for since stay (under writes every second, a term asked less often lost its
    // walk and was walked again), up to DROPPED_WALKS_LIMIT, the oldest out first (a Map iterates in insertion order).
    const walks = this.droppedWalks;
    for (const [key, derivations] of this.derivations.entries()) {
      const walk = derivations.walk;
      if (walk === undefined) continue;
      walk.writes = derivations.cachedAt!.writes;
      walk.appeared = derivations.cachedAt!.appeared;
      walks.delete(key);
      walks.set(key, walk);
    }
    if (walks.size > DROPPED_WALKS_LIMIT) {
      for (const key of walks.keys()) {
        walks.delete(key);
        if (walks.size <= DROPPED_WALKS_LIMIT) break;
      }
    }
    this.derivations.clear();
    if (this.pairMemos.size > 0) this.pairMemos.clear();
    this.memos = null;
  }

  /** Drops every entry (the settings changed, the appearance log grew long, or a large write batch: ShardEngine.writeBatch). */
  clear(): void {
    this.derivations.clear();
    if (this.derivedWords.size > 0) this.derivedWords.clear();
    if (this.droppedWalks.size > 0) this.droppedWalks = new Map();
    if (this.pairMemos.size > 0) this.pairMemos.clear();
    this.memos = null;
    this.forgetAppeared();
  }

  /** Empties the appearance log: only when no entry is left that was stamped before its end. */
  private forgetAppeared(): void {
    this.appearedBefore += this.appeared.length;
    this.appeared = [];
    this.runs = [];
  }

  /** The derivation object's number, kept on it (a WeakMap by object made the collector's marking walk its entries as ephemerons). */
  derivationId(derivations: TermDerivations): number {
    return (derivations.memoId ??= this.nextDerivationId++);
  }

  /** Bytes held per cache (the lexicon walks are counted, not measured: those of refused derivations and those kept with the held ones). */
  byteSizes(): { derivations: number; pairMemos: number; derivedWordsEntries: number; retiredEntries: number } {
    let walks = this.walksKept;
    for (const derivations of this.derivations.values()) if (derivations.walk !== undefined) walks++;
    return { derivations: this.derivations.byteLength, pairMemos: this.pairMemos.calculatedSize, derivedWordsEntries: walks, retiredEntries: this.retiredCount };
  }
}

/** Frees the derivations' own bitmaps (TermDerivations.owned), left empty; how many. */
/** releaseOwned of the derivations and of their memoized n-gram combinations (words/derivations.ts withNgrams), theirs alone. */
function releaseWithCombinations(derivations: TermDerivations): number {
  let released = releaseOwned(derivations);
  for (const { derivations: combination } of derivations.withNgrams ?? []) if (combination !== derivations) released += releaseOwned(combination);
  return released;
}

function releaseOwned(derivations: TermDerivations): number {
  const owned = derivations.owned;
  if (owned === undefined) return 0;
  derivations.owned = undefined;
  for (let k = 0; k < owned.length; k++) {
    const bitmap = owned[k]!;
    if (!bitmap.isFrozen) bitmap.clear();
  }
  return owned.length;
}
