// POST /indexes/{uid}/documents/edit (Meilisearch's experimental edit documents by function, a Rhai
// script per document): the feature gate, the body's errors, the task's details and effects, and the
// hostile scripts (endless loops, growing strings, deep nesting, recursion) that must fail the task
// cleanly while the server keeps answering.
import test from 'ava';
import { Client, errorBody, startTestServer, withTestServer, type TestServer } from './harness.js';

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  const features = await server.client.patch('/experimental-features', { editDocumentsByFunction: true });
  if (features.status !== 200) throw new Error(`features: ${features.status}`);
});
test.after.always(async () => {
  await server?.close();
});

const BOOKS = [
  { id: 1, title: 'Carol', comment: 'c1', genre: 'romance' },
  { id: 2, title: 'Wonder', comment: 'c2', genre: 'action' },
  { id: 3, title: 'Life of Pi', comment: 'c3', genre: 'adventure' },
  { id: 4, title: 'Harry Potter', comment: 'c4', genre: 'fantasy' },
  { id: 6, title: 'Mad Max', comment: 'c6', genre: 'action' },
];

async function seed(uid: string, documents: unknown[] = BOOKS, filterable: string[] = ['id', 'genre']): Promise<void> {
  const { client } = server;
  await client.run('PATCH', `/indexes/${uid}/settings`, { body: { filterableAttributes: filterable } });
  const task = await client.waitForTask((await client.post(`/indexes/${uid}/documents`, documents)).body.taskUid);
  if (task.status !== 'succeeded') throw new Error(JSON.stringify(task.error));
}

async function edit(uid: string, body: unknown): Promise<any> {
  const response = await server.client.post(`/indexes/${uid}/documents/edit`, body);
  if (response.status !== 202) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
  return server.client.waitForTask(response.body.taskUid, 60_000);
}

async function documents(uid: string): Promise<any[]> {
  return (await server.client.get(`/indexes/${uid}/documents?limit=100`)).body.results;
}

test('the meilisearch-js example: a filter, a context, a template string; details as Meilisearch shows them', async (t) => {
  await seed('edit_js');
  const response = await server.client.post('/indexes/edit_js/documents/edit', {
    context: { ctx: 'Harry' }, filter: 'id = 4', function: 'doc.comment = `Yer a wizard, ${context.ctx}!`',
  });
  t.is(response.status, 202);
  t.like(response.body, { indexUid: 'edit_js', status: 'enqueued', type: 'documentEdition' });
  const task = await server.client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded');
  // Meilisearch counts the matched documents as both edited and deleted.
  t.deepEqual(task.details, { editedDocuments: 1, deletedDocuments: 1, originalFilter: '"id = 4"', context: { ctx: 'Harry' },
    function: 'doc.comment = `Yer a wizard, ${context.ctx}!`' });
  t.deepEqual((await server.client.get('/indexes/edit_js/documents/4')).body,
    { id: 4, title: 'Harry Potter', comment: 'Yer a wizard, Harry!', genre: 'fantasy' });
  t.deepEqual((await server.client.get('/indexes/edit_js/documents/1')).body, BOOKS[0]);
  // The shards index the edited text.
  const hits = (await server.client.post('/indexes/edit_js/search', { q: 'wizard' })).body.hits;
  t.deepEqual(hits.map((hit: any) => hit.id), [4]);
});

test('no filter: every document; if/else, arithmetic on context, remove; fields keep their place', async (t) => {
  await seed('edit_all');
  const task = await edit('edit_all', {
    context: { modulo: 3 },
    function: 'if doc.id % context.modulo == 0 {\n  doc.title = `kefir would read ${doc.title}`;\n};\ndoc.remove("comment");\ndoc.remove("genre");\ndoc.len = doc.title.len();',
  });
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { editedDocuments: 5, deletedDocuments: 5, originalFilter: null, context: { modulo: 3 }, function: task.details.function });
  t.deepEqual(await documents('edit_all'), [
    { id: 1, title: 'Carol', len: 5 },
    { id: 2, title: 'Wonder', len: 6 },
    { id: 3, title: 'kefir would read Life of Pi', len: 27 },
    { id: 4, title: 'Harry Potter', len: 12 },
    { id: 6, title: 'kefir would read Mad Max', len: 24 },
  ]);
  const stats = (await server.client.get('/indexes/edit_all/stats')).body;
  t.deepEqual(stats.fieldDistribution, { id: 5, len: 5, title: 5 });
});

test('doc = () deletes the document; a filter matching nothing succeeds with zero counts', async (t) => {
  await seed('edit_delete');
  const task = await edit('edit_delete', { filter: 'genre = action', function: 'doc = ()' });
  t.is(task.status, 'succeeded');
  t.deepEqual((await documents('edit_delete')).map((doc) => doc.id), [1, 3, 4]);
  t.is((await server.client.get('/indexes/edit_delete/stats')).body.numberOfDocuments, 3);
  t.deepEqual((await server.client.post('/indexes/edit_delete/search', { q: 'mad' })).body.hits, []);
  const none = await edit('edit_delete', { filter: 'genre = nothing', function: 'doc = ()' });
  t.is(none.status, 'succeeded');
  t.like(none.details, { editedDocuments: 0, deletedDocuments: 0, originalFilter: '"genre = nothing"' });
});

