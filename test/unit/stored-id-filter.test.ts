// The scheduler's filter of stored external ids (stored-id-filter.ts) skips the LMDB read of an id it
// proves new. It must never call a stored id new (the document would be added twice): a superset of
// the stored ids, across commits, deletions, clears, index deletions and restarts.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SeededRandom } from '../../bench/seeded-random.js';
import { closeStorage, openStorage } from '../../src/storage/environment.js';
import { StoredIdFilter } from '../../src/scheduler/batching/stored-id-filter.js';
import { createHarness, type Harness } from './scheduler-harness.js';
import type { TaskContent } from '../../src/tasks/task-record.js';

test('an index\'s ids: stored ones (scanned, or committed since) may be stored, others are proven new; a deleted index is scanned again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'skein-stored-ids-'));
  const storage = openStorage(dir);
  try {
    storage.root.transactionSync(() => {
      for (let k = 0; k < 3000; k++) storage.externalIds.put(['a', `id-${k}`], k);
      storage.externalIds.put(['b', 'other'], 0);
    });
    const filter = new StoredIdFilter();
    // Few reads so far against many stored ids: no scan yet, every id may be stored.
    t.true(filter.mayBeStored(storage, 'a', 'new-1', 3000));
    t.is(filter.byteLength, 0);
    for (let k = 0; k < 400; k++) filter.mayBeStored(storage, 'a', `probe-${k}`, 3000);
    t.true(filter.byteLength > 0, 'scanned once the reads were worth it');
    for (let k = 0; k < 3000; k++) t.true(filter.mayBeStored(storage, 'a', `id-${k}`, 3000));
    let provenNew = 0;
    for (let k = 0; k < 1000; k++) if (!filter.mayBeStored(storage, 'a', `new-${k}`, 3000)) provenNew++;
    t.true(provenNew > 990, `${provenNew} of 1000 new ids proven new`);
    t.false(filter.mayBeStored(storage, 'a', 'other', 3000), 'another index\'s id is not this one\'s');
    // A commit's writes are told before its transaction.
    filter.noteWritten('a', new Map([['later', 5], ['gone', null]]));
    t.true(filter.mayBeStored(storage, 'a', 'later', 3000));
    // An empty index is scanned at its first read.
    t.false(filter.mayBeStored(storage, 'c', 'x', 0));
    // Dropped with its index: scanned again (LMDB says what is stored).
    filter.forget('a');
    storage.root.transactionSync(() => { storage.externalIds.put(['a', 'written-elsewhere'], 9); });
    t.true(filter.mayBeStored(storage, 'a', 'written-elsewhere', 0));
  } finally {
    await closeStorage(storage);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** What LMDB holds for the index: documents by external id, and the external ids' docIds. */
function stored(h: Harness): { documents: Record<string, unknown>; ids: Record<string, number>; tasks: unknown[] } {
  const ids: Record<string, number> = {};
  for (const { key, value } of h.storage.externalIds.getRange()) ids[(key as [string, string]).join('/')] = value as number;
  const documents: Record<string, unknown> = {};
  for (const { key, value } of h.storage.documents.getRange()) documents[(key as [string, number]).join('/')] = JSON.parse(value as string);
  const tasks = [...h.storage.tasks.getRange()].map(({ value }) => ({ uid: value.uid, status: value.status, details: value.details, error: value.error?.code ?? null }));
  return { documents, ids, tasks };
}

test('randomized: with the filter, every batch plans as when every new id is read from LMDB (additions, updates, deletions, clears, index deletions, restarts)', async (t) => {
  for (let seed = 1; seed <= 6; seed++) {
    const random = new SeededRandom(seed * 7919);
    const pick = (n: number) => Math.floor(random.next() * n);
    const limits = { limits: { maxTasks: 1 + pick(4), maxDocuments: 50 + pick(200) } };
    const harnesses = [await createHarness({ ...limits }), await createHarness({ ...limits, storedIdFilter: false })];
    const each = async (act: (h: Harness) => unknown) => { for (const h of harnesses) await act(h); };
    const pool = 40 + pick(200);
    for (let step = 0; step < 40; step++) {
      const kind = pick(20);
      const index = pick(3) === 0 ? 'b' : 'a';
      if (kind < 12) {
        const count = 1 + pick(60);
        const documents = Array.from({ length: count }, () => ({ id: `d${pick(pool)}`, n: pick(1000), ...(pick(2) ? { text: `w${pick(50)}` } : {}) }));
        const method = pick(3) === 0 ? 'update' : 'replace';
        await each((h) => h.addDocuments(index, documents, { method }));
      } else if (kind < 15) {
        const ids = Array.from({ length: 1 + pick(20) }, () => `d${pick(pool)}`);
        await each((h) => h.enqueue({ type: 'documentDeletion', indexUid: index, ids } as TaskContent));
      } else if (kind === 15) {
        await each((h) => h.enqueue({ type: 'documentDeletion', indexUid: index, clear: true } as TaskContent));
      } else if (kind === 16) {
        await each((h) => h.enqueue({ type: 'indexDeletion', indexUid: index } as TaskContent));
      } else if (kind === 17) {
        await each((h) => h.restart(h === harnesses[1] ? { storedIdFilter: false } : {}));
      } else {
        await each((h) => h.run());
      }
    }
    await each((h) => h.run());
    t.deepEqual(stored(harnesses[0]!), stored(harnesses[1]!), `seed ${seed}`);
    t.true(Object.keys(stored(harnesses[0]!).documents).length > 0, `seed ${seed}: documents were stored`);
    await each((h) => h.close());
  }
});
