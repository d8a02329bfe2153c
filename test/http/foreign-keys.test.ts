// The experimental `foreignKeys` setting (Meilisearch v1.39+): GET / PUT / DELETE
// /indexes/{uid}/settings/foreign-keys and `foreignKeys` in PATCH /settings, shape
// `[{foreignIndexUid, fieldName}]` checked with invalid_settings_foreign_keys, refused with
// feature_not_enabled while the foreignKeys feature is off (a reset is always allowed), shown in
// GET /settings only while the feature is on, kept across a restart.
import test from 'ava';
import { join } from 'node:path';
import { errorBody, makeTempDir, withTempDir, withTestServer, type Client } from './harness.js';

const KEYS = [
  { foreignIndexUid: 'authors', fieldName: 'author' },
  { foreignIndexUid: 'authors', fieldName: 'related_authors' },
];

const NOT_ENABLED = errorBody('setting `foreignKeys` in the index settings requires enabling the `foreign_keys` experimental feature. See https://github.com/orgs/meilisearch/discussions/873', 'feature_not_enabled');

async function enableForeignKeys(client: Client, on = true): Promise<void> {
  const patched = await client.patch('/experimental-features', { foreignKeys: on });
  if (patched.status !== 200) throw new Error(patched.text);
}

test('foreignKeys: default [], PUT stores it (task details echo it), DELETE and PUT null reset it; GET /settings shows it only with the feature on; kept across a restart', (t) =>
  withTempDir(async (dbPath) => {
    await withTestServer({ dbPath, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
      await client.createIndex('books');
      t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, []);
      t.false('foreignKeys' in (await client.get('/indexes/books/settings')).body, 'hidden while the feature is off');

      await enableForeignKeys(client);
      const settings = (await client.get('/indexes/books/settings')).body;
      t.deepEqual(settings.foreignKeys, []);
      const order = Object.keys(settings);
      t.is(order.indexOf('foreignKeys'), order.indexOf('sortableAttributes') + 1, 'Meilisearch key order: after sortableAttributes');

      const task = await client.run('PUT', '/indexes/books/settings/foreign-keys', { body: KEYS });
      t.is(task.type, 'settingsUpdate');
      t.deepEqual(task.details, { foreignKeys: KEYS });
      t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, KEYS);
      t.deepEqual((await client.get('/indexes/books/settings')).body.foreignKeys, KEYS);

      await client.run('PUT', '/indexes/books/settings/foreign-keys', { body: null });
      t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, []);

      await client.run('PATCH', '/indexes/books/settings', { body: { foreignKeys: KEYS } });
      t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, KEYS);
    });
    await withTestServer({ dbPath, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
      t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, KEYS, 'kept across a restart');
      const reset = await client.run('DELETE', '/indexes/books/settings/foreign-keys');
      t.deepEqual(reset.details, { foreignKeys: null });
      t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, []);
    });
  }));

test('foreignKeys: setting it without the feature is feature_not_enabled (PUT and PATCH /settings); a reset is accepted', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    await client.createIndex('books');
    const put = await client.put('/indexes/books/settings/foreign-keys', KEYS);
    t.is(put.status, 400);
    t.deepEqual(put.body, NOT_ENABLED);
    const patch = await client.patch('/indexes/books/settings', { foreignKeys: [] });
    t.is(patch.status, 400);
    t.deepEqual(patch.body, NOT_ENABLED);
    await client.run('PUT', '/indexes/books/settings/foreign-keys', { body: null });
    await client.run('DELETE', '/indexes/books/settings/foreign-keys');
    await client.run('PATCH', '/indexes/books/settings', { body: { foreignKeys: null } });
    await client.run('DELETE', '/indexes/books/settings');
    // turned off again: refused again
    await enableForeignKeys(client);
    await client.run('PUT', '/indexes/books/settings/foreign-keys', { body: KEYS });
    await enableForeignKeys(client, false);
    t.deepEqual((await client.put('/indexes/books/settings/foreign-keys', KEYS)).body, NOT_ENABLED);
    t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, KEYS, 'the sub-route shows the stored value whatever the feature');
  }));