test('a runtime error on one document fails the task whole: no document keeps an edit', async (t) => {
  await seed('edit_fail');
  const task = await edit('edit_fail', { function: 'doc.touched = true;\nif doc.id == 4 { throw "boom" }' });
  t.is(task.status, 'failed');
  t.deepEqual(task.error, errorBody('Index `edit_fail`: Document edition runtime error encountered while running the function: Runtime error: boom (line 2, position 18)',
    'edit_documents_by_function_error'));
  t.like(task.details, { editedDocuments: 0, deletedDocuments: 0 });
  t.deepEqual(await documents('edit_fail'), BOOKS);
});

test('the primary key cannot change; doc must stay an object', async (t) => {
  await seed('edit_pk');
  const changed = await edit('edit_pk', { filter: 'id = 1', function: 'doc.id = 100' });
  t.deepEqual(changed.error, errorBody('Index `edit_pk`: Document editions cannot modify a document\'s primary key', 'edit_documents_by_function_error'));
  const notObject = await edit('edit_pk', { filter: 'id = 1', function: 'doc = [1, 2]' });
  t.deepEqual(notObject.error, errorBody('Index `edit_pk`: Document editions must keep documents as objects', 'edit_documents_by_function_error'));
  const removed = await edit('edit_pk', { filter: 'id = 1', function: 'doc.remove("id")' });
  t.is(removed.error.code, 'missing_document_id');
  t.deepEqual(await documents('edit_pk'), BOOKS);
});

test('filters: syntax checked at the route, filterability when the task runs; a missing index fails the task', async (t) => {
  await seed('edit_filter', BOOKS, ['id']);
  const bad = await server.client.post('/indexes/edit_filter/documents/edit', { filter: 'id =', function: 'doc.x = 1' });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_document_filter');
  t.true(bad.body.message.startsWith('Index `edit_filter`: '), bad.body.message);
  const empty = await server.client.post('/indexes/edit_filter/documents/edit', { filter: '', function: 'doc.x = 1' });
  t.deepEqual(empty.body, errorBody('Sending an empty filter is forbidden.', 'invalid_document_filter'));
  const notFilterable = await edit('edit_filter', { filter: 'genre = action', function: 'doc.x = 1' });
  t.is(notFilterable.status, 'failed');
  t.is(notFilterable.error.code, 'invalid_document_filter');
  t.true(notFilterable.error.message.startsWith('Index `edit_filter`: Attribute `genre` is not filterable.'), notFilterable.error.message);
  const missing = await edit('edit_nowhere', { function: 'doc.x = 1' });
  t.deepEqual(missing.error, errorBody('Index `edit_nowhere` not found.', 'index_not_found'));
});

test('the body: unknown field, missing or mistyped function, context not an object, syntax errors, size bounds', async (t) => {
  const post = (body: unknown) => server.client.post('/indexes/edit_body/documents/edit', body);
  t.deepEqual((await post({ function: 'doc.x = 1', nope: 1 })).body,
    errorBody('Unknown field `nope`: expected one of `filter`, `context`, `function`', 'bad_request'));
  t.deepEqual((await post({ filter: 'id = 1' })).body, errorBody('Missing field `function`', 'missing_document_edition_function'));
  t.deepEqual((await post({ function: 12 })).body,
    errorBody('Invalid value type at `.function`: expected a string, but found a positive integer: `12`', 'invalid_document_edition_function_filter'));
  t.deepEqual((await post({ function: 'doc.x = 1', context: [1] })).body, errorBody('The context must be an object', 'invalid_document_edition_context'));
  t.deepEqual((await post({ function: 'doc.title = ' })).body, errorBody('Script is incomplete (line 1, position 13)', 'bad_request'));
  t.deepEqual((await post({ function: 'doc.a = 1 doc.b = 2' })).body,
    errorBody("Expecting ';' to terminate this statement (line 1, position 11)", 'bad_request'));
  // Deep nesting is refused by the parser (Rhai's expression depth limit), not by the stack.
  const deep = await post({ function: `doc.x = ${'('.repeat(5000)}1${')'.repeat(5000)};` });
  t.is(deep.status, 400);
  t.is(deep.body.code, 'bad_request');
  t.true(deep.body.message.startsWith('Expression exceeds maximum complexity'), deep.body.message);
  const deepBlocks = await post({ function: `${'{'.repeat(3000)}${'}'.repeat(3000)}` });
  t.true(deepBlocks.body.message.startsWith('Expression exceeds maximum complexity'), deepBlocks.body.message);
  const deepTemplates = await post({ function: `doc.x = ${'`${'.repeat(3000)}1${'}`'.repeat(3000)};` });
  t.true(deepTemplates.body.message.startsWith('Expression exceeds maximum complexity'), deepTemplates.body.message);
  const long = await post({ function: `doc.x = "${'a'.repeat(70_000)}";` });
  t.is(long.status, 400);
  t.is(long.body.code, 'invalid_document_edition_function_filter');
});

