// Pair tables for a prefix's rare words (milli's word_prefix_pair_proximity_docids, built lazily):
// an as-you-type query's last term derives every word starting with its prefix, mostly words without
// a slot in the near-pair tables, and the documents of all of them in the universe were read one by
// one to find their pairs (half of a prefix query's time at 500,000 documents a shard). For a prefix
// whose rare words are in many documents, one pass over those documents records, per frequent word,
// where it stands just before (gap 1 or 2) or just after (gap 1) one of them; later queries with
// that prefix read the table instead. A table is built once the prefix's queries have read a
// quarter as many documents as the build reads: a prefix queried once or twice costs nothing more.
// Tables are kept per prefix within a byte budget that follows the shard's size, those saving the
// most reads per byte (worth-per-byte-cache.ts: a table evicted keeps its prefix's worth, and comes
// back only by evicting tables worth much less, so a loop of queries does not rebuild one per query).
// The short prefixes' tables (built with the near-pair tables) tag each document of a run with the
// rare word's next two characters, so a prefix up to two characters longer filters its runs from its
// short prefix's table instead of a build of its own (2-letter prefixes' builds were 40% of the
// first visits of prefix queries at 1,000,000 documents; 3-letter ones most of the rest).
// They stay true across writes because the documents written since the near-pair build are read
// anyway (near-pair-postings.ts), and are dropped when that build changes the slots.
import roaring from 'roaring';
import { tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import { PairTable } from './pair-table.js';
import { finishSteps, SLICE_POLICY } from '../sliced-jobs.js';
import { WorthPerByteCache } from '../search/worth-per-byte-cache.js';
import { idSpanOf, unionOfMany } from '../words/bitmap-union.js';
import type { Vocabulary } from '../words/vocabulary.js';

import { PREFIX_THEN_WORD_GAP_1, RELATIONS, WORD_THEN_PREFIX_GAP_1, WORD_THEN_PREFIX_GAP_2 } from './prefix-table-keys.js';

export { PREFIX_THEN_WORD_GAP_1, prefixTableKey, prefixTableKeySpace, WORD_THEN_PREFIX_GAP_1, WORD_THEN_PREFIX_GAP_2 } from './prefix-table-keys.js';

/** When a prefix gets a table (tests lower both so that small shards build them). */
export const PREFIX_TABLE_POLICY = {
  /** Below this many documents of the prefix's rare words, reading those in a universe costs little: no table. */
  minDocuments: 1024,
  /** A table is built once the prefix's queries have read 1/buildAfterReadsShare of its rare words' documents. */
  buildAfterReadsShare: 4,
};
/**
 * Memory for the tables of one shard, per document of the shard, and at least `minBytes`
 * (worth-per-byte-cache.ts keeps the tables that save the most reads per byte): the tables of every
 * prefix of 1 to 4 letters of a 500,000-document shard of the bench's movies took 89 MiB, those its
 * query mix asks for at 1,000,000 documents ~165 MiB. With 96 MiB at 1,000,000 documents, the
 * prefix queries spent half their time rebuilding tables.
 */
export const PREFIX_TABLE_MEMORY = { bytesPerDocument: 176, minBytes: 96 * 2 ** 20 };
/** A table's size before it is built, per document of the prefix's rare words (7-12 measured). */
const ESTIMATED_BYTES_PER_DOCUMENT = 9;

/** The near-pair tables' word slots the prefix tables are keyed by. */
export interface WordSlots {
  slotOfWord: Int32Array;
  slotCount: number;
}

/**
 * Prefixes of at most this many characters get their tables with the near-pair build, in the same
 * pass over the shard (near-pair-postings.ts), instead of one pass over their rare words' documents
 * each on demand: they are the prefixes with the most documents (a one-letter prefix's rare words
 * are in most of the shard), and as-you-type queries start with them.
 */
export const SHORT_PREFIX_LENGTH = 1;

/**
 * Characters after a short prefix that tag its table's documents: the prefixes up to
 * SHORT_PREFIX_LENGTH + SPLIT_LENGTH characters long filter their runs from the short prefix's table.
 */
export const SPLIT_LENGTH = 2;
/** Splits a table can tell apart (a tag is 16 bits); a short prefix with more gets an untagged table. */
const MAX_SPLITS = 65536;

/** Which short prefixes the build makes tables for, each rare word's table, and its split in that table. */
export interface ShortPrefixPlan {
  prefixes: string[];
  /** tableOfWord[wordId]: index in `prefixes` of the word's short prefix, or -1. */
  tableOfWord: Int32Array;
  /** splitOfWord[wordId]: the tag of the word, its index in its table's `splits`. */
  splitOfWord: Int32Array;
  /**
   * Per table, the distinct SPLIT_LENGTH characters after the short prefix among its words, sorted
   * ('' for a word no longer than it); null: too many, the table is not tagged (tags all 0).
   */
  splits: (string[] | null)[];
}


/**
 * The short prefixes whose rare words (no slot) are in at least PREFIX_TABLE_POLICY.minDocuments
 * documents (counted with repeats: an upper bound), longest first.
 */
export function planShortPrefixes(vocabulary: Vocabulary, slotOfWord: Int32Array, skipWordsStartingWith: string): ShortPrefixPlan {
  return finishSteps(planShortPrefixesSteps(vocabulary, slotOfWord, skipWordsStartingWith));
}

/**
 * planShortPrefixes in steps of SLICE_POLICY.wordsPerStep words (the near-pair build in the background:
 * its three passes over every word, one step, took ~5-10% of the build, far over a catch-up slice).
 */
export function* planShortPrefixesSteps(vocabulary: Vocabulary, slotOfWord: Int32Array, skipWordsStartingWith: string): Generator<void, ShortPrefixPlan, unknown> {
  const documentsOf = new Map<string, number>();
  const wordCount = vocabulary.size;
  const prefixOf = (word: string) => word.slice(0, SHORT_PREFIX_LENGTH);
  const isPlanned = (wordId: number) => (slotOfWord[wordId] ?? -1) < 0 && vocabulary.docs(wordId).size > 0;
  for (let wordId = 0; wordId < wordCount; wordId++) {
    if (wordId % SLICE_POLICY.wordsPerStep === SLICE_POLICY.wordsPerStep - 1) yield;
    if (!isPlanned(wordId)) continue;
    const word = vocabulary.wordOf(wordId);
    if (word.startsWith(skipWordsStartingWith)) continue;
    documentsOf.set(prefixOf(word), (documentsOf.get(prefixOf(word)) ?? 0) + vocabulary.docs(wordId).size);
  }
  const prefixes = [...documentsOf].filter(([, documents]) => documents >= PREFIX_TABLE_POLICY.minDocuments).map(([prefix]) => prefix)
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const indexOf = new Map(prefixes.map((prefix, index) => [prefix, index]));
  const tableOfWord = new Int32Array(wordCount).fill(-1);
  const splitOfWord = new Int32Array(wordCount).fill(-1);
  const splitSets = prefixes.map(() => new Set<string>());
  for (let wordId = 0; wordId < wordCount; wordId++) {
    if (wordId % SLICE_POLICY.wordsPerStep === SLICE_POLICY.wordsPerStep - 1) yield;
    if (!isPlanned(wordId)) continue;
    const word = vocabulary.wordOf(wordId);
    const table = word.startsWith(skipWordsStartingWith) ? undefined : indexOf.get(prefixOf(word));
    if (table === undefined) continue;
    tableOfWord[wordId] = table;
    splitSets[table]!.add(word.slice(SHORT_PREFIX_LENGTH, SHORT_PREFIX_LENGTH + SPLIT_LENGTH));
  }
  const splits = splitSets.map((set) => (set.size > MAX_SPLITS ? null : [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))));
  const splitIndexes = splits.map((list) => new Map((list ?? []).map((split, index) => [split, index])));
  for (let wordId = 0; wordId < wordCount; wordId++) {
    if (wordId % SLICE_POLICY.wordsPerStep === SLICE_POLICY.wordsPerStep - 1) yield;
    const table = tableOfWord[wordId]!;
    if (table >= 0) splitOfWord[wordId] = splitIndexes[table]!.get(vocabulary.wordOf(wordId).slice(SHORT_PREFIX_LENGTH, SHORT_PREFIX_LENGTH + SPLIT_LENGTH)) ?? 0;
  }
  return { prefixes, tableOfWord, splitOfWord, splits };
}

