// The bookkeeping shared by a shard's structures built in one pass over its documents and then kept
// while writes come (near-pair tables, sole-word fields): which documents changed since the build
// (the structure says nothing true about them; searches read them instead), and when a rebuild pays.
import roaring from 'roaring';

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

  markChanged(docId: number): void {
    if (this.isBuilt) this.changed.add(docId);
  }

  /** Never built, or enough changed (out of `documentCount`) that reading the changed documents costs more than a rebuild. */
  needsBuild(documentCount: number): boolean {
    return !this.isBuilt || this.changed.size >= Math.max(REBUILD_MIN_CHANGED, documentCount * REBUILD_SHARE);
  }

  /** A build has just finished. */
  markBuilt(): void {
    this.changed = new RoaringBitmap32();
    this.isBuilt = true;
  }
}
