// A shard's in-memory state as one binary file, so a restart loads it instead of re-analyzing every
// document: the vocabulary (words, postings, lexicon order), the lexicon's indexes (lexicon-snapshot.ts),
// the forward index (arena and offset table), the documents bitmap, and each derived structure as its snapshot member writes it
// (derived-structure.ts: rank / position postings, pair tables, sole-word fields, field-start pairs).
// Caches (derivations, pair memos, facet sort caches) are left out. The FacetStore's part is in facet-snapshot.ts.
//
// Validity is the caller's identity: the file is used only when its index, shard, shard count, commit
// stamp (IndexRecord.commitSeq), settings fingerprint and format version all equal the expected ones.
import { createHash } from 'node:crypto';
import type { IndexSettings } from '../../settings/index-settings.js';
import { isGeojsonEnabled } from '../../documents/geo-field.js';
import { attributePatternsOf, PatternSet } from '../../filter/attribute-patterns.js';
import { encodeBitmapsSteps, SerializedBitmaps } from './bitmap-list-codec.js';
import { finishSteps } from '../sliced-jobs.js';
import { encodeFacets, restoreFacets, type FacetSections } from '../facets/facet-snapshot.js';
import type { IndexConfig } from '../index-config.js';
import { ShardIndex } from '../shard-index.js';
import { SnapshotFormatError, SnapshotReader, SnapshotWriter } from './snapshot-container.js';
import type { DerivedSnapshotPart } from '../derived-structure.js';
import { encodeLexiconSteps, restoreLexicon, type LexiconSections } from './lexicon-snapshot.js';


/** Bump when what a snapshot holds, or how, changes: older files are then ignored (rebuilt), or read as restoreShard says. */
// 3: the facets' `_geojson` lines and polygons (geojsonShapes).
// 4: every derived structure's snapshot member (`derived`: near-pair and prefix pair tables, sole-word
//    fields, field-start pairs besides the rank / position postings).
// 5: facet string keys keep their diacritics (milli's normalize_facet); older files are rebuilt.
// 6: the lexicon's NearPrefixFilter and DeletionIndex (`lexicon`, lexicon-snapshot.ts); older files are rebuilt.
export const SHARD_SNAPSHOT_VERSION = 6;

export interface ShardSnapshotIdentity {
  indexUid: string;
  shard: number;
  shardCount: number;
  /** The index's commit stamp of the state held. */
  commitSeq: number;
  settingsFingerprint: string;
}

export function settingsFingerprint(settings: IndexSettings): string {
  const hash = createHash('sha256').update(JSON.stringify(settings));
  // `_geojson` matched by a filterable pattern alone was once indexed as a geo field (now an ordinary
  // one, faceted-fields.ts): such an index's older files are not this state.
  if (!isGeojsonEnabled(settings) && new PatternSet(attributePatternsOf(settings.filterableAttributes ?? [])).matches('_geojson')) hash.update('\u0000geojson:plain');
  return hash.digest('hex');
}

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
  const lexicon = yield* encodeLexiconSteps(writer, index.vocabulary);
  yield;
  // Each derived structure as its snapshot member writes it (derived-structure.ts), in ShardIndex.derived's order.
  const derived: DerivedSnapshotPart[] = [];
  for (const structure of index.derived) {
    yield;
    derived.push(yield* structure.saveSnapshotSteps(writer));
  }
  yield;
  const facets = encodeFacets(writer, index.facets);
  yield;
  return yield* writer.chunksSteps({
    version: SHARD_SNAPSHOT_VERSION, ...identity, sections, lexicon, derived, facets,
    garbage: forward.garbage, offsetCount: forward.offsets.count, documentCount: index.documents.size,
    inexactRanks: index.inexactRanksState(), rankNames: index.rankNamesState(),
  });
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
  restoreLexicon(reader, meta['lexicon'] as LexiconSections | undefined, index.vocabulary);
  // The arena is kept as read when it has a buffer of its own (SnapshotReader.fromFile), else copied,
  // so the rest of the file (postings bytes and all) can be collected.
  index.forward.importState({
    arena: reader.ownsBuffer(sections['arena']!) ? reader.uint32(sections['arena']!) : reader.uint32(sections['arena']!).slice(),
    garbage: meta['garbage'] as number,
    offsets: { keys: reader.int32(sections['offsetKeys']!).slice(), values: reader.int32(sections['offsetValues']!).slice(), count: meta['offsetCount'] as number },
  });
  index.documents.deserialize(reader.bytes(sections['documents']!), 'portable');
  if (index.documents.size !== meta['documentCount'] || index.forward.documentCount !== index.documents.size) throw new SnapshotFormatError('document counts');
  const parts = meta['derived'];
  if (!Array.isArray(parts) || parts.length > index.derived.length) throw new SnapshotFormatError('derived structures');
  index.derived.forEach((structure, k) => structure.restoreSnapshot(reader, (parts[k] ?? null) as DerivedSnapshotPart));
  restoreFacets(reader, meta['facets'] as FacetSections, index.facets);
  // Absent from files written before it was kept: not known (attributesToSearchOn then reads names).
  const inexactRanks = meta['inexactRanks'];
  index.restoreInexactRanks(Array.isArray(inexactRanks) && inexactRanks.every((rank) => Number.isInteger(rank)) ? inexactRanks as number[] : null);
  const rankNames = meta['rankNames'];
  index.restoreRankNames(Array.isArray(rankNames) && rankNames.every(isRankNamePair) ? rankNames as [number, string | null][] : null);
  // What the lexicon's walks make on first use and a snapshot does not keep (the sorted list packed,
  // its tail order: ~55 ms of CPU at 1M npm rows), made now: the first searches find the shard ready.
  finishSteps(index.vocabulary.lexicon.prepareSteps((word) => index.vocabulary.idOf(word)));
  return index;
}

function isRankNamePair(pair: unknown): boolean {
  return Array.isArray(pair) && pair.length === 2 && Number.isInteger(pair[0]) && (pair[1] === null || typeof pair[1] === 'string');
}
