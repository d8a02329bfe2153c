// A shard worker's way to the build helper thread (src/build-helper/worker.ts): one Tinypool of at
// most one thread, a new thread per build, ended once it answered (isolateWorkers): an idle helper kept
// its build's garbage (the arena copy, the pair recording: ~250 MiB at 1M npm rows) until its next
// collection, which an idle thread never runs. Owner: the shard worker (worker.ts makes one and hands
// it to its ShardEngine); lifetime: the worker thread's. Between builds it holds nothing.
import { fileURLToPath } from 'node:url';
import { Tinypool } from 'tinypool';
import type { ArenaBuildRequest, ArenaBuildResult } from '../protocol/build-helper.js';

/**
 * Shards with fewer documents build everything themselves: the arena's copy, the thread's start and its
 * code running cold (a first offloaded near-pair build of 100k npm rows took ~150 ms more than the next
 * ones, in process) would cost about what they save (the near-pair tables take ~120 ms of one core at
 * 10,000 npm rows, `bench/npm-scale/build-phases.mjs`).
 */
export const BUILD_HELPER_MIN_DOCUMENTS = 20_000;
const BUILD_HELPER_FILE = fileURLToPath(new URL('../build-helper/worker.js', import.meta.url));

export class BuildHelperClient {
  /** Shards with fewer documents build everything themselves (tests lower it). */
  minDocuments = BUILD_HELPER_MIN_DOCUMENTS;
  private readonly pool = new Tinypool({ filename: BUILD_HELPER_FILE, minThreads: 0, maxThreads: 1, isolateWorkers: true });
  private closed = false;
  /** Builds handed over so far (tests, logs). */
  tasks = 0;

  /** `onFailure`: told when the thread fails a build (the shard worker then builds those structures itself). */
  constructor(private readonly onFailure: (cause: unknown) => void = () => {}) {}

  /** What the request asks, built over its arena; its arrays are transferred (the caller keeps none). Rejects when the thread fails or the client is closed. */
  async build(request: ArenaBuildRequest): Promise<ArenaBuildResult> {
    if (this.closed) throw new Error('the build helper is closed');
    this.tasks++;
    const { arena, documents, offsets, nearPairs } = request;
    const arrays = [arena, documents, offsets, ...(nearPairs === null ? [] : [nearPairs.slotOfWord, nearPairs.tableOfWord, nearPairs.splitOfWord])];
    const transferList = [...new Set(arrays.map((array) => array.buffer))] as ArrayBuffer[];
    try {
      return (await this.pool.run(request, { transferList })) as ArenaBuildResult;
    } catch (cause) {
      if (!this.closed) this.onFailure(cause);
      throw cause;
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return this.pool.destroy();
  }
}
