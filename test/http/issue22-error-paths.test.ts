// Issue 22's audit: error paths of items whose HTTP tests covered the success path only, each as
// Meilisearch v1.53 answers it (codes from meilisearch-types' error.rs, deserr's messages).
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  await server.client.addDocuments('paths', [{ id: 1, title: 'hello world', tags: ['a'] }, { id: 2, title: 'second world', tags: ['b'] }]);
});

test.after.always(async () => {
  await server?.close();
});

test('settings routes on a missing index: a reset fails the task with index_not_found and creates nothing; an update creates it', async (t) => {
  const { client } = server;
  for (const path of ['/indexes/ghost/settings', '/indexes/ghost/settings/ranking-rules', '/indexes/ghost/settings/search-cutoff-ms']) {
    const task = await client.waitForTask(await client.enqueue('DELETE', path));
    t.is(task.status, 'failed', path);
    t.is(task.type, 'settingsUpdate', path);
    t.deepEqual(task.error, {
      message: 'Index `ghost` not found.', code: 'index_not_found', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#index_not_found',
    }, path);
  }
  t.is((await client.get('/indexes/ghost')).status, 404, 'a failed reset leaves no index behind');
  await client.run('PATCH', '/indexes/ghost/settings', { body: { searchCutoffMs: 40 } });
  t.is((await client.get('/indexes/ghost/settings/search-cutoff-ms')).body, 40);
});

test('retrieveVectors and cropLength of the wrong type: their own codes, on search and documents routes', async (t) => {
  const { client } = server;
  const search = await client.post('/indexes/paths/search', { retrieveVectors: 'yes' });
  t.is(search.status, 400);
  t.deepEqual(search.body, {
    message: 'Invalid value type at `.retrieveVectors`: expected a boolean, but found a string: `"yes"`',
    code: 'invalid_search_retrieve_vectors', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_search_retrieve_vectors',
  });
  const searchGet = await client.get('/indexes/paths/search?retrieveVectors=yes');
  t.is(searchGet.status, 400);
  t.is(searchGet.body.code, 'invalid_search_retrieve_vectors');
  const fetch = await client.post('/indexes/paths/documents/fetch', { retrieveVectors: 1 });
  t.is(fetch.status, 400);
  t.is(fetch.body.code, 'invalid_document_retrieve_vectors');
  t.is(fetch.body.message, 'Invalid value type at `.retrieveVectors`: expected a boolean, but found a positive integer: `1`');
  for (const path of ['/indexes/paths/documents?retrieveVectors=maybe', '/indexes/paths/documents/1?retrieveVectors=maybe']) {
    const response = await client.get(path);
    t.is(response.status, 400, path);
    t.is(response.body.code, 'invalid_document_retrieve_vectors', path);
  }
  const crop = await client.post('/indexes/paths/search', { q: 'world', attributesToCrop: ['title'], cropLength: -1 });
  t.is(crop.status, 400);
  t.deepEqual(crop.body, {
    message: 'Invalid value type at `.cropLength`: expected a positive integer, but found a negative integer: `-1`',
    code: 'invalid_search_crop_length', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_search_crop_length',
  });
  const cropGet = await client.get('/indexes/paths/search?q=world&attributesToCrop=title&cropLength=ten');
  t.is(cropGet.status, 400);
  t.is(cropGet.body.code, 'invalid_search_crop_length');
  // cropLength 0 is valid: an empty crop window is the crop marker alone, as Meilisearch.
  const zero = await client.post('/indexes/paths/search', { q: 'world', attributesToCrop: ['title'], cropLength: 0 });
  t.is(zero.status, 200);
});
