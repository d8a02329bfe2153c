// Per short prefix (2 or 3 characters), the documents holding a word that starts with it, in ordinary
// and in typo-disabled attributes alike (the plain and the exactAttributeKey-marked words; milli's
// word_prefix_docids): exactly the union a prefix term's zero-typo level takes over its words
// (words/derivations.ts derivationsFromWords). A short prefix stands for hundreds to thousands of
// words, and that union was the largest share of deriving under writes: each write batch of more than
// 64 documents drops the shard's caches whole (shard-engine.ts), so every hot prefix was unioned again
// after each batch (bench mixed-engine, 100k npm rows, 1,000 rows a second: unionOfMany's self time
// 366 ms read-only -> 2,088 ms mixed per 20,000 searches; 2- and 3-letter prefixes most of it).
// Unlike a cache this FOLLOWS the writes: each upsert adds its document to the prefixes of its words,
// each delete (an upsert's old version too) removes it from the prefixes of the words it held (the
// whole document leaves, so no remaining word of it keeps a prefix). Built once, in slices, from the
// vocabulary's posting lists (never at once by a search: until built, derivations union as before);
// kept in snapshots. ShardIndex.prefixPostings false: neither built nor kept (tests, A/B).
import roaring from 'roaring';
import type { DerivedSnapshotPart, DerivedStructure } from '../derived-structure.js';
import type { ForwardIndex } from '../documents/forward-index.js';
import type { Vocabulary } from '../words/vocabulary.js';
import { EXACT_ATTRIBUTE_MARK } from '../words/derivations.js';
import { SLICE_POLICY } from '../sliced-jobs.js';
import { encodeBitmapsSteps, SerializedBitmaps } from '../snapshot/bitmap-list-codec.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Prefixes of these lengths (in UTF-16 code units, as the lexicon compares words) get their documents kept. */
export const PREFIX_POSTING_LENGTHS: readonly number[] = [2, 3];

/** A build in progress: the lists made so far, and per document written meanwhile the prefixes its versions touched. */
interface PrefixBuild {
  lists: Map<string, RoaringBitmap32>;
  touched: Map<number, Set<string>>;
}

export class PrefixPostings implements DerivedStructure {
  /** Built lists by prefix (an emptied list stays, empty: a restored one would otherwise come back from `stored`); null: not built. */
  private lists: Map<string, RoaringBitmap32> | null = null;
  /** As a snapshot kept them (restored): each prefix's list decoded into `lists` on first use, by its index here. */
  private stored: { indexOf: Map<string, number>; prefixes: readonly string[]; lists: SerializedBitmaps } | null = null;
  private build: PrefixBuild | null = null;
  /** noteWrite's prefixes of one document (reused: one thread, no reentrancy). */
  private readonly keys = new Set<string>();
  private on = true;

  constructor(private readonly vocabulary: Vocabulary, private readonly forward: ForwardIndex, private readonly documents: RoaringBitmap32) {}

  /** False: the lists are dropped and neither built nor kept (unionOf answers undefined); true again: built at the next prepare. */
  get enabled(): boolean {
    return this.on;
  }

  set enabled(on: boolean) {
    this.on = on;
    if (!on) {
      this.lists = null;
      this.stored = null;
      this.build = null;
    }
  }

  get needsBuild(): boolean {
    return this.on && this.lists === null;
  }

  /**
   * The documents holding a word that starts with `prefix` (or its marked spelling), when kept: the
   * structure's own list, updated in place by later writes (read-only; a derivation holding it is
   * dropped by any write to one of its words, as one holding a word's own posting list is).
   */
  unionOf(prefix: string): RoaringBitmap32 | undefined {
    if (this.lists === null || !PREFIX_POSTING_LENGTHS.includes(prefix.length)) return undefined;
    return this.listOf(prefix, this.lists);
  }

  noteWrite(docId: number, added: boolean, wordIds: readonly number[]): void {
    const lists = this.lists;
    const build = this.build;
    if (lists === null && build === null) return;
    const keys = this.keys;
    keys.clear();
    for (let k = 0; k < wordIds.length; k++) prefixesOf(this.vocabulary.wordOf(wordIds[k]!), keys);
    if (lists !== null) {
      for (const key of keys) {
        const list = this.listOf(key, lists);
        if (added) {
          if (list === undefined) lists.set(key, new RoaringBitmap32([docId]));
          else list.add(docId);
        } else list?.remove(docId);
      }
    }
    if (build !== null) {
      let touched = build.touched.get(docId);
      if (touched === undefined) build.touched.set(docId, touched = new Set());
      for (const key of keys) touched.add(key);
    }
  }

