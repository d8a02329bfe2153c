// Everything one shard caches for its searches between writes, in one object (ShardIndex.caches), with
// one account of what writes changed since an entry was made (noteWrite, noteAppeared, holds) and one
// of its bytes (byteSizes). Each cache's entries depend on some words alone: their documents, and
// which words the lexicon walk would take (a word counts once it has documents):
// - term derivations (words/derivations.ts) by word, prefix flag and typo budget, with what is memoized
//   on them (unions by rank / position, word id lists, the word's split); kept by worth per byte
//   (worth-per-byte-cache.ts);
// - the lexicon walks' results alone (word ids, no bitmaps), many more of them, least recently used out;
// - pair lookup memos (pairs/shared-pair-memos.ts) by the near-pair build's generation and the two
//   terms' derivation objects, bounded by their bitmaps' bytes, least recently used out.
// An entry is checked when read (ShardIndex.cachedDerive) against the writes after it was stamped: it
// went stale when a document written since holds or held one of its words, or a word it could take
// got its first documents (new words, or words emptied once); a stale entry is dropped and derived
// again, never answered. A pair memo is found only through its two derivation objects, so it lives as
// long as both hold. Writes touching other words leave the entries as they are.
// - the ranking rules' memos over the derivations' lists (ranking/ranking-memos.ts), weak by list,
//   replaced whole at any write (rankingMemos).
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
import { LexiconListMemos } from './words/lexicon.js';
import roaring from 'roaring';

type RoaringBitmap32 = roaring.RoaringBitmap32;
const { RoaringBitmap32 } = roaring;

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

/**
 * Words that got their first documents kept in the log at most (ShardCaches.holds): past it the oldest
 * runs go, and the entries stamped before them are derived again when next read (a bulk load interns
 * most of its words: checking entries against them all would cost more than deriving again).
 */
const APPEARED_LOG_LIMIT = 65_536;

/**
 * Runs of appeared words the log is cut into at most: one is cut at each check that finds new words
 * (under writes, every write slice: a batch of 1,000 npm rows made ~9), and past this many the two
 * oldest are merged, so an entry is checked against at most this many sorted runs however long ago it
 * was stamped. (Entries more than 8 runs behind used to be derived again: after each batch of 1,000
 * rows, every entry not read during it; with the cost of the checks below that was every cache entry.)
 */
const RUNS_CHECKED = 8;

/**
 * Documents written kept in the log at most (writtenDocsSince): past it the older half goes, and
 * entries stamped before it are derived again instead of patched.
 */
const DOC_LOG_LIMIT = 1 << 16;

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

/** Pair lookup memos per shard, by their bitmaps' bytes (pairs/shared-pair-memos.ts). */
const PAIR_MEMO_BYTES = 32 * 2 ** 20;

export class ShardCaches {
  readonly derivations: WorthPerByteCache<TermDerivations>;
  /**
   * The lexicon walks' results alone (word ids, no bitmaps) of derivations this cache refused or dropped:
   * small, so many more are kept (a held derivation carries its own walk, TermDerivations.walk).
   */
  readonly derivedWords = new LRUCache<string, WalkedWords>({ max: DERIVED_WORDS_CACHE_LIMIT });
  readonly pairMemos = new LRUCache<string, PairLookupMemo>({ maxSize: PAIR_MEMO_BYTES, sizeCalculation: pairMemoBytes });
  /** The ranking rules' memos (a WeakMap cannot be cleared: dropped whole at any write, made again when next asked for). */
  private memos: RankingMemos | null = null;
  get rankingMemos(): RankingMemos {
    return (this.memos ??= new RankingMemos());
  }
  /** The next number for a derivation object, for the pair memos' keys (the objects are replaced when they go stale). */
  private nextDerivationId = 0;

  constructor(private readonly vocabulary: Vocabulary) {
    this.derivations = new WorthPerByteCache<TermDerivations>({
      maxBytes: DERIVATION_CACHE_BYTES, sizeOf: (derivations) => derivationsFootprint(vocabulary, derivations),
      maxRemembered: DERIVATION_WORTHS_REMEMBERED, maxEntries: DERIVATION_CACHE_ENTRIES,
    });
  }

