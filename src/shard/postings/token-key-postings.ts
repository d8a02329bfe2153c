// Posting lists per (word, small token key): which documents hold a word in a field of a given rank
// (milli's word_fid_docids) or at a given position (word_position_docids). They let attributeRank and
// wordPosition split a universe into score buckets with bitmap operations instead of reading the
// forward index of every document (score-chain.ts).
// Built in one pass after a bulk load (buildAll); a write adds or removes its document in the lists
// of its frequent words (bitmaps by key) in place and drops those of the others, which the next search
// needing them rebuilds in one pass over their documents; once writes touched a quarter of the shard's tokens, a full rebuild instead. Only keys below `limit` are kept: a document whose best key is
// beyond it is simply left to per-document scoring, so the limit bounds memory without changing any order.
// Words in fewer than BITMAP_MIN_DOCUMENTS documents (most of a vocabulary) keep their lists as
// (key, docId) pairs instead (a bitmap costs ~0.5 KiB however small): after a full build, all in one
// shared arena; rebuilt after a write, as a small typed array each (below KEPT_MIN_DOCUMENTS: nothing kept
// unless keptMinDocuments says so, its default; a typed array still costs ~0.2 KiB).
import type { DerivedSnapshotPart, DerivedStructure } from '../derived-structure.js';
import roaring from 'roaring';
import { tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import { forwardIndexSource } from '../documents/arena-pass.js';
import { TOKEN_KEYS, tokenKeyPassSteps, type TokenKey, type TokenKeyKind, type TokenKeyPassResult } from './token-key-pass.js';
import type { TokenKeyPassSpec } from '../../protocol/build-helper.js';
import type { Vocabulary } from '../words/vocabulary.js';
import { finishSteps, stepEndsAt } from '../sliced-jobs.js';
import type { SerializedBitmaps } from '../snapshot/bitmap-list-codec.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-container.js';
import { decodeTokenKeyPostings, encodeTokenKeyPostings, type TokenKeySections } from './token-key-snapshot.js';
import { idSpanOf, unionOfMany } from '../words/bitmap-union.js';
import { NO_DOCUMENTS } from '../../ranking/scores/score-layers.js';
import { LazyLists } from '../../ranking/keyed-lists.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export { fieldRankKey, positionKey, type TokenKey } from './token-key-pass.js';

const BITMAP_MIN_DOCUMENTS = 64;
/** Words in fewer documents (ids, typos in the data: a vocabulary's long tail) are read again when asked. */
export const KEPT_MIN_DOCUMENTS = 8;
const FULL_REBUILD_MIN_TOKENS = 1 << 16;
/**
 * With a rebuild in slices on its way (deferBuilds), the lists follow writes in place until this many
 * times the tokens that made the rebuild due were written (then dropped: searches build them at once).
 */
const KEPT_WHILE_DEFERRED = 2;
/** (key, docId) pair entries turned into lists per step of a sliced build. */
const PAIRS_PER_STEP = 1 << 18;

export class TokenKeyPostings implements DerivedStructure {
  /**
   * byWord[wordId]: bitmaps by key, or for a rare word (key, docId) pairs in document order;
   * undefined = not built (or dropped by a write).
   */
  private byWord: (RoaringBitmap32[] | Uint32Array | SerializedKeyLists | null | undefined)[] = [];
  /** The bitmaps of a restored snapshot, decoded by word when first read (see listsOf). */
  private serializedLists: SerializedBitmaps | null = null;
  /**
   * The words below BITMAP_MIN_DOCUMENTS as of the last buildAll (byWord null): their (key, docId)
   * pairs in one shared arena, [arenaStarts[w], arenaEnds[w]). One array for the long tail of a
   * vocabulary instead of an array each, or of nothing: a typo or prefix term derives hundreds of rare
   * words, and reading their documents again on every search was a fifth of a cold query's time.
   */
  private arena = new Uint32Array(0);
  private arenaStarts = new Uint32Array(0);
  private arenaEnds = new Uint32Array(0);

  /** Tokens seen by the last buildAll, and word changes since: a full rebuild pays once enough changed. */
  private builtTokens = 0;
  private writtenSinceBuild = 0;

  private readonly keyOf: TokenKey;

  constructor(private readonly vocabulary: Vocabulary, private readonly forward: ForwardIndex,
    private readonly documents: RoaringBitmap32, readonly keyKind: TokenKeyKind, readonly limit: number) {
    this.keyOf = TOKEN_KEYS[keyKind];
  }

  /** While a full build runs in steps: the words written since it started (their lists in it are stale), and how many tokens. */
  private readonly writtenDuringBuilds = new Set<{ words: Uint8Array; tokens: number }>();

  /** Written tokens (one entry each) count towards a full rebuild and mark their words in the builds running in steps. */
  private countWritten(wordIds: readonly number[]): void {
    this.writtenSinceBuild += wordIds.length;
    for (const during of this.writtenDuringBuilds) {
      during.tokens += wordIds.length;
      for (const wordId of wordIds) if (wordId < during.words.length) during.words[wordId] = 1;
    }
  }

  /**
   * A document just put in the forward index (`added`) or about to leave it: the lists kept as
   * bitmaps by key (the frequent words) get or lose it in place; the others are dropped (fewer than
   * BITMAP_MIN_DOCUMENTS documents: rebuilt per word when asked).
   * A write dropped every list of its words before, and the next searches rebuilt each frequent
   * word's lists from all its documents (15% of the worker with a 1,000-document batch a second on
   * 20,000 npm packages). `wordIds`: the document's tokens' words (a build running in steps marks them).
   */
  writeDocument(docId: number, added: boolean, wordIds: readonly number[]): void {
    // Every written token counts towards a full rebuild, as before: it puts the long tail back in the
    // arena (counting only the dropped lists left it to per-search rebuilds: a 100,000-document load
    // by batches, built after its first, then answered its queries half as fast).
    this.countWritten(wordIds);
    // A full rebuild is due: nothing reads the lists before one replaces them (unionByKey rebuilds
    // first, a build in steps swaps in its own), so they go now instead of being kept up to date: a
    // bulk load built after its first batch (PrepareSearch) updated them in place for the rest of it
    // (13% of the worker in the tail of 1M npm rows, then the rebuild).
    // Unless a rebuild in slices is on its way (deferBuilds: writes to a built shard under searches),
    // which the lists kept up to date serve until it swaps its own in; but not past KEPT_WHILE_DEFERRED
    // times the tokens that made the rebuild due (a bulk load built after its first batches, when the
    // queue emptied: no search came to run the slices, and the in-place updates of the rest of the
    // load cost about a build per build's tokens, 3.4 s of the worker's ~14 s of writes at 1M npm rows).
    if (this.needsRebuild && (!this.buildsDeferred || this.writtenSinceBuild >= KEPT_WHILE_DEFERRED * this.rebuildTokens)) {
      if (this.byWord.length > 0 || this.arena.length > 0) this.dropLists();
      return;
    }
    const byWord = this.byWord;
    if (byWord.length === 0) return;
    this.visitTokens(docId, (wordId, key) => {
      if (wordId >= byWord.length) return;
      const lists = byWord[wordId] === undefined || byWord[wordId] === null || byWord[wordId] instanceof Uint32Array ? undefined : this.listsOf(wordId);
      if (!Array.isArray(lists)) {
        byWord[wordId] = undefined;
        return;
      }
      if (added) {
        while (lists.length <= key) lists.push(new RoaringBitmap32());
        lists[key]!.add(docId);
      } else if (key < lists.length) {
        lists[key]!.remove(docId);
      }
    });
  }

  /** Every list and the arena dropped (a full rebuild is due); the rebuild bookkeeping stays. */
  private dropLists(): void {
    this.listsKept = false;
    this.byWord = [];
    this.serializedLists = null;
    this.arena = new Uint32Array(0);
    this.arenaStarts = new Uint32Array(0);
    this.arenaEnds = new Uint32Array(0);
  }

  /**
   * After writes of a good share of the shard (a bulk load by batches), one full rebuild costs less
   * than building the words of each search from their documents (searches call it; so does an idle worker).
   */
  rebuildIfStale(): void {
    // While a rebuild in slices is on its way, the lists kept up to date serve (those of written rare words built per word).
    if (this.needsRebuild && !(this.buildsDeferred && this.listsKept)) this.buildAll();
  }

  get needsRebuild(): boolean {
    return this.writtenSinceBuild >= this.rebuildTokens;
  }

  /** Written tokens past which a full rebuild is due. */
  private get rebuildTokens(): number {
    return Math.max(FULL_REBUILD_MIN_TOKENS, this.builtTokens / 4);
  }

  /** DerivedStructure: writeDocument (frequent words' lists updated in place, the others dropped). */
  noteWrite(docId: number, added: boolean, wordIds: readonly number[]): void {
    this.writeDocument(docId, added, wordIds);
  }

  get needsBuild(): boolean {
    return this.needsRebuild;
  }

  buildSteps(): Generator<void, void, unknown> {
    return this.buildAllSteps();
  }

  /**
   * Deferred only while the lists are kept up to date (a shard built before the writes that made the
   * rebuild due): searches then use them as they are, the rare words written rebuilt per word, until
   * the build in slices swaps in its own. A shard whose lists were dropped (a bulk load) or never built
   * still builds them at once in the first search (see DerivedStructure.deferBuilds).
   */
  deferBuilds(deferred: boolean): void {
    this.buildsDeferred = deferred;
  }

  private buildsDeferred = false;
  /** The lists of the last build (or snapshot) are held and kept up to date (not dropped since). */
  private listsKept = false;

  /** DerivedStructure's snapshot member (token-key-snapshot.ts). */
  *saveSnapshotSteps(writer: SnapshotWriter): Generator<void, DerivedSnapshotPart, unknown> {
    return { ...(yield* encodeTokenKeyPostings(writer, this.exportState())) };
  }

  restoreSnapshot(reader: SnapshotReader, part: DerivedSnapshotPart): void {
    if (part !== null) this.importState(decodeTokenKeyPostings(reader, part as unknown as TokenKeySections));
  }

  /** Bytes of the lists held (bitmaps by their portable size) and of the rare words' arena. */
  get byteLength(): number {
    let bytes = this.arena.byteLength + this.arenaStarts.byteLength + this.arenaEnds.byteLength;
    for (const lists of this.byWord) {
      if (lists === null || lists === undefined) continue;
      if (lists instanceof Uint32Array) bytes += lists.byteLength;
      else if (Array.isArray(lists)) for (const list of lists) bytes += list.getSerializationSizeInBytes('portable');
    }
    return bytes;
  }

  /**
   * [key]: documents holding one of the words with that key (not disjoint across keys: a document
   * may hold the words in several places). Trailing empty keys are cut. Read-only: a bitmap may be
   * the word's own list. `made`: gets the bitmaps made for this answer alone (unions; TermDerivations.owned).
   */
  unionByKey(wordIds: readonly number[], made?: RoaringBitmap32[]): RoaringBitmap32[] {
    const grouped = this.groupByKey(wordIds);
    return Array.from({ length: grouped.keys }, (_, key) => grouped.unionAt(key, made));
  }

  /**
   * unionByKey for keys below `length` (NO_DOCUMENTS past the trailing empty ones), each key's union
   * made only when first read (`at`), `extra` (documents per key) added to it. The words' lists are
   * gathered by key at once (they may be dropped by a later write; the gathered bitmaps are the
   * words' own, which writes narrow in place as they would the unions' sources).
   */
  keyedUnions(wordIds: readonly number[], length: number, made: RoaringBitmap32[], extra?: readonly (readonly number[] | undefined)[]): LazyLists {
    const grouped = this.groupByKey(wordIds);
    return new LazyLists(length, (key) => {
      const union = key < grouped.keys ? grouped.unionAt(key, made) : NO_DOCUMENTS;
      const added = extra?.[key];
      if (added === undefined) return union;
      // A new bitmap: the union may be a word's own list.
      const withAdded = RoaringBitmap32.or(union, new RoaringBitmap32(added));
      made.push(withAdded);
      return withAdded;
    });
  }

  /** The words' lists gathered by key (bitmaps, and the rare words' documents sorted per key), and the union of one key (asked once per key). */
  private groupByKey(wordIds: readonly number[]): { keys: number; unionAt(key: number, made?: RoaringBitmap32[]): RoaringBitmap32 } {
    this.rebuildIfStale();
    const unkept = this.buildMissing(wordIds);
    const perKey: RoaringBitmap32[][] = [];
    // The (key, docId) pairs of rare words (a prefix term has thousands): counted per key, then copied
    // into one typed array per key and sorted (a JS array per key and unsorted insertion cost ~15% of a cold million-document mix).
    const pairLists: Uint32Array[] = [];
    const looseCounts = new Uint32Array(this.limit);
    for (const wordId of wordIds) {
      const stored = this.listsOf(wordId);
      const lists = stored === null ? this.arena.subarray(this.arenaStarts[wordId]!, this.arenaEnds[wordId]!) : stored ?? unkept.get(wordId)!;
      if (lists instanceof Uint32Array) {
        if (lists.length === 0) continue;
        pairLists.push(lists);
        for (let k = 0; k < lists.length; k += 2) looseCounts[lists[k]!]!++;
        continue;
      }
      for (let key = 0; key < lists.length; key++) if (!lists[key]!.isEmpty) (perKey[key] ??= []).push(lists[key]!);
    }
    const loose = looseDocsByKey(pairLists, looseCounts);
    const idSpan = idSpanOf(this.documents);
    return {
      keys: Math.max(perKey.length, loose.length),
      // Each key's gathered lists are let go of once its union is made: a lazy answer (keyedUnions) kept
      // on a cached derivation holds only the keys not read yet (a prefix's rare words' documents by key).
      unionAt: (key, made) => {
        const bitmaps = perKey[key] ?? [];
        const looseDocs = loose[key];
        perKey[key] = [];
        loose[key] = undefined;
        const looseOnly = looseDocs !== undefined && bitmaps.length === 0;
        if (looseDocs !== undefined) bitmaps.push(new RoaringBitmap32(looseDocs));
        // One list is returned as is (callers only read; a write drops it before it could change).
        // None: the shared empty one (kept in the derivation cache's rank / position memos, tens of thousands).
        if (bitmaps.length === 1 && !looseOnly) return bitmaps[0]!;
        if (bitmaps.length === 0) return NO_DOCUMENTS;
        const union = looseOnly ? bitmaps[0]! : unionOfMany(bitmaps, idSpan);
        made?.push(union);
        return union;
      },
    };
  }

  /**
   * Builds every word's lists in two passes over the documents (count, then fill one typed array of
   * (key, docId) pairs): far cheaper than one bitmap insertion per token, and than reading each
   * document once per word when many words are missing (a bulk load, many writes).
   */
  buildAll(): void {
    finishSteps(this.buildAllSteps());
  }

  /**
   * buildAll in steps (a quiet-time build between searches and writes): the lists are made aside and
   * swapped in at the end, so searches meanwhile use (and build per word) the current ones; the
   * words written meanwhile are left unbuilt in it.
   */
  *buildAllSteps(): Generator<void, void, unknown> {
    const during = { words: new Uint8Array(this.vocabulary.size), tokens: 0 };
    this.writtenDuringBuilds.add(during);
    try {
      yield* this.buildAllFrom(during);
    } finally {
      this.writtenDuringBuilds.delete(during);
    }
  }

  private *buildAllFrom(during: { words: Uint8Array; tokens: number }): Generator<void, void, unknown> {
    const documents = this.documents.toUint32Array();
    const passes = yield* tokenKeyPassSteps(documents, forwardIndexSource(this.forward, documents), during.words.length, this.keyOf, this.limit);
    yield* this.adoptPassSteps(passes, during);
  }

  /**
   * The full build handed to the build helper thread (TokenKeyPassResult over a copy of the arena):
   * what it is told, and the end that adopts its answer; null when no rebuild is due. The words written
   * from now until the answer is adopted are left unbuilt in it, as in a build in steps here.
   */
  offload(): { spec: TokenKeyPassSpec; adoptSteps(result: TokenKeyPassResult): Generator<void, boolean, unknown>; abandon(): void } | null {
    if (!this.needsBuild) return null;
    const during = { words: new Uint8Array(this.vocabulary.size), tokens: 0 };
    this.writtenDuringBuilds.add(during);
    const builds = this.fullBuilds;
    return {
      spec: { key: this.keyKind, limit: this.limit, wordCount: during.words.length },
      adoptSteps: (result) => this.adoptOffloadedSteps(result, during, builds),
      abandon: () => {
        this.writtenDuringBuilds.delete(during);
      },
    };
  }

  /**
   * An offloaded build's answer made into the lists, unless another full build ended since it started
   * (a search that could not wait: the answer is older); the tracking of its words written meanwhile ends either way.
   */
  private *adoptOffloadedSteps(result: TokenKeyPassResult, during: { words: Uint8Array; tokens: number }, builds: number): Generator<void, boolean, unknown> {
    try {
      if (!this.writtenDuringBuilds.has(during) || this.fullBuilds !== builds) return false;
      yield* this.adoptPassSteps(result, during);
      return true;
    } finally {
      this.writtenDuringBuilds.delete(during);
    }
  }

  /** Full builds ended so far (what an offloaded build checks it is still the latest against). */
  private fullBuilds = 0;

  /** The passes' pairs made into the lists: bitmaps by key for the frequent words, the shared arena for the others. */
  private *adoptPassSteps(passes: TokenKeyPassResult, during: { words: Uint8Array; tokens: number }): Generator<void, void, unknown> {
    const wordCount = during.words.length;
    const { starts, ends, pairs, tokens } = passes;
    // Frequent words become bitmaps; the others' segments move left, in place, into the arena.
    const byWord: typeof this.byWord = [];
    const arenaStarts = new Uint32Array(wordCount);
    const arenaEnds = new Uint32Array(wordCount);
    let written = 0;
    let sinceStep = 0;
    for (let wordId = 0; wordId < wordCount; wordId++) {
      const wordPairs = pairs.subarray(starts[wordId]!, ends[wordId]!);
      sinceStep += wordPairs.length + 16;
      if (sinceStep >= PAIRS_PER_STEP) {
        sinceStep = 0;
        yield;
      }
      if (this.isStored(wordId)) {
        byWord[wordId] = pairsToBitmaps(wordPairs);
        continue;
      }
      pairs.copyWithin(written, starts[wordId]!, ends[wordId]!);
      arenaStarts[wordId] = written;
      written += wordPairs.length;
      arenaEnds[wordId] = written;
      byWord[wordId] = null;
    }
    // Words written during the build: their lists here may miss documents (or hold old ones): built again when asked.
    for (let wordId = 0; wordId < wordCount; wordId++) if (during.words[wordId] === 1) byWord[wordId] = undefined;
    this.byWord = byWord;
    this.serializedLists = null;
    this.arena = pairs.slice(0, written);
    this.arenaStarts = arenaStarts;
    this.arenaEnds = arenaEnds;
    this.builtTokens = tokens;
    this.listsKept = true;
    this.writtenSinceBuild = during.tokens;
    this.fullBuilds++;
  }

  /** The word's entry, its lists decoded first if they are still as a snapshot stored them. */
  private listsOf(wordId: number): RoaringBitmap32[] | Uint32Array | null | undefined {
    const stored = this.byWord[wordId];
    if (stored === null || stored === undefined || stored instanceof Uint32Array || Array.isArray(stored)) return stored;
    const lists = Array.from({ length: stored.count }, (_, k) => this.serializedLists!.at(stored.first + k));
    this.byWord[wordId] = lists;
    return lists;
  }

  /** Snapshot hook: every built list, the long-tail arena, and the rebuild bookkeeping. */
  exportState(): TokenKeyPostingsState {
    for (let wordId = 0; wordId < this.byWord.length; wordId++) this.listsOf(wordId);
    return {
      byWord: this.byWord as TokenKeyPostingsState['byWord'], arena: this.arena, arenaStarts: this.arenaStarts, arenaEnds: this.arenaEnds,
      builtTokens: this.builtTokens, writtenSinceBuild: this.writtenSinceBuild,
    };
  }

  /** Snapshot hook: adopts an exported state (on a fresh instance over the restored vocabulary and forward index). */
  importState(state: RestoredTokenKeyPostings): void {
    this.byWord.length = 0;
    for (const lists of state.byWord) this.byWord.push(lists);
    this.serializedLists = state.serializedLists;
    this.arena = state.arena;
    this.arenaStarts = state.arenaStarts;
    this.arenaEnds = state.arenaEnds;
    this.builtTokens = state.builtTokens;
    this.listsKept = state.builtTokens > 0;
    this.writtenSinceBuild = state.writtenSinceBuild;
  }

  private isStored(wordId: number): boolean {
    return this.vocabulary.docs(wordId).size >= BITMAP_MIN_DOCUMENTS;
  }

  /**
   * Builds the lists of the words not built yet in one pass over their documents: a prefix term
   * stands for thousands of words, and reading each document once rather than once per word of it
   * is what keeps the first search after a write cheap.
   */
  private buildMissing(wordIds: readonly number[]): Map<number, Uint32Array> {
    const unkept = new Map<number, Uint32Array>();
    const missing = wordIds.filter((wordId) => this.byWord[wordId] === undefined);
    if (missing.length === 0) return unkept;
    const pairsOf = new Map<number, number[]>(missing.map((wordId) => [wordId, []]));
    const documents = RoaringBitmap32.orMany(missing.map((wordId) => this.vocabulary.docs(wordId)));
    for (const docId of documents) {
      this.visitTokens(docId, (wordId, key) => {
        const pairs = pairsOf.get(wordId);
        if (pairs === undefined) return;
        // Keys of one document come in field order, not key order: skip a (key, document) seen already.
        for (let k = pairs.length - 2; k >= 0 && pairs[k + 1] === docId; k -= 2) if (pairs[k] === key) return;
        pairs.push(key, docId);
      });
    }
    for (const [wordId, pairs] of pairsOf) {
      if (!this.isKept(wordId)) unkept.set(wordId, Uint32Array.from(pairs));
      else this.byWord[wordId] = this.isStored(wordId) ? pairsToBitmaps(pairs) : Uint32Array.from(pairs);
    }
    return unkept;
  }

  /**
   * Words in fewer documents are not kept once rebuilt (buildMissing): 1, every word's rebuilt lists are kept
   * until a write to the word or the next full build (so at most the words written since that build); with
   * KEPT_MIN_DOCUMENTS (ShardIndex.keepRareKeyLists false) the rare words written since the build were read
   * again by every search taking them until the full build (a fifth of the searches' extra CPU under writes
   * went to buildMissing / groupByKey; mixed-ab at 100k npm rows: 0.896 of the CPU per search kept).
   */
  keptMinDocuments = 1;

  private isKept(wordId: number): boolean {
    return this.vocabulary.docs(wordId).size >= this.keptMinDocuments;
  }

  /** Every token of the document whose key is below the limit. */
  private visitTokens(docId: number, visit: (wordId: number, key: number) => void): void {
    this.visitTokensAt(this.forward.offsetOf(docId), visit);
  }

  /** visitTokens of the document at this arena offset (-1: none). */
  private visitTokensAt(offset: number, visit: (wordId: number, key: number) => void): void {
    if (offset < 0) return;
    const data = this.forward.arena;
    const start = tokensStartAt(data, offset);
    const end = start + tokenCountAt(data, offset) * 2;
    for (let k = start; k < end; k += 2) {
      const key = this.keyOf(data, offset, data[k + 1]!);
      if (key < this.limit) visit(data[k]!, key);
    }
  }
}

/** A word's bitmaps by key as a snapshot stored them: [first, first + count) of the serialized bitmaps. */
export interface SerializedKeyLists {
  first: number;
  count: number;
}

export interface RestoredTokenKeyPostings extends Omit<TokenKeyPostingsState, 'byWord'> {
  byWord: readonly (Uint32Array | SerializedKeyLists | null | undefined)[];
  serializedLists: SerializedBitmaps;
}

export interface TokenKeyPostingsState {
  /** Per word: bitmaps by key, (key, docId) pairs, null (in the arena) or undefined (not built). */
  byWord: readonly (RoaringBitmap32[] | Uint32Array | null | undefined)[];
  arena: Uint32Array<ArrayBuffer>;
  arenaStarts: Uint32Array<ArrayBuffer>;
  arenaEnds: Uint32Array<ArrayBuffer>;
  builtTokens: number;
  writtenSinceBuild: number;
}

/**
 * (key, docId) pairs in ascending document order -> one bitmap per key. Grouped by key in one typed
 * array (count, then fill) rather than a JS array per key: a full build runs this over most of a
 * shard's tokens, and the JS arrays were a few hundred MiB of garbage at a million documents.
 */
function pairsToBitmaps(pairs: ArrayLike<number>): RoaringBitmap32[] {
  let keys = 0;
  for (let k = 0; k < pairs.length; k += 2) keys = Math.max(keys, pairs[k]! + 1);
  const starts = new Uint32Array(keys + 1);
  for (let k = 0; k < pairs.length; k += 2) starts[pairs[k]! + 1]!++;
  for (let key = 0; key < keys; key++) starts[key + 1]! += starts[key]!;
  const ends = starts.slice(0, keys);
  const docIds = new Uint32Array(pairs.length / 2);
  for (let k = 0; k < pairs.length; k += 2) docIds[ends[pairs[k]!]!++] = pairs[k + 1]!;
  return Array.from({ length: keys }, (_, key) => new RoaringBitmap32(docIds.subarray(starts[key]!, starts[key + 1]!)));
}

/** (key, docId) pair lists -> per key, its documents sorted ascending (undefined for a key without any); trailing empty keys cut. */
function looseDocsByKey(pairLists: readonly Uint32Array[], counts: Uint32Array): (Uint32Array | undefined)[] {
  const byKey: (Uint32Array | undefined)[] = [];
  if (pairLists.length === 0) return byKey;
  const filled = new Uint32Array(counts.length);
  for (let key = 0; key < counts.length; key++) if (counts[key]! > 0) byKey[key] = new Uint32Array(counts[key]!);
  for (const pairs of pairLists) {
    for (let k = 0; k < pairs.length; k += 2) {
      const key = pairs[k]!;
      byKey[key]![filled[key]!++] = pairs[k + 1]!;
    }
  }
  for (const docs of byKey) docs?.sort();
  return byKey;
}