/**
 * A prefix's pair table as its lookups see it: its own table whole, or the documents tagged with its
 * splits in its short prefix's table (the same object while that table is held: pair lookup memos
 * compare it).
 */
export class PrefixTable {
  /** `firstSplit` > `lastSplit`: no word of the table starts with the prefix. */
  constructor(readonly table: PairTable, private readonly whole: boolean, private readonly firstSplit = 0, private readonly lastSplit = 0) {}

  /** The documents where the slotted word stands in the relation to one of the prefix's rare words, or null. */
  docsOf(slot: number, relation: number): Uint32Array | roaring.RoaringBitmap32 | null {
    const key = slot * RELATIONS + relation;
    if (this.whole) return this.table.docsOrBitmapOf(key);
    return this.firstSplit > this.lastSplit ? null : this.table.docsTaggedWithin(key, this.firstSplit, this.lastSplit);
  }
}

/** A table held: tagged by the characters after its prefix (`splits`, sorted), or not (null: built on demand, or too many). */
interface HeldTable {
  table: PairTable;
  splits: readonly string[] | null;
}

/** Views kept at most (one per prefix looked up; dropped all at once beyond, which only costs memos a new gathering). */
const MAX_VIEWS = 4096;

export class PrefixPairTables {
  /** The tables held; a prefix's worth is the documents its queries read (or would without its table). */
  private readonly tables = new WorthPerByteCache<HeldTable>({
    maxBytes: PREFIX_TABLE_MEMORY.minBytes, sizeOf: (held) => held.table.byteLength + 64, sizeChanges: true,
  });
  private readonly views = new Map<string, PrefixTable>();
  /** The prefixes of the tables adopted from the last build (a snapshot keeps those still held). */
  private adoptedPrefixes: readonly string[] = [];