  /**
   * The build in slices: each word's posting list OR-ed into its prefixes' lists (words interned since
   * the build started have documents only through writes, which it settles at its end: a document
   * written meanwhile leaves every prefix its versions touched and joins those of the words it holds now).
   */
  *buildSteps(): Generator<void, void, unknown> {
    if (!this.on) return;
    const build: PrefixBuild = { lists: new Map(), touched: new Map() };
    this.build = build;
    try {
      const vocabulary = this.vocabulary;
      const words = vocabulary.size;
      const keys = new Set<string>();
      let done = 0;
      for (let wordId = 0; wordId < words; wordId++) {
        const docs = vocabulary.docs(wordId);
        if (docs.isEmpty) continue;
        keys.clear();
        prefixesOf(vocabulary.wordOf(wordId), keys);
        for (const key of keys) {
          const list = build.lists.get(key);
          if (list === undefined) build.lists.set(key, docs.clone());
          else list.orInPlace(docs);
        }
        done += keys.size * (64 + docs.size);
        if (done >= SLICE_POLICY.documentsPerStep * 16) {
          done = 0;
          yield;
          if (this.build !== build) return;
        }
      }
      for (const [docId, touched] of build.touched) {
        for (const key of touched) build.lists.get(key)?.remove(docId);
        if (!this.documents.has(docId)) continue;
        keys.clear();
        for (const wordId of this.forward.wordIdsOf(docId)) prefixesOf(vocabulary.wordOf(wordId), keys);
        for (const key of keys) {
          const list = build.lists.get(key);
          if (list === undefined) build.lists.set(key, new RoaringBitmap32([docId]));
          else list.add(docId);
        }
      }
      for (const list of build.lists.values()) list.shrinkToFit();
      this.lists = build.lists;
      this.stored = null;
    } finally {
      if (this.build === build) this.build = null;
    }
  }

  /** Nothing to defer: searches never build it (they union the words' lists until it is built). */
  deferBuilds(): void {}

  /** Bytes held (bitmaps by their portable size, prefixes at ~48 bytes an entry). */
  get byteLength(): number {
    let bytes = this.stored === null ? 0 : this.stored.lists.byteLength;
    for (const list of (this.lists ?? new Map<string, RoaringBitmap32>()).values()) bytes += 48 + list.getSerializationSizeInBytes('portable');
    return bytes;
  }

  /** The prefix's list, decoded from the snapshot on first use. */
  private listOf(prefix: string, lists: Map<string, RoaringBitmap32>): RoaringBitmap32 | undefined {
    const list = lists.get(prefix);
    if (list !== undefined || this.stored === null) return list;
    const index = this.stored.indexOf.get(prefix);
    if (index === undefined) return undefined;
    const decoded = this.stored.lists.at(index);
    lists.set(prefix, decoded);
    return decoded;
  }

  *saveSnapshotSteps(writer: SnapshotWriter): Generator<void, DerivedSnapshotPart, unknown> {
    const lists = this.lists;
    if (lists === null) return null;
    if (this.stored !== null) for (const prefix of this.stored.prefixes) this.listOf(prefix, lists);
    this.stored = null;
    // Every list taken now: later writes change them in place, but a write cancels the save (derived-structure.ts).
    const entries = [...lists].filter(([, list]) => !list.isEmpty);
    const encoded = yield* encodeBitmapsSteps(entries.map(([, list]) => list));
    return { prefixes: writer.addJson(entries.map(([prefix]) => prefix)), listBytes: writer.add(encoded.bytes), listEnds: writer.add(encoded.ends) };
  }

  restoreSnapshot(reader: SnapshotReader, part: DerivedSnapshotPart): void {
    if (part === null || !this.on) return;
    const prefixes = reader.json(part['prefixes'] as number);
    let lists: SerializedBitmaps;
    try {
      lists = new SerializedBitmaps(reader.bytes(part['listBytes'] as number), reader.uint32(part['listEnds'] as number));
    } catch (cause) {
      throw new SnapshotFormatError(`prefix postings: ${(cause as Error).message}`);
    }
    if (!Array.isArray(prefixes) || prefixes.length !== lists.length || prefixes.some((prefix) => typeof prefix !== 'string')) {
      throw new SnapshotFormatError('prefix postings');
    }
    const indexOf = new Map<string, number>();
    prefixes.forEach((prefix: string, index) => indexOf.set(prefix, index));
    this.lists = new Map();
    this.stored = { indexOf, prefixes, lists };
  }
}

/** Adds the word's kept prefixes (its marked spelling's are the unmarked word's) to `into`. */
function prefixesOf(word: string, into: Set<string>): void {
  const start = word.startsWith(EXACT_ATTRIBUTE_MARK) ? EXACT_ATTRIBUTE_MARK.length : 0;
  for (const length of PREFIX_POSTING_LENGTHS) if (word.length - start >= length) into.add(word.slice(start, start + length));
}
