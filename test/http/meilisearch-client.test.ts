// The official `meilisearch` JS client (v0.62) against Skein.
import test from 'ava';
import { Meilisearch } from 'meilisearch';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let client: Meilisearch;
test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  client = new Meilisearch({ host: server.client.baseUrl });
});
test.after.always(async () => {
  await server?.close();
});

const MOVIES = [
  { id: 1, title: 'Carol', genre: 'Romance' },
  { id: 2, title: 'Wonder Woman', genre: 'Action' },
  { id: 3, title: 'Life of Pi', genre: 'Adventure' },
  { id: 4, title: 'Mad Max: Fury Road', genre: 'Action' },
];

test.serial('health and version', async (t) => {
  t.deepEqual(await client.health(), { status: 'available' });
  t.true(await client.isHealthy());
  const version = await client.getVersion();
  t.is(typeof version.pkgVersion, 'string');
});

test.serial('create an index and wait with EnqueuedTaskPromise.waitTask()', async (t) => {
  const task = await client.createIndex('client_movies', { primaryKey: 'id' }).waitTask({ timeout: 20_000 });
  t.is(task.status, 'succeeded');
  t.is(task.type, 'indexCreation');
  const index = await client.getIndex('client_movies');
  t.is(index.uid, 'client_movies');
  t.is(index.primaryKey, 'id');
});

test.serial('addDocuments, client.tasks.waitForTask, getDocuments, getDocument', async (t) => {
  const index = client.index('client_movies');
  const enqueued = await index.addDocuments(MOVIES);
  t.is(enqueued.status, 'enqueued');
  t.is(enqueued.type, 'documentAdditionOrUpdate');
  const task = await client.tasks.waitForTask(enqueued.taskUid, { timeout: 20_000 });
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { receivedDocuments: 4, indexedDocuments: 4 });

  const documents = await index.getDocuments({ limit: 2, offset: 1 });
  t.deepEqual(documents.results, MOVIES.slice(1, 3));
  t.is(documents.total, 4);
  t.deepEqual(await index.getDocument(3), MOVIES[2]);
  t.deepEqual(await index.getDocument(3, { fields: ['title'] }), { title: 'Life of Pi' });
});

test.serial('search through the client', async (t) => {
  const index = client.index('client_movies');
  const result = await index.search('wonder');
  t.deepEqual(result.hits, [MOVIES[1]]);
  t.is(result.query, 'wonder');
  t.is(result.estimatedTotalHits, 1);
  const paged = await index.search('', { hitsPerPage: 3, page: 2 });
  t.deepEqual(paged.hits, [MOVIES[3]]);
  t.is(paged.totalHits, 4);
  t.is(paged.totalPages, 2);
  const viaGet = await index.searchGet('mad', { attributesToRetrieve: ['id'] });
  t.deepEqual(viaGet.hits, [{ id: 4 }]);
});

test.serial('stats, tasks and settings through the client', async (t) => {
  const stats = await client.index('client_movies').getStats();
  t.is(stats.numberOfDocuments, 4);
  t.false(stats.isIndexing);
  const tasks = await client.tasks.getTasks({ indexUids: ['client_movies'] });
  t.is(tasks.total, 2);
  const settings = await client.index('client_movies').getSettings();
  t.deepEqual(settings.searchableAttributes, ['*']);
  const update = await client.index('client_movies').updateSearchableAttributes(['title']).waitTask({ timeout: 20_000 });
  t.is(update.status, 'succeeded');
  t.deepEqual(await client.index('client_movies').getSearchableAttributes(), ['title']);
});

test.serial('errors surface as MeiliSearchApiError with the code', async (t) => {
  const error = await t.throwsAsync(client.getIndex('client_missing'));
  t.is((error as { cause?: { code?: string } }).cause?.code, 'index_not_found');
});

test.serial('deleteIndex', async (t) => {
  const task = await client.deleteIndex('client_movies').waitTask({ timeout: 20_000 });
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { deletedDocuments: 4 });
  await t.throwsAsync(client.getIndex('client_movies'));
});
