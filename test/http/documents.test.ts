// /indexes/{uid}/documents: add (JSON, NDJSON, CSV), update (merge), get one / list, delete one / batch / all.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
test.before(async () => {
  server = await startTestServer();
});
test.after.always(async () => {
  await server?.close();
});

const MOVIES = [
  { id: 1, title: 'Carol', genres: ['Romance', 'Drama'], info: { year: 2015 } },
  { id: 2, title: 'Wonder Woman', genres: ['Action'] },
  { id: 3, title: 'Life of Pi', genres: ['Adventure'] },
  { id: 4, title: 'Mad Max', genres: ['Action'] },
];

test('POST a JSON array: 202 summarized task, details, inferred primary key', async (t) => {
  const { client } = server;
  const response = await client.post('/indexes/doc_movies/documents', MOVIES);
  t.is(response.status, 202);
  t.deepEqual(Object.keys(response.body), ['taskUid', 'indexUid', 'status', 'type', 'enqueuedAt']);
  t.like(response.body, { indexUid: 'doc_movies', status: 'enqueued', type: 'documentAdditionOrUpdate' });

  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { receivedDocuments: 4, indexedDocuments: 4 });
  t.is((await client.get('/indexes/doc_movies')).body.primaryKey, 'id');

  const one = await client.get('/indexes/doc_movies/documents/1');
  t.is(one.status, 200);
  t.deepEqual(one.body, MOVIES[0]);

  const projected = await client.get('/indexes/doc_movies/documents/1?fields=title,info.year');
  t.is(projected.status, 200);
  t.deepEqual(projected.body, { title: 'Carol', info: { year: 2015 } });

  const list = await client.get('/indexes/doc_movies/documents');
  t.deepEqual(list.body, { results: MOVIES, offset: 0, limit: 20, total: 4 });

  const page = await client.get('/indexes/doc_movies/documents?offset=1&limit=2&fields=id,title');
  t.deepEqual(page.body, {
    results: [
      { id: 2, title: 'Wonder Woman' },
      { id: 3, title: 'Life of Pi' },
    ],
    offset: 1,
    limit: 2,
    total: 4,
  });

  const unknownField = await client.get('/indexes/doc_movies/documents?limit=1&fields=nope');
  t.deepEqual(unknownField.body.results, [{}]);
});

test('string and integer ids are the same document', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_ids', [{ id: 7, v: 'int' }]);
  await client.addDocuments('doc_ids', [{ id: '7', v: 'string' }]);
  const list = await client.get('/indexes/doc_ids/documents');
  t.is(list.body.total, 1);
  t.deepEqual((await client.get('/indexes/doc_ids/documents/7')).body, { id: '7', v: 'string' });
});

test('POST a single object adds one document', async (t) => {
  const { client } = server;
  const task = await client.addDocuments('doc_single', { id: 'abc-1', name: 'single' });
  t.deepEqual(task.details, { receivedDocuments: 1, indexedDocuments: 1 });
  t.deepEqual((await client.get('/indexes/doc_single/documents/abc-1')).body, { id: 'abc-1', name: 'single' });
});

test('NDJSON payload', async (t) => {
  const { client } = server;
  const task = await client.run('POST', '/indexes/doc_ndjson/documents', {
    raw: '{"id": 1, "name": "one"}\n\n{"id": 2, "name": "two"}\n',
    contentType: 'application/x-ndjson',
  });
  t.deepEqual(task.details, { receivedDocuments: 2, indexedDocuments: 2 });
  t.deepEqual((await client.get('/indexes/doc_ndjson/documents')).body.results, [
    { id: 1, name: 'one' },
    { id: 2, name: 'two' },
  ]);
});

test('CSV payload with typed headers', async (t) => {
  const { client } = server;
  const task = await client.run('POST', '/indexes/doc_csv/documents', {
    raw: 'id,title,price:number,available:boolean,note\n1,"Hello, world",9.5,true,\n2,Bye,,false,x\n',
    contentType: 'text/csv',
  });
  t.deepEqual(task.details, { receivedDocuments: 2, indexedDocuments: 2 });
  t.deepEqual((await client.get('/indexes/doc_csv/documents')).body.results, [
    { id: '1', title: 'Hello, world', price: 9.5, available: true, note: null },
    { id: '2', title: 'Bye', price: null, available: false, note: 'x' },
  ]);
});

test('CSV payload with csvDelimiter', async (t) => {
  const { client } = server;
  await client.run('POST', '/indexes/doc_csv_delim/documents?csvDelimiter=%3B', {
    raw: 'id;count:number\n1;3\n',
    contentType: 'text/csv',
  });
  t.deepEqual((await client.get('/indexes/doc_csv_delim/documents/1')).body, { id: '1', count: 3 });
});

