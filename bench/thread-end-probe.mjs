// Why Skein's threads that read LMDB end themselves instead of being terminated (shard/worker.ts,
// dump/import-worker.ts, front/threads/worker-supervisor.ts stopThreads): worker threads reading an
// LMDB environment (lmdb-js, as a shard worker does) are started and stopped in lanes for a while,
// either by worker.terminate() at a random moment or by a message after which the thread calls
// process.exit() itself between two turns. Run each mode in its own process:
//   node bench/thread-end-probe.mjs terminate [seconds=30] [lanes=6]
//   node bench/thread-end-probe.mjs exit-itself [seconds=30] [lanes=6]
// Measured (2 cores, Node 20.20.2, lmdb 3.5.6): terminate aborted the process in 6 runs of 6
// ("FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw" from lmdb-js's renewReadTxn while the
// thread was torn down); exit-itself finished 6 runs of 6 (~430 threads a run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { open } from 'lmdb';

if (isMainThread) {
  const [mode = 'terminate', secondsArg = '30', lanesArg = '6'] = process.argv.slice(2);
  if (mode !== 'terminate' && mode !== 'exit-itself') throw new Error('usage: node bench/thread-end-probe.mjs terminate|exit-itself [seconds] [lanes]');
  const root = mkdtempSync(join(tmpdir(), 'skein-thread-end-'));
  const paths = [0, 1, 2].map((k) => join(root, `db${k}`));
  for (const path of paths) {
    const db = open({ path, maxDbs: 4 });
    const docs = db.openDB({ name: 'docs', encoding: 'string' });
    db.transactionSync(() => { for (let i = 0; i < 100; i++) docs.put(i, `document ${i}`); });
    await db.close();
  }
  const end = Date.now() + Number(secondsArg) * 1000;
  let threads = 0;
  const lane = async (k) => {
    while (Date.now() < end) {
      const worker = new Worker(new URL(import.meta.url), { workerData: { path: paths[k % paths.length] } });
      const exited = new Promise((done) => worker.once('exit', done));
      await new Promise((done) => worker.once('message', done));
      await new Promise((done) => setTimeout(done, Math.random() * 20));
      if (mode === 'terminate') await worker.terminate();
      else worker.postMessage('end');
      await exited;
      threads++;
    }
  };
  await Promise.all(Array.from({ length: Number(lanesArg) }, (_, k) => lane(k)));
  rmSync(root, { recursive: true, force: true });
  console.log(`${mode}: ${threads} threads started and ended, the process survived`);
} else {
  const db = open({ path: workerData.path, maxDbs: 4 });
  const docs = db.openDB({ name: 'docs', encoding: 'string' });
  let ending = false;
  let bytes = 0;
  const read = () => {
    if (ending) return;
    for (let i = 0; i < 20; i++) {
      for (const { value } of docs.getRange({ start: 0, end: 100 })) bytes += value.length;
      bytes += docs.get(i)?.length ?? 0;
      db.resetReadTxn();
    }
    setImmediate(read);
  };
  parentPort.on('message', () => {
    ending = true;
    process.exit(0);
  });
  parentPort.postMessage('ready');
  read();
}
