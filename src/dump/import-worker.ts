// The thread of a dump import at start (import.ts says why it is a thread): imports, answers with the
// summary or the error, and ends itself without closing LMDB (every write was committed synchronously).
import { parentPort, workerData } from 'node:worker_threads';
import { importInto } from './import.js';

const { dbPath, file, shardsPerIndex } = workerData as { dbPath: string; file: string; shardsPerIndex: number };
try {
  parentPort!.postMessage({ summary: await importInto(dbPath, file, shardsPerIndex) });
} catch (cause) {
  parentPort!.postMessage({ error: (cause as Error).message });
}
// The thread ends itself, here, between two turns: a terminate() from the front could land inside an
// LMDB call (lmdb-js then aborts the process or hangs in its cleanup). The answer is already queued.
process.exit(0);