test('POST replaces whole documents, PUT merges top-level fields', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_merge', [{ id: 1, title: 'a', year: 2000, nested: { x: 1, y: 2 } }]);

  const put = await client.put('/indexes/doc_merge/documents', [{ id: 1, genre: 'drama', nested: { z: 3 } }]);
  t.is(put.status, 202);
  t.is(put.body.type, 'documentAdditionOrUpdate');
  t.is((await client.waitForTask(put.body.taskUid)).status, 'succeeded');
  t.deepEqual((await client.get('/indexes/doc_merge/documents/1')).body, {
    id: 1,
    title: 'a',
    year: 2000,
    nested: { z: 3 },
    genre: 'drama',
  });

  await client.addDocuments('doc_merge', [{ id: 1, title: 'b' }]);
  t.deepEqual((await client.get('/indexes/doc_merge/documents/1')).body, { id: 1, title: 'b' });

  await client.run('PUT', '/indexes/doc_merge/documents', { body: [{ id: 2, title: 'new via put' }] });
  t.deepEqual((await client.get('/indexes/doc_merge/documents/2')).body, { id: 2, title: 'new via put' });
});

test('later documents with the same id in one payload win', async (t) => {
  const { client } = server;
  const task = await client.addDocuments('doc_dupes', [
    { id: 1, v: 'first' },
    { id: 1, v: 'second' },
  ]);
  t.is(task.details.receivedDocuments, 2);
  t.is((await client.get('/indexes/doc_dupes/documents')).body.total, 1);
  t.deepEqual((await client.get('/indexes/doc_dupes/documents/1')).body, { id: 1, v: 'second' });
});

test('primaryKey query parameter on first addition', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_pk_param', [{ sku: 'a1', id_like: 'x', name: 'n' }], '?primaryKey=sku');
  t.is((await client.get('/indexes/doc_pk_param')).body.primaryKey, 'sku');
  t.deepEqual((await client.get('/indexes/doc_pk_param/documents/a1')).body, { sku: 'a1', id_like: 'x', name: 'n' });
});

test('a different primaryKey on a later addition fails with index_primary_key_already_exists', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_pk_change', [{ id: 1, code: 'c' }]);
  const task = await client.waitForTask(
    await client.enqueue('POST', '/indexes/doc_pk_change/documents?primaryKey=code', { body: [{ id: 2, code: 'd' }] }),
  );
  t.is(task.status, 'failed');
  t.is(task.error.code, 'index_primary_key_already_exists');
  t.deepEqual(task.details, { receivedDocuments: 1, indexedDocuments: 0 });
});

test('GET one missing document is 404 document_not_found', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_missing', [{ id: 1 }]);
  const response = await client.get('/indexes/doc_missing/documents/999');
  t.is(response.status, 404);
  t.deepEqual(response.body, errorBody('Document `999` not found.', 'document_not_found'));
});

test('documents of a missing index are index_not_found', async (t) => {
  const { client } = server;
  const one = await client.get('/indexes/doc_no_index/documents/1');
  t.is(one.status, 404);
  t.deepEqual(one.body, errorBody('Index `doc_no_index` not found.', 'index_not_found'));
  const list = await client.get('/indexes/doc_no_index/documents');
  t.is(list.status, 404);
  t.deepEqual(list.body, errorBody('Index `doc_no_index` not found.', 'index_not_found'));
});

test('GET documents with a bad limit is invalid_document_limit', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_bad_limit', [{ id: 1 }]);
  const response = await client.get('/indexes/doc_bad_limit/documents?limit=x');
  t.is(response.status, 400);
  t.deepEqual(
    response.body,
    errorBody('Invalid value in parameter `limit`: could not parse `x` as a positive integer', 'invalid_document_limit'),
  );
});

test('DELETE one document', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_del_one', [{ id: 1 }, { id: 2 }]);
  const response = await client.delete('/indexes/doc_del_one/documents/1');
  t.is(response.status, 202);
  t.like(response.body, { indexUid: 'doc_del_one', status: 'enqueued', type: 'documentDeletion' });
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { providedIds: 1, deletedDocuments: 1, originalFilter: null });
  t.is((await client.get('/indexes/doc_del_one/documents/1')).status, 404);
  t.deepEqual((await client.get('/indexes/doc_del_one/documents')).body.results, [{ id: 2 }]);
});

test('POST delete-batch counts provided and deleted ids separately', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_del_batch', [{ id: 1 }, { id: 2 }, { id: 3 }]);
  const response = await client.post('/indexes/doc_del_batch/documents/delete-batch', [1, '2', 99]);
  t.is(response.status, 202);
  t.is(response.body.type, 'documentDeletion');
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { providedIds: 3, deletedDocuments: 2, originalFilter: null });
  t.deepEqual((await client.get('/indexes/doc_del_batch/documents')).body.results, [{ id: 3 }]);
  t.is((await client.get('/indexes/doc_del_batch/stats')).body.numberOfDocuments, 1);
});

test('DELETE all documents', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_clear', [{ id: 1, a: 1 }, { id: 2, b: 2 }]);
  const response = await client.delete('/indexes/doc_clear/documents');
  t.is(response.status, 202);
  t.is(response.body.type, 'documentDeletion');
  const task = await client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { deletedDocuments: 2 });
  t.deepEqual((await client.get('/indexes/doc_clear/documents')).body, { results: [], offset: 0, limit: 20, total: 0 });
  const stats = await client.get('/indexes/doc_clear/stats');
  t.is(stats.body.numberOfDocuments, 0);
  t.deepEqual(stats.body.fieldDistribution, {});
  t.is((await client.get('/indexes/doc_clear')).body.primaryKey, 'id', 'the index and its primary key remain');
});