  constructor(private readonly vocabulary: Vocabulary, private readonly forward: ForwardIndex, private readonly documents: roaring.RoaringBitmap32) {}

  /** The slots changed: every table is stale; the budget follows the shard's size. */
  clear(documentCount: number): void {
    this.tables.clear();
    this.views.clear();
    this.adoptedPrefixes = [];
    this.tables.maxBytes = Math.max(PREFIX_TABLE_MEMORY.minBytes, documentCount * PREFIX_TABLE_MEMORY.bytesPerDocument);
  }

  /** Bytes held (for memory reports). */
  get byteLength(): number {
    return this.tables.byteLength;
  }

  /** Tables built ahead (the short prefixes', split as `splits` tell), kept while the budget has room. */
  adopt(prefixes: readonly string[], tables: readonly PairTable[], splits: readonly (readonly string[] | null)[]): void {
    this.adoptedPrefixes = [...this.adoptedPrefixes, ...prefixes];
    prefixes.forEach((prefix, index) => {
      const table = tables[index]!;
      if (this.tables.admit(0, table.byteLength)) this.tables.set(prefix, { table, splits: splits[index] ?? null });
    });
  }

  /** The adopted tables still held, with their prefixes and splits (what a snapshot keeps: the ones built on demand are not). */
  adoptedHeld(): { prefixes: string[]; tables: PairTable[]; splits: (readonly string[] | null)[] } {
    const held = { prefixes: [] as string[], tables: [] as PairTable[], splits: [] as (readonly string[] | null)[] };
    for (const prefix of this.adoptedPrefixes) {
      const entry = this.tables.has(prefix) ? this.tables.get(prefix, 0) : undefined;
      if (entry === undefined) continue;
      held.prefixes.push(prefix);
      held.tables.push(entry.table);
      held.splits.push(entry.splits);
    }
    return held;
  }

  /** Whether the prefix's lookups find a table now, its own or its short prefix's (tests). */
  has(prefix: string): boolean {
    if (this.tables.has(prefix)) return true;
    const short = shortPrefixOf(prefix);
    return short !== null && this.tables.has(short) && this.tables.get(short, 0)!.splits !== null;
  }

  /**
   * The table of the rare words (no slot) starting with `prefix`, taken from `wordIds` (which must
   * hold every word of the shard starting with it); null while there is none, and then the query is
   * about to read `reads` documents out of the `rareDocuments` of the term's rare words.
   */
  tableOf(prefix: string, wordIds: readonly number[], slots: WordSlots, reads: number, rareDocuments: number): PrefixTable | null {
    const own = this.tables.get(prefix, reads);
    if (own !== undefined) return this.viewOf(prefix, prefix, own);
    const short = shortPrefixOf(prefix);
    const parent = short === null ? undefined : this.tables.get(short, reads);
    if (parent !== undefined && parent.splits !== null) return this.viewOf(prefix, short!, parent);
    if (rareDocuments < PREFIX_TABLE_POLICY.minDocuments) return null;
    const owed = this.tables.addWork(prefix, reads);
    if (owed * PREFIX_TABLE_POLICY.buildAfterReadsShare < rareDocuments) return null;
    // No room unless tables saving fewer reads per byte go: then its queries read their documents.
    if (!this.tables.admit(owed, rareDocuments * ESTIMATED_BYTES_PER_DOCUMENT)) return null;
    const rare = wordIds.filter((wordId) => (slots.slotOfWord[wordId] ?? -1) < 0 && this.vocabulary.wordOf(wordId).startsWith(prefix));
    const held = { table: this.build(rare, unionOfMany(rare.map((wordId) => this.vocabulary.docs(wordId)), idSpanOf(this.documents)), slots), splits: null };
    this.tables.set(prefix, held);
    return this.viewOf(prefix, prefix, held);
  }

