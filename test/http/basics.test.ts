// GET /health, /version, /stats, /indexes/{uid}/stats and unknown routes.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
test.before(async () => {
  server = await startTestServer();
});
test.after.always(async () => {
  await server?.close();
});

test.serial('GET /health is available', async (t) => {
  const response = await server.client.get('/health');
  t.is(response.status, 200);
  t.deepEqual(response.body, { status: 'available' });
  t.regex(response.headers.get('content-type') ?? '', /application\/json/);
});

test.serial('GET /version has exactly commitSha, commitDate, pkgVersion', async (t) => {
  const response = await server.client.get('/version');
  t.is(response.status, 200);
  t.deepEqual(Object.keys(response.body), ['commitSha', 'commitDate', 'pkgVersion']);
  for (const value of Object.values(response.body)) t.is(typeof value, 'string');
  t.regex(response.body.pkgVersion, /^\d+\.\d+\.\d+/);
});

test.serial('GET /stats on an empty server', async (t) => {
  const response = await server.client.get('/stats');
  t.is(response.status, 200);
  t.is(typeof response.body.databaseSize, 'number');
  t.is(response.body.lastUpdate, null);
  t.deepEqual(response.body.indexes, {});
});

test.serial('GET /stats and /indexes/{uid}/stats count documents and fields', async (t) => {
  const { client } = server;
  await client.addDocuments('stats_movies', [
    { id: 1, title: 'Carol', genre: 'drama', info: { year: 2015 } },
    { id: 2, title: 'Wonder Woman' },
    { id: 3, title: 'Life of Pi', genre: 'adventure' },
  ]);
  // Current Meilisearch counts TOP-LEVEL fields only (milli update/new/extract/documents.rs, iter_top_level_fields).
  const expectedFields = { genre: 2, id: 3, info: 1, title: 3 };

  const indexStats = await client.get('/indexes/stats_movies/stats');
  t.is(indexStats.status, 200);
  t.is(indexStats.body.numberOfDocuments, 3);
  t.is(indexStats.body.isIndexing, false);
  t.deepEqual(indexStats.body.fieldDistribution, expectedFields);
  t.deepEqual(Object.keys(indexStats.body.fieldDistribution), Object.keys(expectedFields).sort(), 'keys sorted');

  const global = await client.get('/stats');
  t.is(global.status, 200);
  t.is(typeof global.body.databaseSize, 'number');
  t.true(global.body.databaseSize > 0);
  t.is(typeof global.body.lastUpdate, 'string');
  t.false(Number.isNaN(Date.parse(global.body.lastUpdate)));
  t.is(global.body.indexes.stats_movies.numberOfDocuments, 3);
  t.is(global.body.indexes.stats_movies.isIndexing, false);
  t.deepEqual(global.body.indexes.stats_movies.fieldDistribution, expectedFields);
});

test.serial('GET /indexes/{uid}/stats of a missing index is index_not_found', async (t) => {
  const response = await server.client.get('/indexes/nope/stats');
  t.is(response.status, 404);
  t.deepEqual(response.body, errorBody('Index `nope` not found.', 'index_not_found'));
});

test.serial('an unknown route answers 404 with a JSON error', async (t) => {
  const response = await server.client.get('/no/such/route');
  t.is(response.status, 404);
});

test.serial('rawDocumentDbSize follows additions, replacements and deletions', async (t) => {
  const { client } = server;
  const bytes = (documents: unknown[]) => documents.reduce<number>((sum, document) => sum + Buffer.byteLength(JSON.stringify(document)), 0);
  const first = { id: 1, title: 'Carol' };
  const second = { id: 2, title: 'Wonder Woman' };
  await client.addDocuments('stats_sizes', [first, second]);
  let stats = await client.get('/indexes/stats_sizes/stats');
  t.is(stats.body.rawDocumentDbSize, bytes([first, second]));
  t.is(stats.body.avgDocumentSize, Math.floor(bytes([first, second]) / 2));

  const replaced = { id: 1, title: 'Carol, the longer title' };
  await client.addDocuments('stats_sizes', [replaced]);
  stats = await client.get('/indexes/stats_sizes/stats');
  t.is(stats.body.rawDocumentDbSize, bytes([replaced, second]));

  await client.run('DELETE', '/indexes/stats_sizes/documents/2');
  stats = await client.get('/indexes/stats_sizes/stats');
  t.is(stats.body.rawDocumentDbSize, bytes([replaced]));
  t.is(stats.body.numberOfDocuments, 1);
});
