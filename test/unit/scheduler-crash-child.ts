// Child process of scheduler-crash.test: runs the real scheduler worker thread with fake shard
// workers (ports acking every command), optionally enqueues one document addition, and exits once
// the batch touching index `crash` is published. Armed failure points SIGKILL this whole process.
// argv: dbPath, failurePoints (comma separated, may be empty), mode ('enqueue' | 'recover' | 'ready':
// exit at the ready signal | 'enqueue-two': two tasks in two batches, the second sent ahead |
// 'recover-two': exit once two batches touched `crash`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { decodeShardCommand, encodeShardAck } from '../../src/protocol/shard-command-codec.js';
import { decodeSchedulerMessage, encodeSchedulerMessage } from '../../src/protocol/scheduler-codec.js';

const [dbPath, failurePoints, mode] = process.argv.slice(2);
const ports = [0, 1].map(() => {
  const channel = new MessageChannel();
  channel.port2.on('message', (buffer: ArrayBuffer) => {
    const ack = encodeShardAck({ commandId: decodeShardCommand(buffer).commandId, error: null });
    channel.port2.postMessage(ack, [ack]);
  });
  return channel.port1;
});
const worker = new Worker(new URL('../../src/scheduler/worker.js', import.meta.url), {
  workerData: { dbPath, workerCount: 2, shardPorts: ports, shardsPerIndex: 2, failurePoints: failurePoints ? failurePoints.split(',') : [] },
  transferList: ports,
});
let ready = false;
let crashBatches = 0;
let finishing = false;
/**
 * Exits 0 once the scheduler thread has ended itself, as the server closes it (prepareShutdown): a
 * process.exit while the thread is inside an LMDB call (the queue housekeeping's stats read before a
 * batch) aborts the process in lmdb-js's native code (napi_throw during the thread's termination).
 */
function finish(): void {
  if (finishing) return;
  finishing = true;
  worker.once('exit', () => process.exit(0));
  const request = encodeSchedulerMessage({ kind: 'prepareShutdown', requestId: 99 });
  worker.postMessage(request, [request]);
}
setTimeout(() => { console.log('timeout'); process.exit(2); }, 10_000);
worker.on('message', (buffer: ArrayBuffer) => {
  const message = decodeSchedulerMessage(buffer);
  console.log(JSON.stringify(message));
  if (message.kind === 'indexesChanged' && !ready) {
    ready = true;
    if (mode === 'ready') { finish(); return; }
    if (mode === 'enqueue') {
      writeFileSync(join(dbPath, 'update-files', 'crash.ndjson'), '{"id":1,"title":"kept"}\n{"id":2}\n');
      const request = encodeSchedulerMessage({ kind: 'enqueueTask', requestId: 7,
        content: { type: 'documentAdditionOrUpdate', indexUid: 'crash', method: 'replace', updateFile: 'crash.ndjson', documentCount: 2, primaryKey: null } });
      worker.postMessage(request, [request]);
    }
    if (mode === 'enqueue-two') {
      // Replace then update: two batches of one index (the autobatcher does not mix the methods).
      writeFileSync(join(dbPath, 'update-files', 'crash.ndjson'), '{"id":1,"title":"kept"}\n{"id":2}\n');
      writeFileSync(join(dbPath, 'update-files', 'crash-2.ndjson'), '{"id":3}\n');
      for (const [requestId, updateFile, method] of [[7, 'crash.ndjson', 'replace'], [8, 'crash-2.ndjson', 'update']] as const) {
        const request = encodeSchedulerMessage({ kind: 'enqueueTask', requestId,
          content: { type: 'documentAdditionOrUpdate', indexUid: 'crash', method, updateFile, documentCount: 1, primaryKey: null } });
        worker.postMessage(request, [request]);
      }
    }
  } else if (message.kind === 'indexesChanged' && message.indexUids.includes('crash')) {
    if (mode !== 'recover-two' || ++crashBatches === 2) finish();
  }
});