  /** Documents written (upserted or deleted) so far: each write a step. */
  private writes = 0;
  /** By word id: `writes` at the latest write of a document holding (or having held) the word; 0: none since start. */
  private lastWritten = new Uint32Array(1024);
  /** Words whose posting list went from empty to not since the last run was cut (runs), in order. */
  private appeared: string[] = [];
  /** Log positions dropped before the first run (a position is absolute: the count of words logged before it). */
  private appearedBefore = 0;
  /**
   * The log cut into runs, each sorted once (when an entry is next checked), so an entry is checked
   * against a run by a walk (prefix range, typo walk) instead of word by word: [start, end) absolute;
   * `appeared` follows the last run.
   */
  private runs: { start: number; end: number; sorted: string[] }[] = [];
  /** Words in the runs. */
  private runWords = 0;
  /** The runs' packed words for the typo walks (weak by run: a check walked each run packed anew, ~100 µs an entry under writes). */
  readonly runMemos = new LexiconListMemos();

  /** The documents written, by write (the one numbered docLogBase + 1 + k at k), for the patches of stale entries (writtenDocsSince). */
  private docLog = new Uint32Array(1024);
  private docLogLength = 0;
  private docLogBase = 0;
  /** The latest writtenDocsSince answer: the entries stale after a write batch all ask for the same documents. */
  private writtenMemo: { since: number; until: number; docs: RoaringBitmap32 } | null = null;

  /**
   * The document `docId` holding (or having held) these words was written: entries stamped before may no longer
   * hold (ShardIndex.noteWrite, for every upsert and delete, before any search reads the caches again).
   */
  noteWrite(wordIds: readonly number[], docId: number): void {
    this.memos = null;
    this.logDocument(docId);
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
    if (this.derivations.size === 0 && this.derivedWords.size === 0) {
      this.forgetAppeared();
      return;
    }
    this.appeared.push(this.vocabulary.wordOf(wordId));
    if (this.appeared.length > APPEARED_LOG_LIMIT) this.clear();
    else if (this.runWords + this.appeared.length > APPEARED_LOG_LIMIT) this.dropOldRuns();
  }

  /** The end of the runs (where `appeared` starts). */
  private get sealed(): number {
    return this.runs.length === 0 ? this.appearedBefore : this.runs[this.runs.length - 1]!.end;
  }

  /** Drops the oldest runs until the log holds half its limit: the entries stamped before them are derived again. */
  private dropOldRuns(): void {
    const runs = this.runs;
    let k = 0;
    while (k < runs.length && this.runWords + this.appeared.length > APPEARED_LOG_LIMIT / 2) this.runWords -= runs[k++]!.sorted.length;
    if (k === 0) return;
    this.appearedBefore = runs[k - 1]!.end;
    runs.splice(0, k);
  }

  /** What a new entry is checked against later (take it after the vocabulary's buffered additions were applied). */
  stamp(): CacheStamp {
    return { writes: this.writes, appeared: this.sealed + this.appeared.length };
  }

