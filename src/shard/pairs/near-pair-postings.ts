// Which documents hold word B one or two positions after word A in one field (milli's
// word_pair_proximity_docids at proximity 1 and 2), for pairs of the shard's frequent words only.
// They let the proximity rule find its best buckets (every pair adjacent, or close) without reading
// every document of a bucket that two common words share (src/ranking/rules/proximity-parts.ts).
// Built in one pass over the forward index by the first search needing them; documents written since are tracked in
// `changed` and read one by one instead (the tables say nothing about them), until enough changed
// that a rebuild pays. Pairs with a rare word are found by reading the (few) documents of that word,
// except those of a prefix term's rare words (prefix-pair-tables.ts).
import roaring from 'roaring';
import { tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import { BuiltOverDocuments } from '../postings/changes-since-build.js';
import { PairTable, type PairTableState } from './pair-table.js';
import type { ArenaBuildResult } from '../../protocol/build-helper.js';
import type { OffloadedPart } from '../offloaded-build.js';
import { forwardIndexSource } from '../documents/arena-pass.js';
import { MAX_GAP, nearPairTablesSteps, positionGap, type NearPairPlan } from './near-pair-pass.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';
import { planShortPrefixesSteps, PREFIX_THEN_WORD_GAP_1, PrefixPairTables, prefixPairDocs, prefixTableKey, prefixTableKeySpace, WORD_THEN_PREFIX_GAP_1, WORD_THEN_PREFIX_GAP_2, type PrefixTable, type ShortPrefixPlan } from './prefix-pair-tables.js';
import { EXACT_ATTRIBUTE_MARK } from '../words/derivations.js';
import { idSpanOf, unionOfMany } from '../words/bitmap-union.js';
import type { Vocabulary } from '../words/vocabulary.js';
import { OWNED_BITMAPS, type BitmapSource } from '../../ranking/scratch-bitmaps.js';
import type { KnownPairCosts } from '../../ranking/search-context.js';
import { mapPacked } from '../../ranking/packed-arrays.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** A word is frequent (gets pair lists) in at least this many documents, or this share of the shard. */
const FREQUENT_MIN_DOCUMENTS = 64;
const FREQUENT_MIN_SHARE = 1 / 1000;
/**
 * Words with pair tables at most (the most frequent): building counts over slots² possible keys (4 MiB), and
 * the pairs of the rest are found by reading their documents.
 */
const MAX_SLOTS = 1024;

/** Membership of a term's words: set[wordId] = 1 (a typed array: read once per token of every document checked). */
export type WordSet = Uint8Array;

export interface PairSide {
  /** The words of the term (the same array object while the term's derivations stay cached). */
  wordIds: readonly number[];
  set: WordSet;
  /**
   * The query word of a prefix term, whose words then include every word of the shard starting with
   * it: on the right side, its rare words' pairs come from a prefix pair table.
   */
  prefix?: string;
  /**
   * When the words are another term's (`base`, an array kept as long as its derivations) followed by a
   * few more (`extra`): an n-gram combination (words/derivations.ts combineNgrams), whose unions are then
   * made from the base's memoized ones.
   */
  parts?: { base: readonly number[]; extra: readonly number[] };
}

/**
 * What pairDocsWithin gathers for one pair of sides whatever the universe (the runs of the whole
 * shard), and the documents it read: kept by the caller for the next lookups of that pair, which
 * then cost an intersection (proximity asks for a pair up to five times per search: within cost 1
 * and 2, on narrower universes), as long as the documents do not change.
 */
export interface PairLookupMemo {
  frequentLeft?: readonly number[] | undefined;
  frequentRight?: readonly number[] | undefined;
  /** [cost]: what the lookups of that cost found so far. */
  byCost: (PairLookup | undefined)[];
  /** What searches learned of the pair's costs past the tables (pair-cost-memo.ts). */
  knownCosts?: KnownPairCosts | undefined;
}

/**
 * An empty memo with every field set: memos made by one literal and filled later keep one map (fields
 * added one by one after construction made up to four maps, and the readers of memos deopted).
 */
export function emptyPairLookupMemo(): PairLookupMemo {
  // byCost: one slot per cost (0, 1, 2) from the start, so stores at 1 and 2 never make it holey.
  return { frequentLeft: undefined, frequentRight: undefined, byCost: [undefined, undefined, undefined], knownCosts: undefined };
}

interface PairLookup {
  /** The prefix table the lookup used (null: none). */
  prefixTable: PrefixTable | null;
  /** The documents within the cost from the tables. */
  docs: RoaringBitmap32;
  /** The documents to read (not in `docs`): changed since the build, or holding a rare word of a side. */
  toRead: RoaringBitmap32;
  /** The documents of toRead read so far, and those of them found within the cost. */
  read: RoaringBitmap32;
  readWithin: RoaringBitmap32;
}


export class NearPairPostings extends BuiltOverDocuments {
  private slotOfWord: Int32Array = new Int32Array(0);
  private slotCount = 0;
  /** tables[gap - 1]. */
  private tables: PairTable[] = [];
  /** Bumped by each build (which changes which words are rare). */
  private generation = 0;
  private readonly rareDocsMemo = new WeakMap<readonly number[], { generation: number; docs: RoaringBitmap32 }>();
  private readonly uncoveredDocsMemo = new WeakMap<readonly number[], { generation: number; prefix: string; docs: RoaringBitmap32 }>();
  private readonly prefixTables: PrefixPairTables;
  /**
   * The tables' fill replays what the counting pass recorded (buildPairTablesSteps' `replay`: the
   * documents' tokens are read and their words' slots looked up once, not twice); false: both passes
   * visit the documents (tests, A/B).
   */
  replayPairPass = true;

  constructor(private readonly vocabulary: Vocabulary, private readonly forward: ForwardIndex, documents: RoaringBitmap32) {
    super(documents);
    this.prefixTables = new PrefixPairTables(vocabulary, forward, documents);
  }

  protected *buildFrom(started: RoaringBitmap32): Generator<void, void, unknown> {
    const { plan, documents, splits, prefixes } = yield* this.planSteps();
    const source = forwardIndexSource(this.forward, documents, (docId) => !started.isEmpty && started.has(docId));
    const tables = yield* nearPairTablesSteps(plan, documents, source, this.replayPairPass);
    this.adoptBuilt(plan, tables.map((state) => PairTable.ofBuilt(state)), prefixes, splits, started);
  }

  /**
   * The build handed to the build helper thread, planned here in steps: the plan to send (with the
   * documents it covers), and the part that adopts the helper's tables; null when nothing is stale.
   * What is written from now until the tables are adopted counts as written after the build.
   */
  *offloadSteps(): Generator<void, { plan: NearPairPlan; documents: Uint32Array; part: OffloadedPart } | null, unknown> {
    if (!this.needsBuild) return null;
    const started = this.changes.startBuild();
    let planned = false;
    try {
      const { plan, documents, prefixes, splits } = yield* this.planSteps();
      const generation = this.generation;
      const part: OffloadedPart = {
        structure: this,
        adoptSteps: (result) => this.adoptOffloadedSteps(result, plan, prefixes, splits, started, generation),
        abandon: () => this.changes.abandonBuild(started),
      };
      planned = true;
      // The plan sent is the helper's (transferred): the tables here keep their own slots.
      return { plan: { ...plan, slotOfWord: plan.slotOfWord.slice() }, documents, part };
    } finally {
      if (!planned) this.changes.abandonBuild(started);
    }
  }

  /**
   * The helper's tables taken over, unless another build ended since the offloaded one started (its
   * tables are newer) or the answer holds no well-formed tables; `started` is let go of then.
   */
  private *adoptOffloadedSteps(result: ArenaBuildResult, plan: NearPairPlan, prefixes: string[], splits: (string[] | null)[],
    started: RoaringBitmap32, generation: number): Generator<void, boolean, unknown> {
    const tables = result.nearPairTables?.map((state) => PairTable.fromState(state)) ?? null;
    if (generation !== this.generation || tables === null || tables.some((table) => table === null)) {
      this.changes.abandonBuild(started);
      return false;
    }
    this.adoptBuilt(plan, tables as PairTable[], prefixes, splits, started);
    return true;
  }

  /** Which words get slots (the most frequent) and which short prefixes get tables, before a build's pass. */
  private *planSteps(): Generator<void, { plan: NearPairPlan; documents: Uint32Array; prefixes: string[]; splits: (string[] | null)[] }, unknown> {
    const wordCount = this.vocabulary.size;
    const threshold = Math.max(FREQUENT_MIN_DOCUMENTS, Math.ceil(this.documents.size * FREQUENT_MIN_SHARE));
    // The most frequent words get the slots: theirs are the buckets too big to read.
    const frequent: number[] = [];
    for (let wordId = 0; wordId < wordCount; wordId++) if (this.vocabulary.docs(wordId).size >= threshold) frequent.push(wordId);
    frequent.sort((a, b) => this.vocabulary.docs(b).size - this.vocabulary.docs(a).size);
    yield;
    const slotOfWord = new Int32Array(wordCount).fill(-1);
    const slotCount = Math.min(frequent.length, MAX_SLOTS);
    for (let slot = 0; slot < slotCount; slot++) slotOfWord[frequent[slot]!] = slot;
    const documents = this.documents.toUint32Array();
    const shortPrefixes: ShortPrefixPlan = slotCount === 0
      ? { prefixes: [], tableOfWord: new Int32Array(0), splitOfWord: new Int32Array(0), splits: [] }
      : yield* planShortPrefixesSteps(this.vocabulary, slotOfWord, EXACT_ATTRIBUTE_MARK);
    yield;
    const plan: NearPairPlan = { slotOfWord, slotCount, tableOfWord: shortPrefixes.tableOfWord, splitOfWord: shortPrefixes.splitOfWord,
      prefixCount: shortPrefixes.prefixes.length };
    return { plan, documents, prefixes: shortPrefixes.prefixes, splits: shortPrefixes.splits };
  }

  /** A build's tables (the gap tables, then the short prefixes'), made over the documents held when `started` was taken, take over. */
  private adoptBuilt(plan: NearPairPlan, tables: PairTable[], prefixes: string[], splits: (string[] | null)[], started: RoaringBitmap32): void {
    this.tables = tables.slice(0, MAX_GAP);
    this.slotOfWord = plan.slotOfWord;
    this.slotCount = plan.slotCount;
    this.prefixTables.clear(this.documents.size);
    this.prefixTables.adopt(prefixes, tables.slice(MAX_GAP), splits);
    this.changes.markBuilt(started);
    this.generation++;
  }

  /**
   * The snapshot member's part (BuiltOverDocuments): the slots, the gap tables and the short
   * prefixes' tables still held, each table's arrays as they are.
   */
  protected *savedStateSteps(writer: SnapshotWriter): Generator<void, Record<string, unknown>, unknown> {
    const adopted = this.prefixTables.adoptedHeld();
    const addTable = (table: PairTable) => {
      const { keys, starts, docIds, tags } = table.state;
      return [writer.add(keys), writer.add(starts), writer.add(docIds), tags === null ? -1 : writer.add(tags)];
    };
    return {
      slotOfWord: writer.add(this.slotOfWord), slotCount: this.slotCount,
      tables: this.tables.map(addTable),
      prefixes: adopted.prefixes, prefixSplits: adopted.splits, prefixTables: adopted.tables.map(addTable),
    };
  }

  protected restoreState(reader: SnapshotReader, part: Readonly<Record<string, unknown>>): void {
    const tableAt = (sections: unknown): PairTable => {
      if (!Array.isArray(sections) || sections.length !== 4) throw new SnapshotFormatError('pair table sections');
      const [keys, starts, docIds, tags] = sections as number[];
      const state: PairTableState = { keys: reader.uint32(keys!), starts: reader.uint32(starts!), docIds: reader.uint32(docIds!), tags: tags! < 0 ? null : reader.uint16(tags!) };
      const table = PairTable.fromState(state);
      if (table === null) throw new SnapshotFormatError('pair table');
      return table;
    };
    const slotOfWord = reader.int32(part['slotOfWord'] as number);
    const slotCount = part['slotCount'];
    const prefixes = part['prefixes'];
    const splits = part['prefixSplits'];
    const prefixTables = part['prefixTables'];
    if (typeof slotCount !== 'number' || slotCount > MAX_SLOTS || slotOfWord.length > this.vocabulary.size) throw new SnapshotFormatError('pair slots');
    for (let wordId = 0; wordId < slotOfWord.length; wordId++) if (slotOfWord[wordId]! >= slotCount) throw new SnapshotFormatError('pair slots');
    if (!Array.isArray(part['tables']) || part['tables'].length !== MAX_GAP) throw new SnapshotFormatError('pair tables');
    if (!Array.isArray(prefixes) || !Array.isArray(splits) || !Array.isArray(prefixTables)
      || splits.length !== prefixes.length || prefixTables.length !== prefixes.length) throw new SnapshotFormatError('prefix pair tables');
    this.tables = (part['tables'] as unknown[]).map(tableAt);
    this.slotOfWord = slotOfWord;
    this.slotCount = slotCount;
    this.prefixTables.clear(this.documents.size);
    this.prefixTables.adopt(prefixes as string[], prefixTables.map(tableAt), splits as (string[] | null)[]);
    this.generation++;
  }

  /** Bumped by each build: what a lookup gathered before it says nothing of the new slots (shared-pair-memos.ts). */
  get buildGeneration(): number {
    return this.generation;
  }

  /** Whether the prefix has a prefix pair table now. */
  hasPrefixTable(prefix: string): boolean {
    return this.prefixTables.has(prefix);
  }

  /** Bytes held by the prefix pair tables (included in byteLength). */
  get prefixTableBytes(): number {
    return this.prefixTables.byteLength;
  }

  /** Bytes held by the tables (for memory reports). */
  get byteLength(): number {
    return this.tables.reduce((sum, table) => sum + table.byteLength, 0) + this.slotOfWord.byteLength + this.prefixTables.byteLength;
  }

  /**
   * Documents of `universe` where proximity's cost of the pair is at most `cost`: 1 = a word of `left`
   * followed at the next position of its field by a word of `right`, or one word of both sides;
   * 2 = also one position between them, or `right` just before `left`. The result comes from
   * `bitmaps` (a search's scratch ones: it is the caller's, never kept here).
   */
  pairDocsWithin(cost: 1 | 2, left: PairSide, right: PairSide, universe: RoaringBitmap32, memo?: PairLookupMemo,
    bitmaps: BitmapSource = OWNED_BITMAPS): RoaringBitmap32 {
    const { within: found, unsettled: toRead, lookup } = this.settledWithin(cost, left, right, universe, memo, true, bitmaps);
    // Usually nothing is left to read (no iterator made for it; an iterator is a native object too).
    if (toRead.isEmpty) return found;
    const toReadIds = toRead.toUint32Array();
    for (let index = 0; index < toReadIds.length; index++) {
      const docId = toReadIds[index]!;
      if (!pairCostAtMost(this.forward, docId, cost, left.set, right.set)) continue;
      found.add(docId);
      lookup.readWithin.add(docId);
    }
    lookup.read.orInPlace(toRead);
    return found;
  }

  /**
   * pairDocsWithin without reading any document: the documents of `universe` the tables (or this
   * search's earlier reads, through `memo`) put within `cost`, and those only reading would tell.
   */
  pairDocsSettled(cost: 1 | 2, left: PairSide, right: PairSide, universe: RoaringBitmap32, memo?: PairLookupMemo,
    bitmaps: BitmapSource = OWNED_BITMAPS): { within: RoaringBitmap32; unsettled: RoaringBitmap32 } {
    // Reads nothing, so it adds nothing to a prefix's worth (it would build more prefix tables).
    const { within, unsettled } = this.settledWithin(cost, left, right, universe, memo, false, bitmaps);
    return { within, unsettled };
  }

  /**
   * `within` and `unsettled` (this universe's, from `bitmaps`) are the caller's; the lookup's bitmaps
   * (kept in the memo across searches) are always owned ones, never from `bitmaps`.
   */
  private settledWithin(cost: 1 | 2, left: PairSide, right: PairSide, universe: RoaringBitmap32, memo: PairLookupMemo | undefined,
    countsReads: boolean, bitmaps: BitmapSource): { within: RoaringBitmap32; unsettled: RoaringBitmap32; lookup: PairLookup } {
    this.buildIfStale();
    // Never built yet (its build deferred to the worker's background jobs): every document is read.
    const unbuilt = !this.changes.built;
    const frequentLeft = memo?.frequentLeft ?? left.wordIds.filter((wordId) => this.slotOf(wordId) >= 0);
    const frequentRight = memo?.frequentRight ?? right.wordIds.filter((wordId) => this.slotOf(wordId) >= 0);
    const prefixTable = unbuilt || right.prefix === undefined || frequentRight.length === right.wordIds.length ? null : this.prefixTableOf(right, universe, countsReads);
    let lookup = memo?.byCost[cost];
    // A prefix table built since (its reads paid for it) changes what the tables hold: gathered again.
    if (lookup === undefined || lookup.prefixTable !== prefixTable) {
      // Pairs with a rare word, and changed documents, are not in the tables: those documents are read.
      const toRead = this.changes.unsettled(this.documents).clone();
      if (!unbuilt && frequentLeft.length < left.wordIds.length) toRead.orInPlace(this.rareDocsOf(left.wordIds, left.parts));
      if (!unbuilt && frequentRight.length < right.wordIds.length) {
        toRead.orInPlace(prefixTable === null ? this.rareDocsOf(right.wordIds, right.parts) : this.uncoveredRareDocsOf(right.wordIds, right.prefix!, right.parts));
      }
      const docs = this.tablesDocsWithin(cost, left, right, frequentLeft, frequentRight, prefixTable);
      toRead.andNotInPlace(docs);
      lookup = { prefixTable, docs, toRead, read: new RoaringBitmap32(), readWithin: new RoaringBitmap32() };
      if (memo !== undefined) {
        memo.frequentLeft = frequentLeft;
        memo.frequentRight = frequentRight;
        memo.byCost[cost] = lookup;
      }
    }
    const within = bitmaps.and(lookup.docs, universe);
    const unsettled = bitmaps.and(lookup.toRead, universe);
    if (!lookup.read.isEmpty && !unsettled.isEmpty) {
      // Read by an earlier lookup of this search: its answer stands.
      if (unsettled.intersects(lookup.readWithin)) within.orInPlace(bitmaps.and(lookup.readWithin, unsettled));
      unsettled.andNotInPlace(lookup.read);
    }
    return { within, unsettled, lookup };
  }

  /** The documents the tables (and words standing for both sides) put within `cost`, whatever the universe; unchanged documents only. */
  private tablesDocsWithin(cost: 1 | 2, left: PairSide, right: PairSide, frequentLeft: readonly number[], frequentRight: readonly number[],
    prefixTable: PrefixTable | null): RoaringBitmap32 {
    const runs: (Uint32Array | RoaringBitmap32)[] = [];
    this.collectRuns(this.tables[0]!, frequentLeft, frequentRight, runs);
    if (cost === 2) {
      this.collectRuns(this.tables[1]!, frequentLeft, frequentRight, runs);
      this.collectRuns(this.tables[0]!, frequentRight, frequentLeft, runs);
    }
    if (prefixTable !== null) this.collectPrefixRuns(prefixTable, cost, frequentLeft, runs);
    // One bitmap from all the runs (a bitmap per short run was most of the garbage of a query); long runs come as bitmaps.
    const bitmaps = runs.filter((run): run is RoaringBitmap32 => !(run instanceof Uint32Array));
    const found = bitmaps.length === 0 ? new RoaringBitmap32() : RoaringBitmap32.orMany(bitmaps);
    for (const run of runs) if (run instanceof Uint32Array) found.addMany(run);
    found.andNotInPlace(this.changes.changed);
    for (const wordId of left.wordIds) if (right.set[wordId] === 1) found.orInPlace(this.vocabulary.docs(wordId));
    return found;
  }

  private collectRuns(table: PairTable, leftWords: readonly number[], rightWords: readonly number[], into: (Uint32Array | RoaringBitmap32)[]): void {
    for (const leftWord of leftWords) {
      const base = this.slotOf(leftWord) * this.slotCount;
      for (const rightWord of rightWords) {
        const docs = table.docsOrBitmapOf(base + this.slotOf(rightWord));
        if (docs !== null) into.push(docs);
      }
    }
  }

  /** The prefix side's table, when it has one or the reads of its rare words' documents have paid for one. */
  private prefixTableOf(side: PairSide, universe: RoaringBitmap32, countsReads = true): PrefixTable | null {
    const rareDocs = this.rareDocsOf(side.wordIds, side.parts);
    return this.prefixTables.tableOf(side.prefix!, side.wordIds, { slotOfWord: this.slotOfWord, slotCount: this.slotCount },
      countsReads ? universe.andCardinality(rareDocs) : 0, rareDocs.size);
  }

  /** The runs of the left words followed (cost 2: or preceded) by a rare word of the prefix. */
  private collectPrefixRuns(table: PrefixTable, cost: 1 | 2, leftWords: readonly number[], into: (Uint32Array | RoaringBitmap32)[]): void {
    const relations = cost === 1 ? [WORD_THEN_PREFIX_GAP_1] : [WORD_THEN_PREFIX_GAP_1, WORD_THEN_PREFIX_GAP_2, PREFIX_THEN_WORD_GAP_1];
    for (const leftWord of leftWords) {
      const slot = this.slotOf(leftWord);
      for (const relation of relations) {
        const docs = prefixPairDocs(table, slot, relation);
        if (docs !== null) into.push(docs);
      }
    }
  }

  private slotOf(wordId: number): number {
    return wordId < this.slotOfWord.length ? this.slotOfWord[wordId]! : -1;
  }

  /** The documents of the rare words (no slot) among `wordIds`; with `parts`, those of parts.base's (memoized) and of the extra words'. */
  private rareDocsOf(wordIds: readonly number[], parts?: PairSide['parts']): RoaringBitmap32 {
    const memo = this.rareDocsMemo.get(wordIds);
    if (memo !== undefined && memo.generation === this.generation) return memo.docs;
    const docs = parts !== undefined ? RoaringBitmap32.or(this.rareDocsOf(parts.base), this.rareDocsOf(parts.extra))
      : unionOfMany(mapPacked(wordIds.filter((wordId) => this.slotOf(wordId) < 0), (wordId) => this.vocabulary.docs(wordId)), idSpanOf(this.documents));
    this.rareDocsMemo.set(wordIds, { generation: this.generation, docs });
    return docs;
  }

  /**
   * The documents of the rare words not starting with `prefix` (typo derivations, synonyms, marked
   * words): the prefix pair table holds the pairs of the others, in the documents that did not change
   * since the build (a word without documents then has only changed ones).
   */
  private uncoveredRareDocsOf(wordIds: readonly number[], prefix: string, parts?: PairSide['parts']): RoaringBitmap32 {
    const memo = this.uncoveredDocsMemo.get(wordIds);
    if (memo !== undefined && memo.generation === this.generation && memo.prefix === prefix) return memo.docs;
    let docs: RoaringBitmap32;
    if (parts !== undefined) {
      docs = RoaringBitmap32.or(this.uncoveredRareDocsOf(parts.base, prefix), this.uncoveredRareDocsOf(parts.extra, prefix));
    } else {
      const uncovered = wordIds.filter((wordId) => this.slotOf(wordId) < 0 && !this.vocabulary.wordOf(wordId).startsWith(prefix));
      docs = unionOfMany(mapPacked(uncovered, (wordId) => this.vocabulary.docs(wordId)), idSpanOf(this.documents));
    }
    this.uncoveredDocsMemo.set(wordIds, { generation: this.generation, prefix, docs });
    return docs;
  }
}

/** Whether the document holds the pair at proximity cost `cost` or less (see pairDocsWithin). */
export function pairCostAtMost(forward: ForwardIndex, docId: number, cost: 1 | 2, left: WordSet, right: WordSet): boolean {
  const data = forward.arena;
  const offset = forward.offsetOf(docId);
  if (offset < 0) return false;
  const start = tokensStartAt(data, offset);
  const end = start + tokenCountAt(data, offset) * 2;
  for (let k = start; k < end; k += 2) {
    if (left[data[k]!] !== 1) continue;
    if (right[data[k]!] === 1) return true;
    for (let next = k + 2; next < end && next <= k + 2 * cost; next += 2) {
      const gap = positionGap(data[k + 1]!, data[next + 1]!);
      if (right[data[next]!] === 1 && gap >= 1 && gap <= cost) return true;
    }
    if (cost === 2 && k > start && right[data[k - 2]!] === 1 && positionGap(data[k - 1]!, data[k + 1]!) === 1) return true;
  }
  return false;
}
