// The front's index records (front/indexes/index-catalog.ts) across a swap, on a real LMDB environment and
// a real commit fence; this test writes the swapped records in the scheduler's place, at chosen points.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexCatalog } from '../../src/front/indexes/index-catalog.js';
import { CommitFence } from '../../src/protocol/commit-fence.js';
import { closeStorage, openStorage, type Storage } from '../../src/storage/environment.js';
import { storageKeyOf, type IndexRecord } from '../../src/storage/records.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

function record(uid: string, storageKey: string): IndexRecord {
  return {
    uid, storageKey, primaryKey: 'id', createdAt: '', updatedAt: '', shardCount: 1, nextSeq: 0, documentCount: 0,
    rawDocumentDbSize: 0, fieldDistribution: {}, settings: defaultSettings(),
  };
}

async function withStorage(run: (storage: Storage) => void | Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'skein-catalog-'));
  const storage = openStorage(dir);
  try {
    storage.indexes.putSync('a', record('a', 'a~1'));
    storage.indexes.putSync('b', record('b', 'b~1'));
    await run(storage);
  } finally {
    await closeStorage(storage);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The scheduler's side of a swap of a and b: the commit begins, then its records are written. */
function commitSwap(storage: Storage, fence: CommitFence): void {
  fence.begin();
  const a = storage.indexes.get('a')!;
  const b = storage.indexes.get('b')!;
  storage.indexes.putSync('a', { ...b, uid: 'a' });
  storage.indexes.putSync('b', { ...a, uid: 'b' });
}

const keysOf = (records: (IndexRecord | null | undefined)[]) => records.map((one) => (one ? storageKeyOf(one) : null));

test('a multi-search\'s queries take their records from its view: a swap committing between two of them (fence shared) shows no side twice', (t) =>
  withStorage((storage) => {
    const fence = new CommitFence();
    const catalog = new IndexCatalog(storage, fence);
    t.deepEqual(keysOf([catalog.get('a'), catalog.get('b')]), ['a~1', 'b~1']);
    const view = catalog.resolveTogether(['a', 'b']);
    const first = catalog.require('a', view);
    // The scheduler thread begins its commit in the same event-loop turn (shared memory).
    commitSwap(storage, fence);
    const second = catalog.require('b', view);
    t.deepEqual(keysOf([first, second]), ['a~1', 'b~1'], 'one view: both from before the swap');
    // Without the view, the second query reads LMDB (the commit is not announced): the other side.
    t.is(storageKeyOf(catalog.require('b')), 'a~1');
  }));

test('resolveTogether while a commit is unannounced: every record from one read of LMDB', (t) =>
  withStorage((storage) => {
    const fence = new CommitFence();
    const catalog = new IndexCatalog(storage, fence);
    catalog.get('a');
    commitSwap(storage, fence);
    t.deepEqual(keysOf([...catalog.resolveTogether(['a', 'b', 'missing']).values()]), ['b~1', 'a~1', null]);
  }));

test('resolveTogether after a swap committed and announced-but-unhandled is never half-swapped: a fresh read meeting a cached key drops the cache', (t) =>
  withStorage((storage) => {
    // No fence: the cache alone (as a catalog whose fence holds while the announcement is in flight).
    const catalog = new IndexCatalog(storage);
    t.is(storageKeyOf(catalog.get('a')!), 'a~1');
    commitSwap(storage, new CommitFence());
    const view = catalog.resolveTogether(['b', 'a']);
    t.deepEqual(keysOf([view.get('a'), view.get('b')]), ['b~1', 'a~1']);
    t.deepEqual(keysOf([catalog.require('a', view), catalog.require('b', view)]), ['b~1', 'a~1']);
  }));

test('require with a view that lacks the uid reads the catalog; a view\'s null is index_not_found', (t) =>
  withStorage((storage) => {
    const catalog = new IndexCatalog(storage, new CommitFence());
    const view = catalog.resolveTogether(['a', 'gone']);
    t.is(storageKeyOf(catalog.require('b', view)), 'b~1');
    t.throws(() => catalog.require('gone', view), { message: 'Index `gone` not found.' });
  }));
