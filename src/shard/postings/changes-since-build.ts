// The bookkeeping shared by a shard's structures built in one pass over its documents and then kept
// while writes come (near-pair tables, sole-word fields): which documents changed since the build
// (the structure says nothing true about them; searches read them instead), and when a rebuild pays.
import type { DerivedSnapshotPart, DerivedStructure } from '../derived-structure.js';
import roaring from 'roaring';
import { finishSteps } from '../sliced-jobs.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Rebuild once this share of the shard's documents changed since the last build (and at least REBUILD_MIN_CHANGED). */
const REBUILD_SHARE = 1 / 8;
const REBUILD_MIN_CHANGED = 1024;

export class ChangesSinceBuild {
  private isBuilt = false;
  /** Documents written or deleted since the build; do not mutate. */
  changed = new RoaringBitmap32();

  get built(): boolean {
    return this.isBuilt;
  }

  /** The documents a search must read, the structure saying nothing true of them: the changed ones, or all before the first build. */
  unsettled(documents: RoaringBitmap32): RoaringBitmap32 {
    return this.isBuilt ? this.changed : documents;
  }

  /** Per build reading the documents (in steps, writes between them): the documents written since it started. */
  private readonly changedSinceStarts = new Set<RoaringBitmap32>();

  markChanged(docId: number): void {
    if (this.isBuilt) this.changed.add(docId);
    for (const since of this.changedSinceStarts) since.add(docId);
  }

  /**
   * A build starts reading the documents: what is written from now on is not in it (even when it
   * reads the new version, it may have read others before). Give the result to markBuilt or abandonBuild.
   */
  startBuild(): RoaringBitmap32 {
    const since = new RoaringBitmap32();
    this.changedSinceStarts.add(since);
    return since;
  }

  /**
   * A build's steps between startBuild and its end: `build` is given what startBuild returned (and
   * calls markBuilt with it when done); a build stopped unfinished is abandoned.
   */
  *trackBuild(build: (started: RoaringBitmap32) => Generator<void, void, unknown>): Generator<void, void, unknown> {
    const started = this.startBuild();
    let finished = false;
    try {
      yield* build(started);
      finished = true;
    } finally {
      if (!finished) this.abandonBuild(started);
    }
  }

  /** A build started with `started` stops unfinished. */
  abandonBuild(started: RoaringBitmap32): void {
    this.changedSinceStarts.delete(started);
  }

  /** Never built, or enough changed (out of `documentCount`) that reading the changed documents costs more than a rebuild. */
  needsBuild(documentCount: number): boolean {
    return !this.isBuilt || this.changed.size >= Math.max(REBUILD_MIN_CHANGED, documentCount * REBUILD_SHARE);
  }

  /** Built as a snapshot kept it: `changed`, the documents written since that build. */
  restoreBuilt(changed: RoaringBitmap32): void {
    this.changed = changed;
    this.isBuilt = true;
  }

  /** A build has just finished (`started`: what startBuild gave it, when documents could be written during the build). */
  markBuilt(started?: RoaringBitmap32): void {
    this.changed = started ?? new RoaringBitmap32();
    if (started !== undefined) this.changedSinceStarts.delete(started);
    this.isBuilt = true;
  }
}

/**
 * A structure built in one pass over the shard's documents and kept while writes come: the write
 * bookkeeping, the build (at once or in steps) and when it is due. Subclasses give the pass.
 */
export abstract class BuiltOverDocuments implements DerivedStructure {
  /** Documents written (or deleted) since the build: absent from or stale in the structure. */
  protected readonly changes = new ChangesSinceBuild();

  /**
   * A build in steps is on its way (the worker's background jobs, shard-index.ts deferBuilds): searches
   * read the unsettled documents rather than build at once, however many.
   */
  buildsDeferred = false;

  constructor(protected readonly documents: RoaringBitmap32) {}

  /** A write to the document (upsert or delete). */
  markChanged(docId: number): void {
    this.changes.markChanged(docId);
  }

  /** DerivedStructure: a write to the document (its words do not matter here). */
  noteWrite(docId: number): void {
    this.changes.markChanged(docId);
  }

  deferBuilds(deferred: boolean): void {
    this.buildsDeferred = deferred;
  }

  abstract get byteLength(): number;

  build(): void {
    finishSteps(this.buildSteps());
  }

  /** Whether searches would build it now (never built, or too much changed since). */
  get needsBuild(): boolean {
    return this.changes.needsBuild(this.documents.size);
  }

  /**
   * Built on first use (after a bulk load through write batches, the first search pays it, unless the
   * worker got to it when idle: ShardIndex.prepareForSearch) and again once too much changed.
   */
  buildIfStale(): void {
    if (this.needsBuild && !this.buildsDeferred) this.build();
  }

  /**
   * The build in steps of SLICE_POLICY.documentsPerStep documents (a quiet-time build, between
   * searches and writes): made aside and swapped in at the end; the documents written meanwhile
   * count as changed since the build (read one by one), whatever version it read.
   */
  *buildSteps(): Generator<void, void, unknown> {
    yield* this.changes.trackBuild((started) => this.buildFrom(started));
  }

  /** The pass over the documents; it ends with this.changes.markBuilt(started). */
  protected abstract buildFrom(started: RoaringBitmap32): Generator<void, void, unknown>;

  /**
   * DerivedStructure's snapshot member: nothing when never built, else the documents changed since
   * the build and what the subclass keeps of it (savedState, taken in this same first step).
   */
  *saveSnapshotSteps(writer: SnapshotWriter): Generator<void, DerivedSnapshotPart, unknown> {
    if (!this.changes.built) return null;
    const changed = this.changes.changed.serialize('portable');
    const state = yield* this.savedStateSteps(writer);
    return { ...state, changed: writer.add(changed) };
  }

  restoreSnapshot(reader: SnapshotReader, part: DerivedSnapshotPart): void {
    if (part === null) return;
    let changed: RoaringBitmap32;
    try {
      changed = RoaringBitmap32.deserialize(reader.bytes(part['changed'] as number), 'portable');
    } catch (cause) {
      throw new SnapshotFormatError(`changed documents: ${(cause as Error).message}`);
    }
    this.restoreState(reader, part);
    this.changes.restoreBuilt(changed);
  }

  /**
   * The built state's sections added to the writer (views of the arrays held), and their numbers;
   * every object it reads is taken before its first yield (a build ending meanwhile swaps in new ones).
   */
  protected abstract savedStateSteps(writer: SnapshotWriter): Generator<void, Record<string, unknown>, unknown>;

  /** Adopts what savedState wrote (checked: SnapshotFormatError when it does not fit). */
  protected abstract restoreState(reader: SnapshotReader, part: Readonly<Record<string, unknown>>): void;
}
