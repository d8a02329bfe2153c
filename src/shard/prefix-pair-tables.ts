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
// They stay true across writes because the documents written since the near-pair build are read
// anyway (near-pair-postings.ts), and are dropped when that build changes the slots.
import roaring from 'roaring';
import { tokenCountAt, tokensStartAt, type ForwardIndex } from './forward-index.js';
import { PairTable } from './pair-table.js';
import { WorthPerByteCache } from './worth-per-byte-cache.js';
import { idSpanOf, unionOfMany } from './bitmap-union.js';
import type { Vocabulary } from './vocabulary.js';

/** Relations of a frequent word to a rare word of the prefix; a table key is slot * RELATIONS + relation. */
export const WORD_THEN_PREFIX_GAP_1 = 0;
export const WORD_THEN_PREFIX_GAP_2 = 1;
export const PREFIX_THEN_WORD_GAP_1 = 2;
const RELATIONS = 3;

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

/** Which short prefixes the build makes tables for, and each rare word's table per prefix length. */
export interface ShortPrefixPlan {
  prefixes: string[];
  /** tableOfWord[length - 1][wordId]: index in `prefixes` of the word's prefix of that length, or -1. */
  tableOfWord: Int32Array[];
}

/** A prefix table's key for a slotted word standing in `relation` to one of the prefix's rare words. */
export function prefixTableKey(slot: number, relation: number): number {
  return slot * RELATIONS + relation;
}

export function prefixTableKeySpace(slotCount: number): number {
  return slotCount * RELATIONS;
}

/**
 * The short prefixes whose rare words (no slot) are in at least PREFIX_TABLE_POLICY.minDocuments
 * documents (counted with repeats: an upper bound), longest first.
 */
export function planShortPrefixes(vocabulary: Vocabulary, slotOfWord: Int32Array, skipWordsStartingWith: string): ShortPrefixPlan {
  const documentsOf = new Map<string, number>();
  const wordCount = vocabulary.size;
  for (let wordId = 0; wordId < wordCount; wordId++) {
    if ((slotOfWord[wordId] ?? -1) >= 0) continue;
    const documents = vocabulary.docs(wordId).size;
    if (documents === 0) continue;
    const word = vocabulary.wordOf(wordId);
    if (word.startsWith(skipWordsStartingWith)) continue;
    for (let length = 1; length <= Math.min(SHORT_PREFIX_LENGTH, word.length); length++) {
      const prefix = word.slice(0, length);
      documentsOf.set(prefix, (documentsOf.get(prefix) ?? 0) + documents);
    }
  }
  const prefixes = [...documentsOf].filter(([, documents]) => documents >= PREFIX_TABLE_POLICY.minDocuments).map(([prefix]) => prefix)
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const indexOf = new Map(prefixes.map((prefix, index) => [prefix, index]));
  const tableOfWord = Array.from({ length: SHORT_PREFIX_LENGTH }, () => new Int32Array(wordCount).fill(-1));
  if (prefixes.length === 0) return { prefixes, tableOfWord };
  for (let wordId = 0; wordId < wordCount; wordId++) {
    if ((slotOfWord[wordId] ?? -1) >= 0 || vocabulary.docs(wordId).size === 0) continue;
    const word = vocabulary.wordOf(wordId);
    for (let length = 1; length <= Math.min(SHORT_PREFIX_LENGTH, word.length); length++) {
      tableOfWord[length - 1]![wordId] = indexOf.get(word.slice(0, length)) ?? -1;
    }
  }
  return { prefixes, tableOfWord };
}

export class PrefixPairTables {
  /** The tables held; a prefix's worth is the documents its queries read (or would without its table). */
  private readonly tables = new WorthPerByteCache<PairTable>({
    maxBytes: PREFIX_TABLE_MEMORY.minBytes, sizeOf: (table) => table.byteLength + 64, sizeChanges: true,
  });

  constructor(private readonly vocabulary: Vocabulary, private readonly forward: ForwardIndex, private readonly documents: roaring.RoaringBitmap32) {}

  /** The slots changed: every table is stale; the budget follows the shard's size. */
  clear(documentCount: number): void {
    this.tables.clear();
    this.tables.maxBytes = Math.max(PREFIX_TABLE_MEMORY.minBytes, documentCount * PREFIX_TABLE_MEMORY.bytesPerDocument);
  }

  /** Bytes held (for memory reports). */
  get byteLength(): number {
    return this.tables.byteLength;
  }

  /** Tables built ahead (the short prefixes'), kept while the budget has room. */
  adopt(prefixes: readonly string[], tables: readonly PairTable[]): void {
    prefixes.forEach((prefix, index) => {
      const table = tables[index]!;
      if (this.tables.admit(0, table.byteLength)) this.tables.set(prefix, table);
    });
  }

  /** Whether the prefix has its table now (tests). */
  has(prefix: string): boolean {
    return this.tables.has(prefix);
  }

  /**
   * The table of the rare words (no slot) starting with `prefix`, taken from `wordIds` (which must
   * hold every word of the shard starting with it); null while there is none, and then the query is
   * about to read `reads` documents out of the `rareDocuments` of the term's rare words.
   */
  tableOf(prefix: string, wordIds: readonly number[], slots: WordSlots, reads: number, rareDocuments: number): PairTable | null {
    const known = this.tables.get(prefix, reads);
    if (known !== undefined) return known;
    if (rareDocuments < PREFIX_TABLE_POLICY.minDocuments) return null;
    const owed = this.tables.addWork(prefix, reads);
    if (owed * PREFIX_TABLE_POLICY.buildAfterReadsShare < rareDocuments) return null;
    // No room unless tables saving fewer reads per byte go: then its queries read their documents.
    if (!this.tables.admit(owed, rareDocuments * ESTIMATED_BYTES_PER_DOCUMENT)) return null;
    const rare = wordIds.filter((wordId) => (slots.slotOfWord[wordId] ?? -1) < 0 && this.vocabulary.wordOf(wordId).startsWith(prefix));
    const table = this.build(rare, unionOfMany(rare.map((wordId) => this.vocabulary.docs(wordId)), idSpanOf(this.documents)), slots);
    this.tables.set(prefix, table);
    return table;
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
export function prefixPairDocs(table: PairTable, slot: number, relation: number): Uint32Array | roaring.RoaringBitmap32 | null {
  return table.docsOrBitmapOf(slot * RELATIONS + relation);
}

/** Position difference of two packed (field << 16 | position) keys of one field; -1 across fields. */
function positionGap(key: number, next: number): number {
  return key >>> 16 === next >>> 16 ? (next & 0xffff) - (key & 0xffff) : -1;
}
