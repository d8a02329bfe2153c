// Index deletion reports deletedDocuments and frees what the index held: its LMDB pages (reused by
// the next index, so the data file stops growing), its shard snapshot files, the workers' memory.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { sleep, withTestServer, type Client } from './harness.js';

const CYCLES = Number(process.env['SKEIN_DELETION_CYCLES'] ?? 5);
const DOCUMENTS = 4000;

function bigDocuments(cycle: number) {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  return Array.from({ length: DOCUMENTS }, (_, i) => ({
    id: i,
    cycle,
    text: Array.from({ length: 150 }, (_, w) => `${words[(i * 7 + w * 3) % words.length]}${(i + w) % 97}`).join(' '),
  }));
}

function snapshotFolders(dbPath: string): string[] {
  const root = join(dbPath, 'snapshots');
  return existsSync(root) ? readdirSync(root) : [];
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

async function sizes(client: Client, dbPath: string) {
  const stats = (await client.get('/stats')).body;
  return { file: statSync(join(dbPath, 'lmdb', 'data.mdb')).size, databaseSize: stats.databaseSize as number, used: stats.usedDatabaseSize as number };
}

test('creating and deleting a big index repeatedly keeps the data folder and the memory bounded', (t) =>
  withTestServer({}, async ({ client, dbPath }) => {
    const baseline = await sizes(client, dbPath);
    const afterDeletion: { file: number; used: number; rss: number }[] = [];
    let loadedUsed = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await client.addDocuments('big', bigDocuments(cycle));
      const loaded = await sizes(client, dbPath);
      loadedUsed = loaded.used;
      t.true(loaded.used > baseline.used + 1_000_000, `the index uses pages: ${loaded.used}`);
      t.is(loaded.databaseSize, loaded.file);
      // The shards' restart files are written once indexing is quiet (2 s).
      t.true(await waitFor(() => snapshotFolders(dbPath).includes('big'), 15_000), 'snapshot files written');
      const deletion = await client.run('DELETE', '/indexes/big');
      t.deepEqual(deletion.details, { deletedDocuments: DOCUMENTS });
      t.deepEqual(snapshotFolders(dbPath), [], 'snapshot files removed');
      const after = await sizes(client, dbPath);
      t.true(after.used < baseline.used + 200_000, `pages freed: used ${after.used} (baseline ${baseline.used}, loaded ${loaded.used})`);
      global.gc?.();
      afterDeletion.push({ file: after.file, used: after.used, rss: process.memoryUsage().rss });
    }
    const [first, second, last] = [afterDeletion[0]!, afterDeletion[1]!, afterDeletion[afterDeletion.length - 1]!];
    t.log(`data.mdb after each deletion: ${afterDeletion.map((one) => (one.file / 1e6).toFixed(1)).join(', ')} MB; loaded index used ${(loadedUsed / 1e6).toFixed(1)} MB`);
    t.log(`rss after each deletion: ${afterDeletion.map((one) => (one.rss / 1e6).toFixed(0)).join(', ')} MB`);
    // Freed pages are reused: five loads of the index do not take five times its size on disk.
    t.true(last.file <= first.file + loadedUsed, `data file ${last.file} vs ${first.file} after the first cycle`);
    // The workers release the shards. The process's RSS (every thread) settles after the first cycles
    // (garbage collection in the workers is lazy: 10 cycles measured 352, 455, 476, 502, 526, 456, 472,
    // 509, 477, 487 MB); a leak of the index per cycle would keep adding to it.
    t.true(last.rss < second.rss + 200_000_000, `rss ${last.rss} vs ${second.rss} after the second cycle`);
    t.is((await client.get('/indexes/big')).status, 404);
  }));