  /** The prefix's view of the table held under `heldPrefix` (the prefix itself, or its short prefix): the same object while that table stays. */
  private viewOf(prefix: string, heldPrefix: string, held: HeldTable): PrefixTable {
    const known = this.views.get(prefix);
    if (known !== undefined && known.table === held.table) return known;
    if (this.views.size >= MAX_VIEWS) this.views.clear();
    const view = held.splits === null || prefix === heldPrefix ? new PrefixTable(held.table, true) : splitView(held.table, held.splits, prefix.slice(heldPrefix.length));
    this.views.set(prefix, view);
    return view;
  }

  private build(rare: readonly number[], documents: roaring.RoaringBitmap32, slots: WordSlots): PairTable {
    const occurrences = this.collectOccurrences(rare, documents, slots);
    // The table's two passes (count, fill) replay the occurrences instead of reading the documents twice.
    const [table] = PairTable.buildMany(1, slots.slotCount * RELATIONS, (emit) => {
      for (let k = 0; k < occurrences.length; k += 2) emit(0, occurrences[k]!, occurrences[k + 1]!);
    });
    return table!;
  }

  /** (key, docId) for each slotted word next to one of the rare words, documents ascending. */
  private collectOccurrences(rare: readonly number[], documents: roaring.RoaringBitmap32, slots: WordSlots): Uint32Array {
    const isRare = new Uint8Array(rare.reduce((max, wordId) => Math.max(max, wordId), 0) + 1);
    for (const wordId of rare) isRare[wordId] = 1;
    const { slotOfWord } = slots;
    const slotOf = (wordId: number) => (wordId < slotOfWord.length ? slotOfWord[wordId]! : -1);
    let occurrences = new Uint32Array(1 << 12);
    let length = 0;
    const emit = (key: number, docId: number) => {
      if (length === occurrences.length) {
        const grown = new Uint32Array(length * 2);
        grown.set(occurrences);
        occurrences = grown;
      }
      occurrences[length++] = key;
      occurrences[length++] = docId;
    };
    const data = this.forward.arena;
    for (const docId of documents.toUint32Array()) {
      const offset = this.forward.offsetOf(docId);
      if (offset < 0) continue;
      const start = tokensStartAt(data, offset);
      const end = start + tokenCountAt(data, offset) * 2;
      for (let k = start; k < end; k += 2) {
        if (isRare[data[k]!] !== 1) continue;
        // Positions ascend within a field, so a word `gap` positions away is at most `gap` tokens away.
        for (let before = k - 2; before >= start && before >= k - 4; before -= 2) {
          const gap = positionGap(data[before + 1]!, data[k + 1]!);
          const slot = slotOf(data[before]!);
          if (slot >= 0 && (gap === 1 || gap === 2)) emit(slot * RELATIONS + (gap === 1 ? WORD_THEN_PREFIX_GAP_1 : WORD_THEN_PREFIX_GAP_2), docId);
        }
        const after = k + 2;
        if (after < end && positionGap(data[k + 1]!, data[after + 1]!) === 1) {
          const slot = slotOf(data[after]!);
          if (slot >= 0) emit(slot * RELATIONS + PREFIX_THEN_WORD_GAP_1, docId);
        }
      }
    }
    return occurrences.subarray(0, length);
  }
}

/** The documents where the slotted word stands in the relation to one of the prefix's rare words (a view), or null. */
export function prefixPairDocs(table: PrefixTable, slot: number, relation: number): Uint32Array | roaring.RoaringBitmap32 | null {
  return table.docsOf(slot, relation);
}

/** The short prefix whose split table may hold the prefix's words, or null (the prefix is short itself, or too long). */
function shortPrefixOf(prefix: string): string | null {
  return prefix.length > SHORT_PREFIX_LENGTH && prefix.length <= SHORT_PREFIX_LENGTH + SPLIT_LENGTH ? prefix.slice(0, SHORT_PREFIX_LENGTH) : null;
}

/** The splits starting with `rest` (contiguous: sorted), as a view of the table. */
function splitView(table: PairTable, splits: readonly string[], rest: string): PrefixTable {
  let first = 0;
  while (first < splits.length && !splits[first]!.startsWith(rest)) first++;
  let last = first - 1;
  while (last + 1 < splits.length && splits[last + 1]!.startsWith(rest)) last++;
  return new PrefixTable(table, first === 0 && last === splits.length - 1, first, last);
}

/** Position difference of two packed (field << 16 | position) keys of one field; -1 across fields. */
function positionGap(key: number, next: number): number {
  return key >>> 16 === next >>> 16 ? (next & 0xffff) - (key & 0xffff) : -1;
}
