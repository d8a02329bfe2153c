// The one contract of the structures a shard derives from its documents and keeps across writes
// (ShardIndex.derived): rank and position postings (postings/token-key-postings.ts), near-pair tables
// with their prefix pair tables (pairs/near-pair-postings.ts), sole-word fields and field-start pairs
// (postings/). ShardIndex tells each of every write, builds the stale ones at quiet time in slices,
// defers their builds to the background, and sums their bytes, by looping over them.
//
// Staleness, as each structure keeps it: the postings update their frequent words' lists in place,
// drop the rare words' lists of the words written (one entry per token), and want a full rebuild
// after writes of a quarter of the tokens built; the structures built in one pass over the documents (BuiltOverDocuments, postings/changes-since-build.ts) keep the
// documents written since the build (searches read those one by one) and want a rebuild after an
// eighth of the shard. Either way `needsBuild` is the one question, and a build in slices is made aside
// and swapped in at its end, what is written meanwhile counting as written after it.
// Snapshots (snapshot/shard-snapshot.ts) keep each structure as its snapshot member writes it: a
// restored shard answers at full speed without rebuilding anything (rebuilding the near-pair tables
// held the first search after a restart at 1M npm rows ~0.5 s); what was stale when saved is stale
// when restored, and one never built stays unbuilt.
import type { SnapshotReader, SnapshotWriter } from './snapshot/snapshot-container.js';

/** What a snapshot's meta holds of a structure: its section numbers and counts (JSON), null when nothing is kept. */
export type DerivedSnapshotPart = Readonly<Record<string, unknown>> | null;

export interface DerivedStructure {
  /**
   * A write to the document (upsert: `added`, or delete): `wordIds` are the words it holds or held, one
   * per token. Called while the document is in the forward index (just put, or about to be removed).
   */
  noteWrite(docId: number, added: boolean, wordIds: readonly number[]): void;
  /** A full (re)build would pay now: never built, or enough written since. */
  readonly needsBuild: boolean;
  /** The full build in slices of a few milliseconds (quiet time), made aside and swapped in at the end. */
  buildSteps(): Generator<void, void, unknown>;
  /**
   * While a build in slices runs in the background, searches read what the structure would have
   * settled rather than build it at once (a no-op for the rank / position postings: without them a
   * term's lists would be built per search, which costs more than the whole build).
   */
  deferBuilds(deferred: boolean): void;
  /** Bytes held (memory reports). */
  readonly byteLength: number;
  /**
   * Snapshot member: adds the structure's state to the writer's sections (views, no copies: the
   * quiet-time save writes them before any write can change them, a write cancelling the save) and
   * returns the part naming them. Every object it reads is taken in its first step: a build in
   * slices swaps in new arrays when it ends, never changes the ones saved.
   */
  saveSnapshotSteps(writer: SnapshotWriter): Generator<void, DerivedSnapshotPart, unknown>;
  /**
   * Snapshot member: adopts a saved part (on a fresh instance over the restored vocabulary and forward
   * index); null leaves it unbuilt. Throws SnapshotFormatError when the sections do not fit (the shard is rebuilt then).
   */
  restoreSnapshot(reader: SnapshotReader, part: DerivedSnapshotPart): void;
}
