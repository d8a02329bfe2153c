// The lexicon's part of a shard snapshot (shard-snapshot.ts, format 6): its NearPrefixFilter's bits and
// its DeletionIndex's arrays as they are (words/near-prefix-filter.ts, words/deletion-index.ts), the
// index's node words as word ids. Without them a restored shard walked every word of a query's first
// letter until its quiet-time build (~0.6 s of CPU at 1M npm rows, which a steady search load kept
// from running) and built the filter in its first search. The words' order is the vocabulary's part.
import type { LexiconIndexes } from '../words/lexicon.js';
import type { Vocabulary } from '../words/vocabulary.js';
import { SLICE_POLICY, stepEndsEvery } from '../sliced-jobs.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from './snapshot-container.js';

/** The meta of the part: section numbers and counts; null members were not made when saved. */
export interface LexiconSections {
  nearPrefixes: { bits: number; keys: number } | null;
  deletions: {
    baseOffsets: number; baseEntries: number; baseShift: number; keySlots: number; keyCount: number;
    entryNodes: number; entryNext: number; entryCount: number; nodeSlots: number; nodeWordIds: number; nodeCapacity: number;
  } | null;
}

/** Adds the lexicon's indexes to the writer's sections (views of their arrays; the node words' ids in steps of SLICE_POLICY.wordsPerStep). */
export function* encodeLexiconSteps(writer: SnapshotWriter, vocabulary: Vocabulary): Generator<void, LexiconSections> {
  const { nearPrefixes, deletions } = vocabulary.lexicon.exportIndexes();
  const sections: LexiconSections = { nearPrefixes: null, deletions: null };
  if (nearPrefixes !== null) sections.nearPrefixes = { bits: writer.add(nearPrefixes.bits), keys: nearPrefixes.keys };
  if (deletions === null) return sections;
  const nodeWordIds = new Int32Array(deletions.nodeWords.length);
  for (let node = 0; node < nodeWordIds.length; node++) {
    if (stepEndsEvery(node, SLICE_POLICY.wordsPerStep)) yield;
    nodeWordIds[node] = vocabulary.idOf(deletions.nodeWords[node]!) ?? -1;
  }
  sections.deletions = {
    baseOffsets: writer.add(deletions.baseOffsets), baseEntries: writer.add(deletions.baseEntries), baseShift: deletions.baseShift,
    keySlots: writer.add(deletions.keySlots), keyCount: deletions.keyCount,
    entryNodes: writer.add(deletions.entryNodes), entryNext: writer.add(deletions.entryNext), entryCount: deletions.entryCount,
    nodeSlots: writer.add(deletions.nodeSlots), nodeWordIds: writer.add(nodeWordIds), nodeCapacity: deletions.nodeCapacity,
  };
  return sections;
}

/**
 * The lexicon's indexes from the part (the vocabulary's words already imported): the DeletionIndex's
 * base as views of the file (never written, only replaced by a build), the tables later words write
 * in place as copies (two shards decoded from one file must not share them); throws
 * SnapshotFormatError when the part does not fit the words.
 */
export function restoreLexicon(reader: SnapshotReader, part: LexiconSections | undefined, vocabulary: Vocabulary): void {
  if (part === undefined || part === null || typeof part !== 'object') throw new SnapshotFormatError('lexicon');
  const indexes: LexiconIndexes = { nearPrefixes: null, deletions: null };
  if (part.nearPrefixes !== null) indexes.nearPrefixes = { bits: reader.int32(part.nearPrefixes.bits).slice(), keys: part.nearPrefixes.keys };
  const saved = part.deletions;
  if (saved !== null) {
    const ids = reader.int32(saved.nodeWordIds);
    const nodeWords = new Array<string>(ids.length);
    const wordCount = vocabulary.size;
    for (let node = 0; node < ids.length; node++) {
      if (ids[node]! < 0 || ids[node]! >= wordCount) throw new SnapshotFormatError('lexicon node words');
      nodeWords[node] = vocabulary.wordOf(ids[node]!);
    }
    indexes.deletions = {
      baseOffsets: reader.uint32(saved.baseOffsets), baseEntries: reader.int32(saved.baseEntries), baseShift: saved.baseShift,
      keySlots: reader.int32(saved.keySlots).slice(), keyCount: saved.keyCount,
      entryNodes: reader.int32(saved.entryNodes).slice(), entryNext: reader.int32(saved.entryNext).slice(), entryCount: saved.entryCount,
      nodeSlots: reader.int32(saved.nodeSlots).slice(), nodeWords, nodeCapacity: saved.nodeCapacity,
    };
  }
  try {
    vocabulary.lexicon.importIndexes(indexes);
  } catch (cause) {
    throw new SnapshotFormatError(`lexicon: ${(cause as Error).message}`);
  }
}
