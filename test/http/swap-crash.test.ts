// kill -9 during a swap of two pairs (the scheduler's failure points, in a child process): the stored
// index records are either all as before or all swapped, never half; after a restart the swap is
// applied exactly once.
import test from 'ava';
import { freePort, sleep, spawnChildServer, stopChild, withTempDir, withTestServer, type Client } from './harness.js';
import { withStorage } from './storage-behind-the-back.js';

const SIDES: Record<string, number> = { a: 20, b: 12, c: 7, d: 3 };

async function sidesOf(client: Client, uid: string): Promise<string[]> {
  const response = await client.post(`/indexes/${uid}/search`, { q: 'document', limit: 100 });
  return [...new Set<string>(response.body.hits.map((hit: { side: string }) => hit.side))];
}

/** Which index's data each uid holds, read from LMDB behind the stopped server's back. */
function storedKeys(dbPath: string): Record<string, string> {
  return withStorage(dbPath, `const out = {};
    for (const uid of ['a', 'b', 'c', 'd']) { const record = storage.indexes.get(uid); out[uid] = record.storageKey ?? record.uid; }
    return out;`) as Record<string, string>;
}

const BEFORE = { a: 'a', b: 'b', c: 'c', d: 'd' };
const AFTER = { a: 'b', b: 'a', c: 'd', d: 'c' };

for (const [point, expectedAtCrash] of [['afterMarkingProcessing', BEFORE], ['beforeCommit', BEFORE], ['afterCommit', AFTER]] as const) {
  test.serial(`kill -9 at ${point} during a swap: all pairs or none, then applied once after restart`, (t) =>
    withTempDir(async (dbPath) => {
      await withTestServer({ dbPath }, async ({ client }) => {
        for (const [uid, count] of Object.entries(SIDES)) {
          await client.run('POST', '/indexes', { body: { uid, primaryKey: 'id' } });
          await client.addDocuments(uid, Array.from({ length: count }, (_, i) => ({ id: i, side: uid, title: `document ${i}` })));
        }
      });
      const child = await spawnChildServer({ dbPath, port: await freePort(), failurePoints: [point] });
      try {
        const response = await child.client.post('/swap-indexes', [{ indexes: ['a', 'b'] }, { indexes: ['c', 'd'] }]).catch(() => null);
        if (response) t.is(response.status, 202);
        const exit = await Promise.race([child.exited, sleep(20_000).then(() => null)]);
        t.is(exit?.signal, 'SIGKILL', child.output());
      } finally {
        await stopChild(child);
      }
      t.deepEqual(storedKeys(dbPath), expectedAtCrash);

      await withTestServer({ dbPath }, async ({ client }) => {
        const swapUid = 8;
        const task = await client.waitForTask(swapUid);
        t.is(task.type, 'indexSwap');
        t.is(task.status, 'succeeded');
        t.is((await client.get('/tasks?types=indexSwap')).body.total, 1);
        for (const [uid, from] of Object.entries(AFTER)) {
          t.deepEqual(await sidesOf(client, uid), [from]);
          t.is((await client.get(`/indexes/${uid}/stats`)).body.numberOfDocuments, SIDES[from]);
          const older = (await client.get(`/tasks?indexUids=${uid}&types=documentAdditionOrUpdate`)).body.results;
          t.deepEqual(older.map((one: { indexUid: string; details: { indexedDocuments: number } }) => [one.indexUid, one.details.indexedDocuments]), [[uid, SIDES[from]]]);
        }
      });
      t.deepEqual(storedKeys(dbPath), AFTER);
    }));
}
