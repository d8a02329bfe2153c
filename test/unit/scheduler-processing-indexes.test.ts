import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitBatchFailure, markEnqueuedAgain, markProcessing } from '../../src/scheduler/batching/batch-commit.js';
import { recoverQueue } from '../../src/scheduler/recovery.js';
import { closeStorage, openStorage } from '../../src/storage/environment.js';
import { PROCESSING_INDEX_UIDS } from '../../src/storage/meta-keys.js';
import type { TaskRecord } from '../../src/tasks/task-record.js';

const task = (uid: number, indexUid: string | null): TaskRecord => ({
  uid, batchUid: null, indexUid, status: 'enqueued', type: 'indexCreation', canceledBy: null, details: { primaryKey: null },
  error: null, enqueuedAt: new Date().toISOString(), startedAt: null, finishedAt: null,
  content: { type: 'indexCreation', indexUid: indexUid ?? '', primaryKey: null },
});

test('the indexes of the batch in process are published while it runs and cleared when it ends', async (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-processing-'));
  const storage = openStorage(dbPath);
  const processingIndexes = () => JSON.parse(String(storage.meta.get(PROCESSING_INDEX_UIDS) ?? '[]'));
  try {
    const tasks = [task(0, 'movies'), task(1, 'movies'), task(2, null)];
    for (const record of tasks) storage.tasks.putSync(record.uid, record);

    const processing = markProcessing(storage, tasks, 0, new Date().toISOString());
    t.deepEqual(processingIndexes(), ['movies']);
    commitBatchFailure(storage, processing, { message: 'x', code: 'internal', type: 'internal', link: '' }, new Date().toISOString());
    t.deepEqual(processingIndexes(), []);

    markEnqueuedAgain(storage, markProcessing(storage, [task(3, 'books')], 1, new Date().toISOString()));
    t.deepEqual(processingIndexes(), []);

    // A crash while processing: recovery requeues the tasks and clears the list.
    const crashed = task(4, 'books');
    storage.tasks.putSync(crashed.uid, crashed);
    markProcessing(storage, [crashed], 2, new Date().toISOString());
    t.deepEqual(processingIndexes(), ['books']);
    recoverQueue(storage);
    t.deepEqual(processingIndexes(), []);
  } finally {
    await closeStorage(storage);
    rmSync(dbPath, { recursive: true, force: true });
  }
});
