// Document uploads under way per index, shared by the front and the scheduler thread (issue 19: bulk
// loads). The front counts a POST / PUT /indexes/{uid}/documents from its arrival to its answer or
// abort (http-server.ts); the scheduler, about to build an index's search structures because its
// queue emptied (state-machine.ts prepareSearchWhenLast), first waits a bounded time while an upload
// of that index is under way: during a bulk load the client's next payload is usually on its way, and
// the build (at 1M npm rows ~5 s) would be redone after that payload's batch. A hint only: slots by a
// hash of the uid (a collision makes a wait needless, never wrong), the wait bounded.
// Owner: one per server, made by src/index.ts; the buffer crosses to the scheduler thread in its
// workerData (SchedulerWorkerData.uploads).

const SLOTS = 64;

export class UploadGauge {
  private readonly cells: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer);
  }

  /** Front: an upload to the index begins; returns what end() takes. */
  begin(indexUid: string): number {
    const slot = slotOf(indexUid);
    Atomics.add(this.cells, slot, 1);
    return slot;
  }

  /** Front: that upload was answered or its client went away (once per begin). */
  end(slot: number): void {
    Atomics.sub(this.cells, slot, 1);
  }

  /** Scheduler: whether an upload to the index may be under way. */
  underWay(indexUid: string): boolean {
    return Atomics.load(this.cells, slotOf(indexUid)) > 0;
  }
}

function slotOf(indexUid: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < indexUid.length; i++) hash = Math.imul(hash ^ indexUid.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SLOTS;
}