test('foreignKeys: a bad shape is invalid_settings_foreign_keys with deserr wording, on the sub-route and in PATCH /settings', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    await enableForeignKeys(client);
    const code = 'invalid_settings_foreign_keys';
    const cases: [unknown, string][] = [
      [{ fieldName: 'a' }, 'Invalid value type: expected an array, but found an object: `{"fieldName":"a"}`'],
      [['a'], 'Invalid value type at `[0]`: expected an object, but found a string: `"a"`'],
      [[{ foreignIndexUid: 'authors' }], 'Missing field `fieldName` inside `[0]`'],
      [[{ fieldName: 'author' }], 'Missing field `foreignIndexUid` inside `[0]`'],
      [[{ foreignIndexUid: 'authors', fieldName: 3 }], 'Invalid value type at `[0].fieldName`: expected a string, but found a positive integer: `3`'],
      [[{ foreignIndexUid: null, fieldName: 'a' }], 'Invalid value type at `[0].foreignIndexUid`: expected a string, but found null: `null`'],
      [[{ foreignIndexUid: 'authors', fieldName: 'a', extra: 1 }], 'Unknown field `extra` inside `[0]`: expected one of `foreignIndexUid`, `fieldName`'],
    ];
    for (const [body, message] of cases) {
      const response = await client.put('/indexes/books/settings/foreign-keys', body);
      t.is(response.status, 400, JSON.stringify(body));
      t.deepEqual(response.body, errorBody(message, code));
    }
    const patched = await client.patch('/indexes/books/settings', { foreignKeys: [{ foreignIndexUid: 'authors' }] });
    t.is(patched.status, 400);
    t.deepEqual(patched.body, errorBody('Missing field `fieldName` inside `.foreignKeys[0]`', code));
    // bounded: more entries than the server accepts
    const many = Array.from({ length: 10_001 }, (_, i) => ({ foreignIndexUid: 'a', fieldName: `f${i}` }));
    const tooMany = await client.put('/indexes/books/settings/foreign-keys', many);
    t.is(tooMany.status, 400);
    t.is(tooMany.body.code, code);
    t.is((await client.get('/indexes/books')).status, 404, 'nothing enqueued');
  }));

test('hydration: search hits get the foreign documents (displayedAttributes of the foreign index, missing id -> {}, non-ids kept), _formatted too; not the documents routes; not with the feature off; a missing foreign index is index_not_found', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 2 }, async ({ client }) => {
    await enableForeignKeys(client);
    // (raw text: 12345678901234567890 must reach the server as written)
    await client.run('POST', '/indexes/authors/documents', { raw: '[{"id":1,"name":"Ursula","born":1929,"_vectors":{"manual":[0.1,0.2]}},'
      + '{"id":2,"name":"Iain","born":1954,"royalties":12345678901234567890},{"id":"three","name":"Octavia","born":1947}]' });
    await client.run('PUT', '/indexes/authors/settings/displayed-attributes', { body: ['id', 'name'] });
    await client.addDocuments('books', [
      { id: 10, title: 'Dispossessed', author: 1, related_authors: [2, 'three', 99, 1.5, true], info: { editor: 2 } },
      { id: 11, title: 'Kindred', author: 'three', related_authors: [], info: [{ editor: 'nobody' }] },
    ]);
    await client.run('PATCH', '/indexes/books/settings', {
      body: { foreignKeys: [
        { foreignIndexUid: 'authors', fieldName: 'author' },
        { foreignIndexUid: 'authors', fieldName: 'related_authors' },
        { foreignIndexUid: 'authors', fieldName: 'info.editor' },
      ] },
    });
    const ursula = { id: 1, name: 'Ursula' };
    const iain = { id: 2, name: 'Iain' };
    const octavia = { id: 'three', name: 'Octavia' };
    const search = await client.post('/indexes/books/search', { q: 'dispossessed', attributesToHighlight: ['title'] });
    t.is(search.status, 200, search.text);
    const [hit] = search.body.hits;
    t.deepEqual(hit.author, ursula);
    t.deepEqual(hit.related_authors, [iain, octavia, {}, 1.5, true]);
    t.deepEqual(hit.info, { editor: iain });
    t.deepEqual(hit._formatted.author, { id: 1, name: 'Ursula' }, '_formatted: its id text "1" names the same document');
    t.is(hit._formatted.title, '<em>Dispossessed</em>');

    const other = await client.post('/indexes/books/search', { q: 'kindred' });
    t.deepEqual(other.body.hits[0].author, octavia);
    t.deepEqual(other.body.hits[0].info, [{ editor: {} }], 'through arrays of objects; an unknown id is {}');

    // multi-search hydrates too
    const multi = await client.post('/multi-search', { queries: [{ indexUid: 'books', q: 'kindred' }] });
    t.deepEqual(multi.body.results[0].hits[0].author, octavia);

    // the documents routes keep the ids
    t.is((await client.get('/indexes/books/documents/10')).body.author, 1);
    t.is((await client.post('/indexes/books/documents/fetch', {})).body.results[0].author, 1);

    // the foreign index's whole document when every attribute is displayed, exact numbers kept, no _vectors
    await client.run('DELETE', '/indexes/authors/settings/displayed-attributes');
    const whole = await client.post('/indexes/books/search', { q: 'dispossessed' });
    t.deepEqual(whole.body.hits[0].author, { id: 1, name: 'Ursula', born: 1929 });
    t.true(whole.text.includes('"royalties":12345678901234567890'), whole.text);

    await enableForeignKeys(client, false);
    t.is((await client.post('/indexes/books/search', { q: 'dispossessed' })).body.hits[0].author, 1, 'feature off: no hydration');
    await enableForeignKeys(client);

    await client.run('DELETE', '/indexes/authors');
    const missing = await client.post('/indexes/books/search', { q: 'dispossessed' });
    t.is(missing.status, 404);
    t.deepEqual(missing.body, errorBody('Index `authors` not found.', 'index_not_found'));
  }));