  /**
   * Whether an entry stamped `at` still holds, and if so stamps it anew: none of `words` (its words)
   * was written since, unless `changed(wordId)` says that write does not matter to it, and no run of
   * words appeared since holds one it `mayTake` (a run begun before the stamp counts whole: a superset).
   * The vocabulary's buffered additions must be applied first.
   */
  holds(at: CacheStamp, words: readonly { readonly wordId: number }[] | readonly number[], changed: ((wordId: number) => boolean) | null,
    mayTake: (sorted: readonly string[], memos: LexiconListMemos) => boolean): boolean {
    const logEnd = this.sealed + this.appeared.length;
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
      if (this.appeared.length > 0) this.sealRun();
      const runs = this.runs;
      for (let k = runs.length - 1; k >= 0 && runs[k]!.end > at.appeared; k--) if (mayTake(runs[k]!.sorted, this.runMemos)) return false;
    }
    at.writes = this.writes;
    at.appeared = logEnd;
    return true;
  }

  /** The appeared words not in a run yet become one (sorted once); past RUNS_CHECKED runs the two oldest are merged. */
  private sealRun(): void {
    const runs = this.runs;
    const start = this.sealed;
    const sorted = this.appeared.sort();
    runs.push({ start, end: start + sorted.length, sorted });
    this.runWords += sorted.length;
    this.appeared = [];
    while (runs.length > RUNS_CHECKED) {
      const [a, b] = runs;
      runs.splice(0, 2, { start: a!.start, end: b!.end, sorted: mergeSorted(a!.sorted, b!.sorted) });
    }
  }

  private logDocument(docId: number): void {
    if (this.docLogLength === this.docLog.length) {
      if (this.docLogLength >= DOC_LOG_LIMIT) {
        // The older half goes: entries stamped before it are derived again.
        const half = this.docLogLength >>> 1;
        this.docLog.copyWithin(0, half, this.docLogLength);
        this.docLogLength -= half;
        this.docLogBase += half;
      } else {
        const grown = new Uint32Array(this.docLog.length * 2);
        grown.set(this.docLog);
        this.docLog = grown;
      }
    }
    this.docLog[this.docLogLength++] = docId;
  }

  /**
   * The documents written since the stamp `at` (each upserted or deleted since), or null when the log no
   * longer reaches back that far. Read-only (shared by the entries stamped alike).
   */
  writtenDocsSince(at: CacheStamp): RoaringBitmap32 | null {
    if (at.writes < this.docLogBase) return null;
    const memo = this.writtenMemo;
    if (memo !== null && memo.since === at.writes && memo.until === this.writes) return memo.docs;
    const docs = new RoaringBitmap32(this.docLog.subarray(at.writes - this.docLogBase, this.docLogLength));
    this.writtenMemo = { since: at.writes, until: this.writes, docs };
    return docs;
  }

  /** Whether the word was written since the stamp (with `holds`' preconditions). */
  /** Whether any word was written since `at` (when not, writtenSince is false for every word). */
  anyWrittenSince(at: CacheStamp): boolean {
    return this.writes > at.writes;
  }

  writtenSince(at: CacheStamp, wordId: number): boolean {
    return wordId < this.lastWritten.length && this.lastWritten[wordId]! > at.writes;
  }

  /** Drops every entry (the settings changed, the appearance log grew long, or a large write batch: ShardEngine.writeBatch). */
  clear(): void {
    this.docLogBase = this.writes;
    this.docLogLength = 0;
    this.writtenMemo = null;
    this.derivations.clear();
    if (this.derivedWords.size > 0) this.derivedWords.clear();
    if (this.pairMemos.size > 0) this.pairMemos.clear();
    this.memos = null;
    this.forgetAppeared();
  }

  /** Empties the appearance log: only when no entry is left that was stamped before its end. */
  private forgetAppeared(): void {
    this.appearedBefore = this.sealed + this.appeared.length;
    this.appeared = [];
    this.runs = [];
    this.runWords = 0;
  }

  /** The derivation object's number, kept on it (a WeakMap by object made the collector's marking walk its entries as ephemerons). */
  derivationId(derivations: TermDerivations): number {
    return (derivations.memoId ??= this.nextDerivationId++);
  }

  /** Bytes held per cache (the lexicon walks are counted, not measured: those of refused derivations and those kept with the held ones). */
  byteSizes(): { derivations: number; pairMemos: number; derivedWordsEntries: number } {
    let walks = this.derivedWords.size;
    for (const derivations of this.derivations.values()) if (derivations.walk !== undefined) walks++;
    return { derivations: this.derivations.byteLength, pairMemos: this.pairMemos.calculatedSize, derivedWordsEntries: walks };
  }
}

/** Two sorted lists as one. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