test('hostile scripts fail the task cleanly: endless loop, growing string, growing nesting, recursion', async (t) => {
  await seed('edit_hostile', BOOKS.slice(0, 2));
  const cases: [string, string][] = [
    ['loop {}', 'Too many operations (line 1, position 1)'],
    ['let i = 0; while true { i += 1; }', 'Too many operations'],
    ['let s = "ab"; loop { s += s; }', 'Length of string too large'],
    ['let a = [1]; loop { a = [a, a]; }', 'Too many operations'],
    ['let a = []; loop { a.push(1); }', 'Size of array/BLOB too large'],
    ['fn deeper(n) { deeper(n + 1) } deeper(0);', 'Stack overflow'],
    ['let x = 9223372036854775807; x += 1;', 'Addition overflow: 9223372036854775807 + 1'],
    ['doc.x = doc.nope.len();', 'Function not found: len (())'],
  ];
  for (const [source, reason] of cases) {
    const started = Date.now();
    const task = await edit('edit_hostile', { function: source });
    t.is(task.status, 'failed', source);
    t.is(task.error.code, 'edit_documents_by_function_error', source);
    t.true(task.error.message.includes(reason), `${source}: ${task.error.message}`);
    t.true(Date.now() - started < 30_000, source);
  }
  t.deepEqual(await documents('edit_hostile'), BOOKS.slice(0, 2));
});

test('a long edition leaves the server answering and is cancelable while it runs', async (t) => {
  const many = Array.from({ length: 200 }, (_, i) => ({ id: i, n: i }));
  await seed('edit_long', many);
  // ~250k operations a document (~30 ms here): several seconds in all, the cancelation comes long before the end.
  const response = await server.client.post('/indexes/edit_long/documents/edit',
    { function: 'let i = 0; while i < 30000 { i += 1; } doc.n = doc.n + i;' });
  t.is(response.status, 202);
  const uid = response.body.taskUid;
  let status = 'enqueued';
  for (let waited = 0; status === 'enqueued' && waited < 1000; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    status = (await server.client.get(`/tasks/${uid}`)).body.status;
  }
  t.is(status, 'processing');
  // Enqueues are answered between documents, not after the whole edition.
  const started = Date.now();
  const other = await server.client.post('/indexes/edit_other/documents', [{ id: 1 }]);
  t.is(other.status, 202, JSON.stringify(other.body));
  t.true(Date.now() - started < 2000, `enqueue answered in ${Date.now() - started} ms`);
  const cancel = await server.client.post(`/tasks/cancel?uids=${uid}`, undefined, { contentType: null });
  t.is(cancel.status, 200);
  const canceledAt = Date.now();
  const task = await server.client.waitForTask(uid, 60_000);
  t.is(task.status, 'canceled');
  // Stopped between two documents, not after the whole edition (several seconds).
  t.true(Date.now() - canceledAt < 2500, `canceled in ${Date.now() - canceledAt} ms`);
  t.deepEqual((await server.client.get('/indexes/edit_long/documents?limit=200')).body.results, many);
  t.is((await server.client.waitForTask(other.body.taskUid)).status, 'succeeded');
});

test('feature off: feature_not_enabled; key actions: only a `*` key may edit (documents.* grants add/get/delete)', async (t) => {
  await withTestServer({ masterKey: 'edit-master-key-0123456789', workers: 1, shardsPerIndex: 1 }, async (other) => {
    const master = other.client.withKey('edit-master-key-0123456789');
    const off = await master.post('/indexes/movies/documents/edit', { function: 'doc.x = 1' });
    t.deepEqual(off.body, errorBody('Using the documents edit route requires enabling the `edit documents by function` experimental feature. See https://github.com/orgs/meilisearch/discussions/762',
      'feature_not_enabled'));
    t.is(off.status, 400);
    t.is((await master.patch('/experimental-features', { editDocumentsByFunction: true })).status, 200);
    const keyFor = async (actions: string[]) => (await master.post('/keys', { actions, indexes: ['*'], expiresAt: null })).body.key as string;
    const documentsAll = await keyFor(['documents.*']);
    const all = await keyFor(['*']);
    const denied = await other.client.withKey(documentsAll).post('/indexes/movies/documents/edit', { function: 'doc.x = 1' });
    t.is(denied.status, 403);
    t.is(denied.body.code, 'invalid_api_key');
    const missing = await new Client(other.client.baseUrl).post('/indexes/movies/documents/edit', { function: 'doc.x = 1' });
    t.is(missing.body.code, 'missing_authorization_header');
    const allowed = await other.client.withKey(all).post('/indexes/movies/documents/edit', { function: 'doc.x = 1' });
    t.is(allowed.status, 202);
    t.is((await other.client.withKey(documentsAll).post('/indexes/movies/documents', [{ id: 1 }])).status, 202);
  });
});