test('hydration is bounded: at most 1,000 distinct foreign documents are read per answer, the ids past it stay ids', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    await enableForeignKeys(client);
    await client.addDocuments('tags', Array.from({ length: 1100 }, (_, i) => ({ id: i, label: `t${i}` })));
    await client.addDocuments('posts', [{ id: 1, title: 'many', tags: Array.from({ length: 1100 }, (_, i) => i) }]);
    await client.run('PUT', '/indexes/posts/settings/foreign-keys', { body: [{ foreignIndexUid: 'tags', fieldName: 'tags' }] });
    const started = Date.now();
    const search = await client.post('/indexes/posts/search', { q: 'many' });
    t.is(search.status, 200);
    const tags = search.body.hits[0].tags as unknown[];
    t.is(tags.length, 1100);
    t.deepEqual(tags[0], { id: 0, label: 't0' });
    t.deepEqual(tags[999], { id: 999, label: 't999' });
    t.is(tags[1000], 1000);
    t.is(tags[1099], 1099);
    t.true(Date.now() - started < 5000);
  }));

test('foreignKeys travel through a dump: written in its settings, restored by --import-dump (with the feature flag)', async (t) => {
  const dumpDir = makeTempDir('skein-fk-dumps-');
  const file = await withTestServer({ dumpDir, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    await enableForeignKeys(client);
    await client.createIndex('authors');
    await client.run('PUT', '/indexes/books/settings/foreign-keys', { body: KEYS });
    const task = await client.waitForTask(await client.enqueue('POST', '/dumps'), 120_000);
    t.is(task.status, 'succeeded');
    return join(dumpDir, `${task.details.dumpUid}.dump`);
  });
  await withTestServer({ importDump: file, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    t.true((await client.get('/experimental-features')).body.foreignKeys);
    t.deepEqual((await client.get('/indexes/books/settings/foreign-keys')).body, KEYS);
    t.deepEqual((await client.get('/indexes/books/settings')).body.foreignKeys, KEYS);
  });
});

test('hydration in a federated search: after the merge, only the ids the page registered (an array stops at its first non-id, nested objects register none, as Meilisearch\'s FederatedHydrationFormatter); an unknown id is {}; federation.distinct reads the ids', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 2 }, async ({ client }) => {
    await enableForeignKeys(client);
    await client.addDocuments('authors', [{ id: 'a1', name: 'Ursula' }, { id: 'a2', name: 'Iain' }, { id: 'a3', name: 'Octavia' }]);
    await client.addDocuments('books', [
      { id: 1, title: 'first', author: 'a1', related: [1.5, 'a2'], info: { editor: 'a3' } },
      { id: 2, title: 'second', author: 'zz', related: ['a1', true, 'a3'], info: 'a3' },
      { id: 3, title: 'third', author: 'a1', related: [], info: null },
    ]);
    await client.run('PATCH', '/indexes/books/settings', {
      body: {
        filterableAttributes: ['author'],
        foreignKeys: [
          { foreignIndexUid: 'authors', fieldName: 'author' },
          { foreignIndexUid: 'authors', fieldName: 'related' },
          { foreignIndexUid: 'authors', fieldName: 'info' },
        ],
      },
    });
    const ursula = { id: 'a1', name: 'Ursula' };
    const octavia = { id: 'a3', name: 'Octavia' };
    // one hit alone: `related` registers nothing after 1.5, `info.editor` sits under an object: both stay ids
    const alone = await client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', q: 'first' }] });
    t.is(alone.status, 200, alone.text);
    t.deepEqual(alone.body.hits.map(({ _federation, ...hit }: any) => hit), [{ id: 1, title: 'first', author: ursula, related: [1.5, 'a2'], info: { editor: 'a3' } }]);
    const single = await client.post('/indexes/books/search', { q: 'first' });
    t.deepEqual(single.body.hits[0].related, [1.5, { id: 'a2', name: 'Iain' }], 'a plain search hydrates every id');
    t.deepEqual(single.body.hits[0].info, { editor: octavia });

    // with the second hit on the page, a3 is registered (its `info`), so the first hit's info.editor is hydrated too
    const both = await client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', q: 'first' }, { indexUid: 'books', q: 'second' }] });
    const byId = new Map(both.body.hits.map((hit: any) => [hit.id, hit]));
    t.deepEqual((byId.get(1) as any).info, { editor: octavia });
    t.deepEqual((byId.get(1) as any).related, [1.5, 'a2']);
    t.deepEqual((byId.get(2) as any).author, {}, 'an unknown id is {} in a federated search too');
    t.deepEqual((byId.get(2) as any).related, [ursula, true, octavia], 'registration stops at `true`, but a3 is registered by `info`');
    t.deepEqual((byId.get(1) as any).author, ursula);

    // federation.distinct compares the stored ids, not the hydrated documents
    const distinct = await client.post('/multi-search', { federation: { distinct: 'author' }, queries: [{ indexUid: 'books', q: '' }] });
    t.is(distinct.status, 200, distinct.text);
    t.deepEqual(distinct.body.hits.map((hit: any) => hit.id), [1, 2]);
    t.deepEqual(distinct.body.hits[0].author, ursula);
  }));
