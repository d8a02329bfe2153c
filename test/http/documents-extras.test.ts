// Documents routes, Meilisearch 1.1x-1.2x additions: `sort` on GET /documents and POST /documents/fetch
// (sortable attributes only, no `sort` ranking rule needed, the index's distinct not applied),
// `customMetadata` kept on the write's task, `skipCreation=true` updating only existing documents.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 3 });
  const { client } = server;
  await client.createIndex('books', 'id');
  await client.run('PATCH', '/indexes/books/settings', {
    body: { sortableAttributes: ['title', 'year'], filterableAttributes: ['genre'], distinctAttribute: 'genre', rankingRules: ['words', 'typo'] },
  });
  await client.addDocuments('books', [
    { id: 1, title: 'Orders', year: 2001, genre: 'drama' },
    { id: 2, title: 'Orders', year: 1999, genre: 'drama' },
    { id: 3, title: 'Payments', year: 2010, genre: 'comedy' },
    { id: 4, title: 'Alpha', year: 2010, genre: 'drama' },
    { id: 5, title: 'Zulu', genre: 'comedy' },
  ]);
});
test.after.always(async () => {
  await server?.close();
});

const ids = (body: any) => body.results.map((document: any) => document.id);

test.serial('sort on GET and POST: criteria in order, then internal id order; no distinct, no sort ranking rule needed', async (t) => {
  const { client } = server;
  const get = (await client.get('/indexes/books/documents?sort=title:asc,year:desc')).body;
  t.deepEqual(ids(get), [4, 1, 2, 3, 5]);
  t.is(get.total, 5);
  const post = (await client.post('/indexes/books/documents/fetch', { sort: ['year:desc'], limit: 2, offset: 1 })).body;
  t.deepEqual(ids(post), [4, 1]);
  t.is(post.total, 5);
  const filtered = (await client.post('/indexes/books/documents/fetch', { sort: ['title:desc'], filter: 'genre = drama', fields: ['id'] })).body;
  t.deepEqual(filtered.results, [{ id: 1 }, { id: 2 }, { id: 4 }]);
  t.is(filtered.total, 3);
  t.deepEqual(ids((await client.post('/indexes/books/documents/fetch', { sort: [] })).body), [1, 2, 3, 4, 5]);
});

test.serial('sort errors: not sortable, bad syntax, bad type, with ids', async (t) => {
  const { client } = server;
  const notSortable = await client.get('/indexes/books/documents?sort=genre:asc');
  t.is(notSortable.status, 400);
  t.is(notSortable.body.code, 'invalid_document_sort');
  t.regex(notSortable.body.message, /^Attribute `genre` is not sortable. Available sortable attributes are: /);
  const syntax = await client.post('/indexes/books/documents/fetch', { sort: ['title'] });
  t.is(syntax.status, 400);
  t.is(syntax.body.code, 'invalid_document_sort');
  t.is((await client.post('/indexes/books/documents/fetch', { sort: 'title:asc' })).body.code, 'invalid_document_sort');
  t.is((await client.post('/indexes/books/documents/fetch', { sort: ['title:asc'], ids: [1] })).status, 400);
});

test.serial('customMetadata is kept on every document write task and shown as given', async (t) => {
  const { client } = server;
  const writes: [string, string, unknown][] = [
    ['POST', '/indexes/books/documents?customMetadata=add%20one', [{ id: 9, title: 'New' }]],
    ['DELETE', '/indexes/books/documents/9?customMetadata=delete-one', undefined],
    ['POST', '/indexes/books/documents/delete-batch?customMetadata=batch', [42]],
    ['POST', '/indexes/books/documents/delete?customMetadata=by-filter', { filter: 'genre = nope' }],
  ];
  for (const [method, path, body] of writes) {
    const task = await client.run(method, path, body === undefined ? {} : { body });
    t.is(task.status, 'succeeded', path);
    t.is(task.customMetadata, decodeURIComponent(path.split('customMetadata=')[1]!), path);
    t.is(Object.keys(task).at(-1), 'customMetadata');
  }
  const plain = await client.run('POST', '/indexes/books/documents', { body: [{ id: 10 }] });
  t.false('customMetadata' in plain);
  await client.run('DELETE', '/indexes/books/documents/10');
});

test.serial('skipCreation=true updates existing documents and creates none, on POST and PUT', async (t) => {
  const { client } = server;
  const added = await client.run('POST', '/indexes/books/documents?skipCreation=true', { body: [{ id: 1, title: 'Orders II' }, { id: 999, title: 'New' }] });
  t.is(added.status, 'succeeded');
  t.is(added.details.indexedDocuments, 1);
  t.is((await client.get('/indexes/books/documents/999')).status, 404);
  t.deepEqual((await client.get('/indexes/books/documents/1')).body, { id: 1, title: 'Orders II' });
  const updated = await client.run('PUT', '/indexes/books/documents?skipCreation=true', { body: [{ id: 2, year: 2000 }, { id: 998 }] });
  t.is(updated.details.indexedDocuments, 1);
  t.is((await client.get('/indexes/books/documents/998')).status, 404);
  t.is((await client.get('/indexes/books/documents/2')).body.year, 2000);
  t.is((await client.post('/indexes/books/documents?skipCreation=maybe', [{ id: 1 }])).body.code, 'invalid_skip_creation');
  t.is((await client.get('/indexes/books/stats')).body.numberOfDocuments, 5);
});