test('deleted documents disappear from search', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_del_search', [
    { id: 1, title: 'lighthouse keeper' },
    { id: 2, title: 'lighthouse painter' },
  ]);
  await client.run('DELETE', '/indexes/doc_del_search/documents/1');
  const search = await client.post('/indexes/doc_del_search/search', { q: 'lighthouse' });
  t.deepEqual(search.body.hits, [{ id: 2, title: 'lighthouse painter' }]);
});

test('a search after an update shows the new version, not the one an earlier search returned', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_update_search', [{ id: 1, title: 'lighthouse keeper', year: 1990 }]);
  t.deepEqual((await client.post('/indexes/doc_update_search/search', { q: 'lighthouse' })).body.hits, [{ id: 1, title: 'lighthouse keeper', year: 1990 }]);
  const put = await client.put('/indexes/doc_update_search/documents', [{ id: 1, year: 2024 }]);
  t.is((await client.waitForTask(put.body.taskUid)).status, 'succeeded');
  // Also once the shard worker has let go of the write's documents and the front reads the stored ones.
  for (const delayMs of [0, 50, 200]) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const search = await client.post('/indexes/doc_update_search/search', { q: 'lighthouse' });
    t.deepEqual(search.body.hits, [{ id: 1, title: 'lighthouse keeper', year: 2024 }], `after ${delayMs} ms`);
  }
});

// ---- task errors of document additions ----

test('a document without the primary key fails the task with missing_document_id (nothing applied)', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_err_missing', [{ id: 1, title: 'kept' }]);
  const task = await client.waitForTask(
    await client.enqueue('POST', '/indexes/doc_err_missing/documents', { body: [{ id: 2, title: 'ok' }, { title: 'no id' }] }),
  );
  t.is(task.status, 'failed');
  t.deepEqual(task.error, errorBody('Document doesn\'t have a `id` attribute: `{"title":"no id"}`.', 'missing_document_id'));
  t.deepEqual(task.details, { receivedDocuments: 2, indexedDocuments: 0 });
  t.is((await client.get('/indexes/doc_err_missing/documents/2')).status, 404, 'the whole task failed');
  t.is((await client.get('/indexes/doc_err_missing/documents')).body.total, 1);
});

test('invalid document ids fail the task with invalid_document_id', async (t) => {
  const { client } = server;
  const message = (shown: string) =>
    `Document identifier \`${shown}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`;
  await client.createIndex('doc_err_id', 'id');
  for (const [id, shown] of [
    ['a b', '"a b"'],
    [1.5, '1.5'],
    [true, 'true'],
    ['x'.repeat(512), `"${'x'.repeat(512)}"`],
  ] as const) {
    const task = await client.waitForTask(await client.enqueue('POST', '/indexes/doc_err_id/documents', { body: [{ id }] }));
    t.is(task.status, 'failed', String(id));
    t.deepEqual(task.error, errorBody(message(shown), 'invalid_document_id'), String(id));
  }
  const longest = await client.addDocuments('doc_err_id', [{ id: 'y'.repeat(511) }]);
  t.is(longest.status, 'succeeded');
});

test('no primary key candidate fails with index_primary_key_no_candidate_found', async (t) => {
  const { client } = server;
  const task = await client.waitForTask(
    await client.enqueue('POST', '/indexes/doc_err_nopk/documents', { body: [{ title: 'x', desc: 'y' }] }),
  );
  t.is(task.status, 'failed');
  t.deepEqual(
    task.error,
    errorBody(
      'The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.',
      'index_primary_key_no_candidate_found',
    ),
  );
  t.deepEqual(task.details, { receivedDocuments: 1, indexedDocuments: 0 });
});

test('several primary key candidates fail with index_primary_key_multiple_candidates_found', async (t) => {
  const { client } = server;
  const task = await client.waitForTask(
    await client.enqueue('POST', '/indexes/doc_err_multi/documents', { body: [{ product_id: 2, id: 1, title: 'x' }] }),
  );
  t.is(task.status, 'failed');
  t.deepEqual(
    task.error,
    errorBody(
      "The primary key inference failed as the engine found 2 fields ending with `id` in their names: 'id' and 'product_id'. Please specify the primary key manually using the `primaryKey` query parameter.",
      'index_primary_key_multiple_candidates_found',
    ),
  );
});

test('primary key inference takes any key ending with id, case-insensitively', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_infer_upper', [{ movieID: 'm1', title: 'x' }]);
  t.is((await client.get('/indexes/doc_infer_upper')).body.primaryKey, 'movieID');
});

test('a nested primary key reaches into objects', async (t) => {
  const { client } = server;
  await client.addDocuments('doc_nested_pk', [{ product: { sku: 'p1' }, name: 'a' }], '?primaryKey=product.sku');
  t.deepEqual((await client.get('/indexes/doc_nested_pk/documents/p1')).body, { product: { sku: 'p1' }, name: 'a' });
});
