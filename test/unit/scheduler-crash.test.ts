import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeStorage, openStorage } from '../../src/storage/environment.js';

const child = fileURLToPath(new URL('./scheduler-crash-child.js', import.meta.url));

function runChild(dbPath: string, failurePoints: string, mode: 'enqueue' | 'recover' | 'ready' | 'enqueue-two' | 'recover-two') {
  return spawnSync(process.execPath, [child, dbPath, failurePoints, mode], { encoding: 'utf8', timeout: 20_000 });
}

/** The child runs up to the failure point and is killed there (kill -9 by the failure point itself). */
function crashAt(t: ExecutionContext, dbPath: string, point: string, mode: 'enqueue' | 'enqueue-two'): void {
  const crashed = runChild(dbPath, point, mode);
  t.is(crashed.signal, 'SIGKILL', crashed.stdout + crashed.stderr);
}

/** A clean run on the crashed database; its stdout. */
function restart(t: ExecutionContext, dbPath: string, mode: 'recover' | 'ready' | 'recover-two'): string {
  const restarted = runChild(dbPath, '', mode);
  t.is(restarted.status, 0, restarted.stdout + restarted.stderr);
  return restarted.stdout;
}

/** A fresh database folder for the body, removed afterwards whatever happens. */
async function withCrashDir(body: (dbPath: string) => Promise<void>): Promise<void> {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-crash-'));
  try {
    await body(dbPath);
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
}

async function inspect(dbPath: string) {
  const storage = openStorage(dbPath);
  const task = storage.tasks.get(0);
  const index = storage.indexes.get('crash');
  const documents = [...storage.documents.getRange({ start: ['crash', 0], end: ['crash', 0xffffffff + 1] })].length;
  await closeStorage(storage);
  return { task, index, documents };
}

for (const point of ['afterMarkingProcessing', 'afterShardsApplied', 'beforeCommit']) {
  test.serial(`kill -9 at ${point}: nothing applied, the task is redone after restart`, async (t) => withCrashDir(async (dbPath) => {
    crashAt(t, dbPath, point, 'enqueue');
    const before = await inspect(dbPath);
    t.is(before.task!.status, 'processing');
    t.is(before.documents, 0);
    t.is(before.index, undefined);
    restart(t, dbPath, 'recover');
    const after = await inspect(dbPath);
    t.is(after.task!.status, 'succeeded');
    t.is(after.documents, 2);
    t.is(after.index!.documentCount, 2);
  }));
}

test.serial('kill -9 after the commit: the succeeded task survives, its update file is cleaned at restart', async (t) => withCrashDir(async (dbPath) => {
  crashAt(t, dbPath, 'afterCommit', 'enqueue');
  const before = await inspect(dbPath);
  t.is(before.task!.status, 'succeeded');
  t.is(before.documents, 2);
  t.true(existsSync(join(dbPath, 'update-files', 'crash.ndjson')));
  const restartedOutput = restart(t, dbPath, 'ready');
  t.regex(restartedOutput, /"indexesChanged","indexUids":\["crash"\]/, 'ready lists the index');
  t.false(existsSync(join(dbPath, 'update-files', 'crash.ndjson')));
}));

test.serial('kill -9 after the next batch was sent ahead: neither batch applied, both redone after restart', async (t) => withCrashDir(async (dbPath) => {
  crashAt(t, dbPath, 'afterSentAhead', 'enqueue-two');
  const before = await inspect(dbPath);
  t.is(before.task!.status, 'processing');
  const storage = openStorage(dbPath);
  t.is(storage.tasks.get(1)!.status, 'enqueued', 'the batch sent ahead was never started');
  await closeStorage(storage);
  t.is(before.documents, 0);
  restart(t, dbPath, 'recover-two');
  const after = await inspect(dbPath);
  t.is(after.task!.status, 'succeeded');
  t.is(after.documents, 3);
  t.is(after.index!.documentCount, 3);
  const reopened = openStorage(dbPath);
  t.is(reopened.tasks.get(1)!.status, 'succeeded');
  await closeStorage(reopened);
}));
