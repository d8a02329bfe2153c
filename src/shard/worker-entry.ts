// The shard worker's entry (the file Piscina loads): starts reading the worker's snapshot files on
// libuv's threads (snapshot-files.ts readSnapshotsEarly), then loads worker.ts, whose ~130 modules take
// ~350 ms to load at start — the reads run meanwhile instead of after. worker.ts takes the reads
// (SnapshotKeeper.adoptReadsAhead); Piscina awaits the default export, a promise of the task handler.
import { workerData } from 'node:worker_threads';
import type { ShardWorkerData } from '../protocol/messages.js';
import { readSnapshotsEarly } from './snapshot/snapshot-files.js';

const data = workerData as ShardWorkerData;
const reads = readSnapshotsEarly(data.dbPath, data.workerIndex, data.workerCount);

export default import('./worker.js').then((worker) => {
  worker.adoptReadsAhead(reads);
  return worker.default;
});
