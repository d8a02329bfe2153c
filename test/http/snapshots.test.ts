// Shard snapshots across restarts (src/shard/snapshot/snapshot-keeper.ts): a valid snapshot is loaded instead
// of a rebuild, and anything else (stale after a kill -9, other settings, corrupt, truncated) is
// ignored in favour of LMDB. To tell which source a restart used, some tests edit a stored document
// directly in LMDB while the server is down: a restored shard still knows the old words, a rebuilt
// one knows the new ones.
import test from 'ava';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SnapshotReader } from '../../src/shard/snapshot/snapshot-container.js';
import { freePort, sleep, spawnCli, stopChild, withTempDir, withTestServer, type Client } from './harness.js';
import { rewriteStoredDocument, withStorage } from './storage-behind-the-back.js';

const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heron', 'iris', 'jade'];

function movies(count: number, from = 0) {
  return Array.from({ length: count }, (_, k) => ({
    id: from + k,
    title: `${WORDS[(from + k) % WORDS.length]} ${WORDS[(from + k * 3) % WORDS.length]} film${from + k}`,
    overview: `a ${WORDS[(from + k * 7) % WORDS.length]} story number ${from + k}`,
  }));
}

async function search(client: Client, index: string, q: string) {
  const response = await client.post(`/indexes/${index}/search`, { q, limit: 1000 });
  if (response.status !== 200) throw new Error(`search ${q}: ${response.status} ${response.text}`);
  return { ids: response.body.hits.map((hit: { id: number }) => hit.id) as number[], total: response.body.estimatedTotalHits as number };
}

async function answers(client: Client, index: string) {
  const out: Record<string, unknown> = {};
  for (const q of [...WORDS, 'film1', 'story', 'cedar grove', 'embr']) out[q] = await search(client, index, q);
  return out;
}

function snapshotFiles(dbPath: string, index: string): string[] {
  const folder = join(dbPath, 'snapshots', index);
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.bin')).sort().map((name) => join(folder, name)) : [];
}

function stampOf(file: string): number {
  return SnapshotReader.fromBytes(readFileSync(file)).meta['commitSeq'] as number;
}

function recordStamp(dbPath: string, index: string): number | undefined {
  return (withStorage(dbPath, `return storage.indexes.get(${JSON.stringify(index)})?.commitSeq;`) ?? undefined) as number | undefined;
}

test('close writes snapshots and a restart loads them: same answers, no rebuild', (t) =>
  withTempDir(async (dbPath) => {
    const before = await withTestServer({ dbPath }, async (first) => {
      await first.client.addDocuments('snap_a', movies(400));
      await first.client.run('DELETE', '/indexes/snap_a/documents/7');
      return answers(first.client, 'snap_a');
    });
    const files = snapshotFiles(dbPath, 'snap_a');
    t.is(files.length, 3, 'one file per shard');
    const stamp = recordStamp(dbPath, 'snap_a');
    if (typeof stamp !== "number") return t.fail("no stamp");
    for (const file of files) t.is(stampOf(file), stamp);

    rewriteStoredDocument(dbPath, 'snap_a', '5', { id: 5, title: 'zeppelin', overview: 'nothing else' });
    await withTestServer({ dbPath }, async (second) => {
      t.deepEqual(await answers(second.client, 'snap_a'), before);
      // Restored, not rebuilt: the index still holds the old words of document 5, and not the new ones.
      t.true((await search(second.client, 'snap_a', 'film5')).ids.includes(5));
      t.deepEqual((await search(second.client, 'snap_a', 'zeppelin')).ids, []);
      // The restored shards take writes like rebuilt ones.
      await second.client.addDocuments('snap_a', [{ id: 1000, title: 'kestrel amber', overview: 'late' }]);
      t.deepEqual((await search(second.client, 'snap_a', 'kestrel')).ids, [1000]);
      t.is((await search(second.client, 'snap_a', 'amber')).total, (before['amber'] as { total: number }).total + 1);
    });
  }));

test('a faceted index restores its filters, facets and sort from the snapshot', (t) =>
  withTempDir(async (dbPath) => {
    const body = { q: 'story', filter: 'genre = drama AND year >= 1995', facets: ['genre', 'year'], sort: ['year:desc'], limit: 50 };
    const documents = movies(300).map((movie, k) => ({ ...movie, genre: ['Drama', 'Comedy', 'Horror'][k % 3], year: 1990 + (k % 20) }));
    const before = await withTestServer({ dbPath }, async (first) => {
      await first.client.addDocuments('snap_f', documents);
      await first.client.run('PATCH', '/indexes/snap_f/settings', { body: { filterableAttributes: ['genre', 'year'], sortableAttributes: ['year'] } });
      const before = (await first.client.post('/indexes/snap_f/search', body)).body;
      t.true(before.hits.length > 0);
      return before;
    });
    // Document 0 is a Drama of 1990 in LMDB from now on a Horror of 2005: the snapshot still says Drama 1990.
    rewriteStoredDocument(dbPath, 'snap_f', '0', { ...documents[0], genre: 'Horror', year: 2005 });

    await withTestServer({ dbPath }, async (second) => {
      const after = (await second.client.post('/indexes/snap_f/search', body)).body;
      t.deepEqual(after.hits.map((hit: { id: number }) => hit.id), before.hits.map((hit: { id: number }) => hit.id));
      t.deepEqual(after.facetDistribution, before.facetDistribution);
      t.deepEqual(after.facetStats, before.facetStats);
      const horror = (await second.client.post('/indexes/snap_f/search', { filter: 'genre = horror AND year = 2005', limit: 1000 })).body;
      t.false(horror.hits.some((hit: { id: number }) => hit.id === 0), 'restored, not rebuilt from the edited LMDB');
    });
  }));

