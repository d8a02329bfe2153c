// Settings read at search time only (faceting, pagination, displayedAttributes, searchCutoffMs, facetSearch:
// src/settings/search-time-settings.ts) are applied without rebuilding the shards, as Meilisearch applies
// them without reindexing: on 100k npm rows a faceting update rebuilt every shard from LMDB (13-32 s).
// Held through the workers' own log lines and what searches answer, on 1 and 3 shards, then after a restart
// from the snapshots saved with the new settings.
import { rmSync } from 'node:fs';
import test from 'ava';
import { makeTempDir, withTestServer } from './harness.js';

const KEPT = 'search-time settings applied, shards kept';

function capture() {
  const lines: string[] = [];
  return {
    destination: { write: (chunk: string) => { lines.push(chunk); } },
    records: (): any[] => lines.map((line) => JSON.parse(line)),
    clear: () => { lines.length = 0; },
  };
}

const documents = Array.from({ length: 300 }, (_, id) => ({ id, title: `film ${id} ${id % 2 === 0 ? 'even' : 'odd'}`, genre: `g${String(id % 40).padStart(2, '0')}`, year: 1900 + (id % 90) }));

for (const shards of [1, 3]) {
  test(`faceting, pagination and displayedAttributes apply without a rebuild, and survive a restart (${shards} shard(s))`, async (t) => {
    const logs = capture();
    const dbPath = makeTempDir();
    const options = { workers: 2, shardsPerIndex: shards, dbPath, logLevel: 'debug' as const, logsMode: 'json' as const, logDestination: logs.destination };
    await withTestServer(options, async ({ client }) => {
      await client.waitForTask(await client.enqueue('PATCH', '/indexes/films/settings', { body: { filterableAttributes: ['genre', 'year'] } }));
      await client.addDocuments('films', documents);
      logs.clear();
      const update = await client.enqueue('PATCH', '/indexes/films/settings', {
        body: { faceting: { maxValuesPerFacet: 3, sortFacetValuesBy: { year: 'count' } }, pagination: { maxTotalHits: 7 }, displayedAttributes: ['id', 'title'] },
      });
      t.is((await client.waitForTask(update)).status, 'succeeded');
      t.true(logs.records().some((r) => r.msg === KEPT), 'the workers kept their shards');

      const search = await client.post('/indexes/films/search', { q: 'film', facets: ['genre', 'year'], limit: 50 });
      t.is(search.status, 200);
      t.deepEqual(search.body.facetDistribution.genre, { g00: 8, g01: 8, g02: 8 });
      t.is(Object.keys(search.body.facetDistribution.year).length, 3);
      t.is(search.body.hits.length, 7);
      t.deepEqual(Object.keys(search.body.hits[0]).sort(), ['id', 'title']);
      const even = await client.post('/indexes/films/search', { q: 'even', filter: 'genre = g02' });
      t.is(even.body.estimatedTotalHits, 7);

      // A setting the shards are built from still rebuilds them.
      logs.clear();
      const searchable = await client.enqueue('PATCH', '/indexes/films/settings', { body: { searchableAttributes: ['genre'] } });
      t.is((await client.waitForTask(searchable)).status, 'succeeded');
      t.false(logs.records().some((r) => r.msg === KEPT));
      t.is((await client.post('/indexes/films/search', { q: 'film' })).body.estimatedTotalHits, 0);
      t.is((await client.post('/indexes/films/search', { q: 'g07' })).body.estimatedTotalHits, 7);

      // Back to searching titles, then a search-time change again and documents in the same batch as it.
      await client.waitForTask(await client.enqueue('PATCH', '/indexes/films/settings', { body: { searchableAttributes: ['*'] } }));
      logs.clear();
      const faceting = await client.enqueue('PATCH', '/indexes/films/settings', { body: { faceting: { maxValuesPerFacet: 2 } } });
      const added = await client.enqueue('POST', '/indexes/films/documents', { body: [{ id: 1000, title: 'film extra', genre: 'a0', year: 1 }] });
      t.is((await client.waitForTask(faceting)).status, 'succeeded');
      t.is((await client.waitForTask(added)).status, 'succeeded');
      t.true(logs.records().some((r) => r.msg === KEPT));
      const after = await client.post('/indexes/films/search', { q: 'film', facets: ['genre'] });
      t.deepEqual(after.body.facetDistribution.genre, { a0: 1, g00: 8 });
    });
    // The snapshots saved after the change carry the new settings: the restart reads them, rebuilds nothing.
    logs.clear();
    await withTestServer(options, async ({ client }) => {
      const loaded = logs.records().filter((r) => r.msg === 'index loaded');
      t.true(loaded.reduce((sum, r) => sum + r.fromSnapshots, 0) >= shards, JSON.stringify(loaded));
      const search = await client.post('/indexes/films/search', { q: 'film', facets: ['genre'], limit: 50 });
      t.deepEqual(search.body.facetDistribution.genre, { a0: 1, g00: 8 });
      t.is(search.body.hits.length, 7);
      t.deepEqual(Object.keys(search.body.hits[0]).sort(), ['id', 'title']);
    });
    rmSync(dbPath, { recursive: true, force: true });
  });
}
