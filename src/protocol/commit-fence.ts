// Read-your-writes between the scheduler thread's commits and the front's caches (index records:
// front/indexes/index-catalog.ts; stored documents: front/indexes/stored-document-cache.ts). The caches are dropped
// when the front handles the scheduler's `indexesChanged` message, which arrives after the commit:
// in between, a client could read its task `succeeded` from LMDB and then the index's settings or a
// document from a cache of before. So the scheduler counts, in shared memory, its commits (odd while
// one is under way: begun before the transaction, ended once its indexesChanged is posted) and the
// indexesChanged messages it posted; the front counts the ones it handled. The caches hold only when
// no commit is under way and every posted message was handled; otherwise the front reads LMDB.
// Owner: one per server, made by src/index.ts; the buffer crosses to the scheduler thread in its
// workerData (SchedulerWorkerData.commitFence). Two Int32 cells; the front's count is its own.

const COMMITS = 0;
const POSTED = 1;

export class CommitFence {
  private readonly cells: Int32Array;
  /** Front side: indexesChanged messages handled. */
  private handledCount = 0;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer);
  }

  /** Scheduler: a commit that may change index records or documents begins. */
  begin(): void {
    Atomics.add(this.cells, COMMITS, 1);
  }

  /** Scheduler: that commit's indexesChanged was posted (or it failed before committing). */
  end(): void {
    Atomics.add(this.cells, COMMITS, 1);
  }

  /** Scheduler: an indexesChanged message was posted. */
  posted(): void {
    Atomics.add(this.cells, POSTED, 1);
  }

  /** A scheduler thread starting after one died inside a commit: that commit is not under way any more. */
  settle(): void {
    if ((Atomics.load(this.cells, COMMITS) & 1) === 1) Atomics.add(this.cells, COMMITS, 1);
  }

  /** Front: an indexesChanged message was handled (its caches dropped). */
  handled(): void {
    this.handledCount++;
  }

  /** Front: every commit LMDB may show was announced and handled, so the caches of before it were dropped. */
  cachesHold(): boolean {
    return (Atomics.load(this.cells, COMMITS) & 1) === 0 && Atomics.load(this.cells, POSTED) === this.handledCount;
  }
}