test('corrupt or truncated snapshot files are ignored: the shards are rebuilt from LMDB', (t) =>
  withTempDir(async (dbPath) => {
    const before = await withTestServer({ dbPath }, async (first) => {
      await first.client.addDocuments('snap_c', movies(300));
      return answers(first.client, 'snap_c');
    });
    const files = snapshotFiles(dbPath, 'snap_c');
    t.is(files.length, 3);
    truncateSync(files[0]!, Math.floor(readFileSync(files[0]!).length / 2));
    const bytes = readFileSync(files[1]!);
    bytes[Math.floor(bytes.length * 0.6)] ^= 0x41;
    writeFileSync(files[1]!, bytes);
    writeFileSync(files[2]!, Buffer.from('not a snapshot'));
    rewriteStoredDocument(dbPath, 'snap_c', '5', { id: 5, title: 'zeppelin', overview: 'nothing else' });

    await withTestServer({ dbPath }, async (second) => {
      // Rebuilt from LMDB: the rewritten document's new words are found, its old ones are not.
      t.deepEqual((await search(second.client, 'snap_c', 'zeppelin')).ids, [5]);
      t.false((await search(second.client, 'snap_c', 'film5')).ids.includes(5));
      const expected = before['story'] as { total: number };
      t.is((await search(second.client, 'snap_c', 'story')).total, expected.total - 1);
    });
    // The next close replaces the bad files with good ones.
    for (const file of snapshotFiles(dbPath, 'snap_c')) t.notThrows(() => stampOf(file));
  }));

test('a snapshot of older settings is ignored; deleting the index removes its snapshots', (t) =>
  withTempDir((dbPath) =>
    withTempDir(async (saved) => {
      await withTestServer({ dbPath }, (first) => first.client.addDocuments('snap_s', movies(200)));
      const oldFiles = snapshotFiles(dbPath, 'snap_s');
      t.is(oldFiles.length, 3);
      for (const file of oldFiles) copyFileSync(file, join(saved, file.split('/').pop()!));

      await withTestServer({ dbPath }, async (second) => {
        await second.client.run('PUT', '/indexes/snap_s/settings/searchable-attributes', { body: ['overview'] });
        t.deepEqual((await search(second.client, 'snap_s', 'film3')).ids, []);
      });
      // Put the snapshots of the old settings back (as if the process had died before saving new ones).
      mkdirSync(join(dbPath, 'snapshots', 'snap_s'), { recursive: true });
      for (const file of oldFiles) copyFileSync(join(saved, file.split('/').pop()!), file);

      await withTestServer({ dbPath }, async (third) => {
        t.deepEqual((await search(third.client, 'snap_s', 'film3')).ids, [], 'titles are not searchable any more');
        t.true((await search(third.client, 'snap_s', 'story')).total > 0);
        await third.client.run('DELETE', '/indexes/snap_s');
        t.deepEqual(snapshotFiles(dbPath, 'snap_s'), []);
        t.false(existsSync(join(dbPath, 'snapshots', 'snap_s')));
      });
    }),
  ));

test('kill -9 after a write that followed a snapshot: the stale snapshot is ignored, the new state answers', (t) =>
  withTempDir(async (dbPath) => {
    const first = await spawnCli(dbPath, await freePort());
    try {
      await first.client.addDocuments('snap_k', movies(300));
      // Idle for more than the quiet delay: the scheduler has the workers save snapshots.
      for (let waited = 0; snapshotFiles(dbPath, 'snap_k').length === 0 && waited < 10_000; waited += 100) await sleep(100);
      await sleep(300);
      t.true(snapshotFiles(dbPath, 'snap_k').length > 0, 'snapshots written while idle');
      await first.client.addDocuments('snap_k', [{ id: 5, title: 'zeppelin', overview: 'replaced' }, { id: 900, title: 'kestrel', overview: 'new' }]);
      await first.client.run('DELETE', '/indexes/snap_k/documents/8');
    } finally {
      await stopChild(first, 'SIGKILL');
    }
    const stamp = recordStamp(dbPath, 'snap_k');
    const stale = snapshotFiles(dbPath, 'snap_k').filter((file) => stampOf(file) !== stamp);
    t.true(stale.length > 0, 'killed before the new state was saved');

    const second = await spawnCli(dbPath, await freePort());
    try {
      t.deepEqual((await search(second.client, 'snap_k', 'zeppelin')).ids, [5]);
      t.deepEqual((await search(second.client, 'snap_k', 'kestrel')).ids, [900]);
      t.false((await search(second.client, 'snap_k', 'film5')).ids.includes(5));
      t.false((await search(second.client, 'snap_k', 'film8')).ids.includes(8));
    } finally {
      await stopChild(second, 'SIGKILL');
    }
  }));
