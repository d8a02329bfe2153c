// A shard's in-memory state as one binary file, so a restart loads it instead of re-analyzing every
// document: the vocabulary (words, postings, lexicon order), the forward index (arena and offset
// table), the documents bitmap and the rank / position postings. Lazily built structures (derivation
// caches, pair tables, sole-word fields) are left out: a restored shard builds them on first need.
// The FacetStore's part is in facet-snapshot.ts.
//
// Validity is the caller's identity: the file is used only when its index, shard, shard count, commit
// stamp (IndexRecord.commitSeq), settings fingerprint and format version all equal the expected ones.
import { createHash } from 'node:crypto';
import roaring from 'roaring';
import type { IndexSettings } from '../../settings/index-settings.js';
import { encodeBitmapsSteps, SerializedBitmaps } from './bitmap-list-codec.js';
import { finishSteps } from '../sliced-jobs.js';
import { encodeFacets, restoreFacets, type FacetSections } from '../facets/facet-snapshot.js';
import type { IndexConfig } from '../index-config.js';
import { ShardIndex } from '../shard-index.js';
import { SnapshotFormatError, SnapshotReader, SnapshotWriter } from './snapshot-container.js';
import type { RestoredTokenKeyPostings, TokenKeyPostings, TokenKeyPostingsState } from '../postings/token-key-postings.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Bump when what a snapshot holds, or how, changes: older files are then ignored (rebuilt). */
// 3: the facets' `_geojson` lines and polygons (geojsonShapes).
export const SHARD_SNAPSHOT_VERSION = 3;

export interface ShardSnapshotIdentity {
  indexUid: string;
  shard: number;
  shardCount: number;
  /** The index's commit stamp of the state held. */
  commitSeq: number;
  settingsFingerprint: string;
}

export function settingsFingerprint(settings: IndexSettings): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex');
}

const enum ListKind { Unbuilt = 0, InArena = 1, Pairs = 2, Bitmaps = 3 }

export function encodeShardSnapshot(index: ShardIndex, identity: ShardSnapshotIdentity): Uint8Array[] {
  return finishSteps(encodeShardSnapshotSteps(index, identity));
}

/**
 * encodeShardSnapshot in steps of about a millisecond (SLICE_POLICY): the quiet-time save runs between
 * searches, and as one step (190-310 ms at 100,000 npm documents) it held the searches landing during
 * it. A write, reload, load or drop cancels the job; searches only build lazy lists meanwhile: a rank /
 * position structure is listed from one exportState (a full rebuild replaces its arrays, and the lists
 * listed are not changed in place), so what is encoded is one consistent state of it.
 */
export function* encodeShardSnapshotSteps(index: ShardIndex, identity: ShardSnapshotIdentity): Generator<void, Uint8Array[]> {
  const writer = new SnapshotWriter();
  const vocabulary = yield* index.vocabulary.exportStateSteps();
  const postings = yield* encodeBitmapsSteps(vocabulary.postings);
  const forward = index.forward.exportState();
  const documents = index.documents.serialize('portable');
  const words = yield* writer.addJsonArraySteps(vocabulary.words);
  const sections = {
    words,
    postingBytes: writer.add(postings.bytes),
    postingEnds: writer.add(postings.ends),
    sortedIds: writer.add(vocabulary.sortedIds),
    arena: writer.add(forward.arena),
    offsetKeys: writer.add(forward.offsets.keys),
    offsetValues: writer.add(forward.offsets.values),
    documents: writer.add(documents),
  };
  yield;
  const rank = yield* encodeTokenKeyPostings(writer, index.rankPostings.exportState());
  yield;
  const position = yield* encodeTokenKeyPostings(writer, index.positionPostings.exportState());
  yield;
  const facets = encodeFacets(writer, index.facets);
  yield;
  return yield* writer.chunksSteps({
    version: SHARD_SNAPSHOT_VERSION, ...identity, sections, rank, position, facets,
    garbage: forward.garbage, offsetCount: forward.offsets.count, documentCount: index.documents.size,
  });
}

interface TokenKeySections {
  kinds: number;
  pairEnds: number;
  pairs: number;
  keyCounts: number;
  bitmapBytes: number;
  bitmapEnds: number;
  arena: number;
  arenaStarts: number;
  arenaEnds: number;
  builtTokens: number;
  writtenSinceBuild: number;
}

function* encodeTokenKeyPostings(writer: SnapshotWriter, state: TokenKeyPostingsState): Generator<void, TokenKeySections> {
  const kinds = new Uint8Array(state.byWord.length);
  const pairArrays: Uint32Array[] = [];
  const keyCounts: number[] = [];
  const bitmaps: RoaringBitmap32[] = [];
  // Listed in one step: a search may build a word's lists between two steps (byWord is its live array).
  state.byWord.forEach((lists, wordId) => {
    if (lists === undefined) kinds[wordId] = ListKind.Unbuilt;
    else if (lists === null) kinds[wordId] = ListKind.InArena;
    else if (lists instanceof Uint32Array) {
      kinds[wordId] = ListKind.Pairs;
      pairArrays.push(lists);
    } else {
      kinds[wordId] = ListKind.Bitmaps;
      keyCounts.push(lists.length);
      bitmaps.push(...lists);
    }
  });
  const pairEnds = new Uint32Array(pairArrays.length);
  let total = 0;
  pairArrays.forEach((pairs, k) => { total += pairs.length; pairEnds[k] = total; });
  const pairs = new Uint32Array(total);
  pairArrays.forEach((array, k) => pairs.set(array, k === 0 ? 0 : pairEnds[k - 1]!));
  yield;
  const encoded = yield* encodeBitmapsSteps(bitmaps);
  return {
    kinds: writer.add(kinds),
    pairEnds: writer.add(pairEnds),
    pairs: writer.add(pairs),
    keyCounts: writer.add(Uint32Array.from(keyCounts)),
    bitmapBytes: writer.add(encoded.bytes),
    bitmapEnds: writer.add(encoded.ends),
    arena: writer.add(state.arena),
    arenaStarts: writer.add(state.arenaStarts),
    arenaEnds: writer.add(state.arenaEnds),
    builtTokens: state.builtTokens,
    writtenSinceBuild: state.writtenSinceBuild,
  };
}

/**
 * The shard held by a snapshot (its bytes, or a reader of its file); throws SnapshotFormatError when the file is not a valid snapshot
 * of exactly `expected` (then the caller rebuilds from LMDB).
 */
export function decodeShardSnapshot(file: Uint8Array | SnapshotReader, expected: ShardSnapshotIdentity, config: IndexConfig): ShardIndex {
  const reader = file instanceof SnapshotReader ? file : SnapshotReader.fromBytes(file);
  const meta = reader.meta;
  if (meta['version'] !== SHARD_SNAPSHOT_VERSION) throw new SnapshotFormatError('format version');
  for (const [key, value] of Object.entries(expected)) {
    if (meta[key] !== value) throw new SnapshotFormatError(`${key} differs`);
  }
  try {
    return restoreShard(reader, config);
  } catch (cause) {
    if (cause instanceof SnapshotFormatError) throw cause;
    throw new SnapshotFormatError(`malformed: ${(cause as Error).message}`);
  }
}

function restoreShard(reader: SnapshotReader, config: IndexConfig): ShardIndex {
  const meta = reader.meta;
  const sections = meta['sections'] as Record<string, number>;
  const index = new ShardIndex(config);
  const words = reader.json(sections['words']!) as string[];
  const postings = new SerializedBitmaps(reader.bytes(sections['postingBytes']!), reader.uint32(sections['postingEnds']!));
  const sortedIds = reader.uint32(sections['sortedIds']!);
  if (!Array.isArray(words) || postings.length !== words.length || sortedIds.length !== words.length) throw new SnapshotFormatError('vocabulary sizes');
  for (const id of sortedIds) if (id >= words.length) throw new SnapshotFormatError('lexicon ids');
  index.vocabulary.importState({ words, postings, sortedIds: sortedIds.slice() });
  // The arena is kept as read when it has a buffer of its own (SnapshotReader.fromFile), else copied,
  // so the rest of the file (postings bytes and all) can be collected.
  index.forward.importState({
    arena: reader.ownsBuffer(sections['arena']!) ? reader.uint32(sections['arena']!) : reader.uint32(sections['arena']!).slice(),
    garbage: meta['garbage'] as number,
    offsets: { keys: reader.int32(sections['offsetKeys']!).slice(), values: reader.int32(sections['offsetValues']!).slice(), count: meta['offsetCount'] as number },
  });
  index.documents.deserialize(reader.bytes(sections['documents']!), 'portable');
  if (index.documents.size !== meta['documentCount'] || index.forward.documentCount !== index.documents.size) throw new SnapshotFormatError('document counts');
  restoreTokenKeyPostings(reader, meta['rank'] as TokenKeySections, index.rankPostings);
  restoreTokenKeyPostings(reader, meta['position'] as TokenKeySections, index.positionPostings);
  restoreFacets(reader, meta['facets'] as FacetSections, index.facets);
  return index;
}

function restoreTokenKeyPostings(reader: SnapshotReader, sections: TokenKeySections, target: TokenKeyPostings): void {
  const kinds = reader.bytes(sections.kinds);
  const pairEnds = reader.uint32(sections.pairEnds);
  const pairs = reader.uint32(sections.pairs).slice();
  const keyCounts = reader.uint32(sections.keyCounts);
  const bitmaps = new SerializedBitmaps(reader.bytes(sections.bitmapBytes), reader.uint32(sections.bitmapEnds));
  const byWord: RestoredTokenKeyPostings['byWord'][number][] = new Array(kinds.length);
  let pairList = 0;
  let keyList = 0;
  let bitmap = 0;
  for (let wordId = 0; wordId < kinds.length; wordId++) {
    switch (kinds[wordId]) {
      case ListKind.Unbuilt: byWord[wordId] = undefined; break;
      case ListKind.InArena: byWord[wordId] = null; break;
      case ListKind.Pairs: {
        const start = pairList === 0 ? 0 : pairEnds[pairList - 1]!;
        const end = pairEnds[pairList++]!;
        if (end === undefined || end < start || end > pairs.length) throw new SnapshotFormatError('pair lists');
        byWord[wordId] = pairs.subarray(start, end);
        break;
      }
      case ListKind.Bitmaps: {
        const count = keyCounts[keyList++]!;
        if (count === undefined || bitmap + count > bitmaps.length) throw new SnapshotFormatError('key bitmaps');
        byWord[wordId] = { first: bitmap, count };
        bitmap += count;
        break;
      }
      default: throw new SnapshotFormatError('list kind');
    }
  }
  target.importState({
    byWord, serializedLists: bitmaps, arena: reader.uint32(sections.arena).slice(), arenaStarts: reader.uint32(sections.arenaStarts).slice(),
    arenaEnds: reader.uint32(sections.arenaEnds).slice(), builtTokens: sections.builtTokens, writtenSinceBuild: sections.writtenSinceBuild,
  });
}
