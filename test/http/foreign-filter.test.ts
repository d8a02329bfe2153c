// The `_foreign(field, filter)` filter (Meilisearch v1.42, foreignKeys experimental feature): the
// documents whose `field` (a foreignKeys entry) holds the id of a document of the foreign index that
// matches `filter`. Meilisearch evaluates the inner filter on the foreign index, refuses more than 100
// foreign documents per foreign index, and searches the rewritten filter `"field" IN [ids]` (its
// serialization, which the errors on it quote). Facts from crates/index-scheduler/src/filter.rs,
// crates/filter-parser and crates/meilisearch/tests/search/document_join.rs.
import test from 'ava';
import { errorBody, withTestServer, type Client } from './harness.js';

const AUTHORS = [
  { id: 'a1', name: 'Alice', birthday: '1990-01-01', popularity: 2.0 },
  { id: 'a2', name: 'Bob', birthday: '1958-06-15', popularity: 4.5 },
  { id: 'a3', name: 'Charlie', birthday: '1940-05-05', popularity: 4.8 },
  { id: 'a4', name: 'Diana', birthday: '1985-03-20', popularity: 3.2 },
  { id: 'a5', name: 'Ethan', birthday: '1972-11-30', popularity: 3.9 },
  { id: 'a6', name: 'Fiona', birthday: '1988-07-14', popularity: 2.8 },
  { id: 'a7', name: 'George', birthday: '1961-04-02', popularity: 3.0 },
  { id: 'a8', name: 'Hannah', birthday: '1995-09-09', popularity: 4.1 },
  { id: 'a9', name: 'Isaac', birthday: '1977-12-25', popularity: 3.6 },
  { id: 'a10', name: 'Julia', birthday: '1982-06-01', popularity: 4.0 },
  { id: 'a11', name: 'Kevin', birthday: '1999-02-18', popularity: 2.5 },
  { id: 'a12', name: 'Liam', birthday: '2001-10-10', popularity: 3.1 },
  { id: 'a13', name: 'Mia', birthday: '2003-08-08', popularity: 2.2 },
];

const BOOKS = [
  { id: 'b1', title: 'Rust in action', author: 'a1', related_authors: ['a2', 'a3'], genres: ['tech', 'programming'] },
  { id: 'b2', title: 'Captain Marvel story', author: 'a2', related_authors: ['a3', 'a4'], genres: ['action', 'fiction'] },
  { id: 'b3', title: 'The Great Gatsby', author: 'a3', related_authors: ['a4', 'a5'], genres: ['action', 'classic'] },
  { id: 'b4', title: 'To Kill a Mockingbird', author: 'a4', related_authors: ['a5', 'a6'], genres: ['classic', 'drama'] },
  { id: 'b5', title: '1984', author: 'a5', related_authors: ['a6', 'a7'], genres: ['dystopia', 'fiction'] },
  { id: 'b6', title: 'The Catcher in the Rye', author: 'a6', related_authors: ['a7', 'a8'], genres: ['action', 'fiction'] },
  { id: 'b7', title: 'The Lord of the Rings', author: 'a7', related_authors: ['a8', 'a9'], genres: ['fantasy', 'adventure'] },
  { id: 'b8', title: 'The Hobbit', author: 'a8', related_authors: ['a9', 'a10'], genres: ['fantasy'] },
  { id: 'b9', title: 'The Little Prince', author: 'a9', related_authors: ['a10', 'a11'], genres: ['fiction'] },
  { id: 'b10', title: 'The Alchemist', author: 'a10', related_authors: ['a11', 'a12'], genres: ['fiction'] },
];

const FOREIGN_KEYS = [
  { foreignIndexUid: 'authors', fieldName: 'author' },
  { foreignIndexUid: 'authors', fieldName: 'related_authors' },
];

const PROFILE = 'genres = action AND _foreign(author, birthday STARTS WITH "1958-" AND popularity >= 3.5)';
const FEATURE_OFF = 'using a foreign filter requires enabling the `foreign_keys` experimental feature. See https://github.com/orgs/meilisearch/discussions/873';

async function features(client: Client, values: Record<string, boolean>): Promise<void> {
  const patched = await client.patch('/experimental-features', values);
  if (patched.status !== 200) throw new Error(patched.text);
}

/** authors (filterable id, birthday, popularity) and books (foreign keys author, related_authors). */
async function setUp(client: Client, authorsFilterable = ['id', 'birthday', 'popularity']): Promise<void> {
  await features(client, { foreignKeys: true });
  await client.createIndex('authors', 'id');
  await client.addDocuments('authors', AUTHORS);
  await client.run('PATCH', '/indexes/authors/settings', { body: { filterableAttributes: authorsFilterable } });
  await client.createIndex('books', 'id');
  await client.run('PATCH', '/indexes/books/settings', {
    body: { foreignKeys: FOREIGN_KEYS, filterableAttributes: ['id', 'genres', 'author', 'related_authors', 'title'] },
  });
  await client.addDocuments('books', BOOKS);
}

const ids = (hits: { id: string }[]) => hits.map((hit) => hit.id);

test('_foreign: search, multi-search and federated search keep the documents whose foreign document matches (hydrated), NOT and arrays included', (t) =>
  withTestServer({ workers: 2, shardsPerIndex: 2 }, async ({ client }) => {
    await setUp(client);
    const retrieve = ['title', 'author', 'related_authors', 'genres'];
    const search = await client.post('/indexes/books/search', { filter: PROFILE, attributesToRetrieve: retrieve });
    t.is(search.status, 200, search.text);
    t.deepEqual(search.body.hits, [{
      title: 'Captain Marvel story',
      author: AUTHORS[1],
      related_authors: [AUTHORS[2], AUTHORS[3]],
      genres: ['action', 'fiction'],
    }]);
    t.is(search.body.estimatedTotalHits, 1);

    const multi = await client.post('/multi-search', { queries: [{ indexUid: 'books', filter: PROFILE, attributesToRetrieve: ['id'] }] });
    t.is(multi.status, 200, multi.text);
    t.deepEqual(ids(multi.body.results[0].hits), ['b2']);

    const federated = await client.post('/multi-search', {
      federation: {},
      queries: [
        { indexUid: 'books', filter: PROFILE, attributesToRetrieve: ['id'] },
        { indexUid: 'books', filter: 'genres = classic AND (_foreign(author, birthday STARTS WITH "198") OR _foreign(related_authors, birthday STARTS WITH "198"))', attributesToRetrieve: ['id'] },
      ],
    });
    t.is(federated.status, 200, federated.text);
    t.deepEqual(ids(federated.body.hits), ['b2', 'b3', 'b4']);

    // An array field matches when any of its ids names a matching document; NOT, the array form, GET.
    const related = await client.post('/indexes/books/search', { filter: '_foreign(related_authors, name = Charlie)', attributesToRetrieve: ['id'] });
    t.is(related.status, 400, 'name is not filterable on authors');
    await client.run('PATCH', '/indexes/authors/settings', { body: { filterableAttributes: ['id', 'birthday', 'popularity', 'name'] } });
    const charlie = await client.post('/indexes/books/search', { filter: '_foreign(related_authors, name = Charlie)', attributesToRetrieve: ['id'] });
    t.deepEqual(ids(charlie.body.hits), ['b1', 'b2']);
    const not = await client.post('/indexes/books/search', { filter: ['genres = fiction', 'NOT _foreign(author, popularity >= 3.5)'], attributesToRetrieve: ['id'] });
    t.deepEqual(ids(not.body.hits), ['b6']);
    const get = await client.get(`/indexes/books/search?attributesToRetrieve=id&filter=${encodeURIComponent('_foreign(author, id IN [a9, a10])')}`);
    t.deepEqual(ids(get.body.hits).sort(), ['b10', 'b9']);
    const none = await client.post('/indexes/books/search', { filter: '_foreign(author, popularity > 10)' });
    t.is(none.status, 200);
    t.deepEqual(none.body.hits, [], 'no foreign match: `author IN []`, nothing');
    const spaced = await client.post('/indexes/books/search', { filter: '  _foreign( author ,popularity>4.6 ) ', attributesToRetrieve: ['id'] });
    t.deepEqual(ids(spaced.body.hits), ['b3']);
  }));

test('_foreign: facet search and the documents routes (fetch, GET with filter, fetch by ids) accept it; delete by filter and edit refuse it', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 2 }, async ({ client }) => {
    await setUp(client);
    const facet = await client.post('/indexes/books/facet-search', { facetName: 'genres', filter: '_foreign(author, popularity >= 4.5)' });
    t.is(facet.status, 200, facet.text);
    t.deepEqual(facet.body.facetHits, [{ value: 'action', count: 2 }, { value: 'classic', count: 1 }, { value: 'fiction', count: 1 }]);

    const fetch = await client.post('/indexes/books/documents/fetch', { filter: '_foreign(author, popularity >= 4.5)', fields: ['id'] });
    t.is(fetch.status, 200, fetch.text);
    t.deepEqual(fetch.body.results, [{ id: 'b2' }, { id: 'b3' }]);
    t.is(fetch.body.total, 2);
    const get = await client.get(`/indexes/books/documents?fields=id&filter=${encodeURIComponent('_foreign(author, popularity >= 4.5)')}`);
    t.deepEqual(get.body.results, [{ id: 'b2' }, { id: 'b3' }]);
    const byIds = await client.post('/indexes/books/documents/fetch', { ids: ['b1', 'b3'], filter: '_foreign(author, popularity >= 4.5)', fields: ['id'] });
    t.deepEqual(byIds.body.results, [{ id: 'b3' }]);
    t.is(byIds.body.results[0].author, undefined);
    const notKey = await client.post('/indexes/books/documents/fetch', { filter: '_foreign(title, id = a1)' });
    t.deepEqual(notKey.body, errorBody('Index `books`: Field `title` is not a foreign key', 'invalid_search_filter'), 'Meilisearch keeps the search code here');

    const refused = errorBody('Filter condition `_foreign` is not supported for this endpoint.\n10:16 _foreign(author, id = a1)', 'invalid_document_filter');
    const del = await client.post('/indexes/books/documents/delete', { filter: '_foreign(author, id = a1)' });
    t.is(del.status, 400);
    t.deepEqual(del.body, refused);
    await features(client, { editDocumentsByFunction: true });
    const edit = await client.post('/indexes/books/documents/edit', { function: 'doc.x = 1', filter: '_foreign(author, id = a1)' });
    t.is(edit.status, 400);
    t.deepEqual(edit.body, errorBody(`Index \`books\`: ${refused.message}`, 'invalid_document_filter'));

    await features(client, { foreignKeys: false });
    const delOff = await client.post('/indexes/books/documents/delete', { filter: '_foreign(author, id = a1)' });
    t.deepEqual(delOff.body, errorBody(`${FEATURE_OFF}\n10:16 _foreign(author, id = a1)`, 'feature_not_enabled'));
    const editOff = await client.post('/indexes/books/documents/edit', { function: 'doc.x = 1', filter: '_foreign(author, id = a1)' });
    t.deepEqual(editOff.body, errorBody(`Index \`books\`: ${FEATURE_OFF}\n10:16 _foreign(author, id = a1)`, 'feature_not_enabled'));
    const fetchOff = await client.post('/indexes/books/documents/fetch', { filter: '_foreign(author, id = a1)' });
    t.deepEqual(fetchOff.body, errorBody(`${FEATURE_OFF}\n10:16 _foreign(author, id = a1)`, 'feature_not_enabled'));
    const facetOff = await client.post('/indexes/books/facet-search', { facetName: 'genres', filter: '_foreign(author, id = a1)' });
    t.deepEqual(facetOff.body, errorBody(`${FEATURE_OFF}\n10:16 _foreign(author, id = a1)`, 'feature_not_enabled'));
    t.is((await client.get('/tasks?types=documentDeletion,documentEdition')).body.total, 0, 'nothing enqueued');
  }));

test('_foreign: Meilisearch\'s errors (feature off, not a foreign key, nested, inner filter on the foreign index, the rewritten filter, a missing foreign index)', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 2 }, async ({ client }) => {
    await setUp(client, ['id']);
    const search = (filter: unknown) => client.post('/indexes/books/search', { filter });
    const federated = (filter: unknown) => client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', filter }] });
    const multi = (filter: unknown) => client.post('/multi-search', { queries: [{ indexUid: 'books', filter }] });

    // not a foreign key: the index named, no position, the search code; federated: not inside a query
    const notKey = errorBody('Index `books`: Field `title` is not a foreign key', 'invalid_search_filter');
    t.deepEqual((await search('_foreign(title, id = a1)')).body, notKey);
    t.deepEqual((await federated('_foreign(title, id = a1)')).body, notKey);
    t.deepEqual((await multi('_foreign(title, id = a1)')).body, errorBody(`Inside \`.queries[0]\`: ${notKey.message}`, 'invalid_search_filter'));

    const nested = errorBody('Index `books`: Nested foreign filters are not supported', 'invalid_search_filter');
    t.deepEqual((await search('_foreign(author, id = a1 AND _foreign(related_authors, id = a2))')).body, nested);
    t.deepEqual((await federated('_foreign(author, id = a1 AND NOT _foreign(related_authors, id = a2))')).body, nested);

    // the inner filter is checked against the foreign index: its code is invalid_document_filter, its
    // position counted in the whole filter, the text shown from `_foreign` on
    const inner = errorBody('Index `authors`: Attribute `birthday` is not filterable. Available filterable attribute patterns are: `id`.\n18:26 _foreign(author, birthday = "1958-06-15")', 'invalid_document_filter');
    t.deepEqual((await search('_foreign(author, birthday = "1958-06-15")')).body, inner);
    t.deepEqual((await federated('_foreign(author, birthday = "1958-06-15")')).body, inner);
    const innerLater = await search('genres = action AND _foreign(author, birthday = "1958-06-15") AND id = b1');
    t.deepEqual(innerLater.body, errorBody('Index `authors`: Attribute `birthday` is not filterable. Available filterable attribute patterns are: `id`.\n38:46 _foreign(author, birthday = "1958-06-15") AND id = b1', 'invalid_document_filter'));

    // the rewritten filter `"author" IN [...]` is what the source index checks
    await client.run('PATCH', '/indexes/books/settings', { body: { filterableAttributes: ['genres'] } });
    const rewritten = 'Index `books`: Attribute `author` is not filterable. Available filterable attribute patterns are: `genres`.\n2:8 "author" IN ["a1"]';
    t.deepEqual((await search('_foreign(author, id = a1)')).body, errorBody(rewritten, 'invalid_search_filter'));
    t.deepEqual((await federated('_foreign(author, id = a1)')).body, errorBody(`Inside \`.queries[0]\`: ${rewritten}`, 'invalid_search_filter'));
    // Every error found in the rewritten filter quotes the serialization, columns into it (Meilisearch v1.50's
    // document_join.rs and filters.rs snapshots: `2:8 "author" IN ["a1"]`, `2:8 "doggos" EXISTS`), not the filter as sent.
    await client.run('PATCH', '/indexes/books/settings', { body: { filterableAttributes: ['genres', 'author'] } });
    const serialized = '("genres" = "action") AND ("author" IN ["a1"]) AND ("title" = "dune")';
    t.deepEqual((await search('genres = action AND _foreign(author, id = a1) AND title = dune')).body,
      errorBody(`Index \`books\`: Attribute \`title\` is not filterable. Available filterable attribute patterns are: \`author\`, \`genres\`.\n54:59 ${serialized}`, 'invalid_search_filter'));
    await client.run('PATCH', '/indexes/books/settings', { body: { filterableAttributes: ['id', 'genres', 'author', 'related_authors', 'title'] } });

    // syntax: once `_foreign` is read, the rest must be `(field, filter)`
    const syntax = (found: string, columns: string, shown: string) =>
      errorBody(`Was expecting a field name and an condition inside \`_foreign(..)\` filter but instead found \`${found}\`.\n${columns} ${shown}`, 'invalid_search_filter');
    t.deepEqual((await search('_foreign(author)')).body, syntax(')', '16:17', '_foreign(author)'));
    t.deepEqual((await search('id = b1 AND _foreign (author, id = a1)')).body, syntax(' (author, id = a1)', '21:39', '_foreign (author, id = a1)'));
    t.deepEqual((await search('_foreign(author, id = a1 x)')).body, syntax('x)', '26:28', '_foreign(author, id = a1 x)'));
    t.deepEqual((await search('_foreign(author, )')).body, syntax(')', '18:19', '_foreign(author, )'));
    t.deepEqual((await search('_foreign')).body, syntax('', '9:9', '_foreign'));
    const asField = await search('_foreign = 1');
    t.is(asField.body.message.split('\n')[0], 'Index `books`: Attribute `_foreign` is not filterable. Available filterable attribute patterns are: `author`, `genres`, `id`, `related_authors`, `title`.', 'a field named `_foreign` is an ordinary condition');

    // a foreign index that does not exist
    await client.run('PATCH', '/indexes/books/settings', { body: { foreignKeys: [...FOREIGN_KEYS, { foreignIndexUid: 'ghosts', fieldName: 'title' }] } });
    const ghost = await search('_foreign(title, id = x)');
    t.is(ghost.status, 404);
    t.deepEqual(ghost.body, errorBody('Index `ghosts` not found.', 'index_not_found'));

    // feature off: the first error, at the foreign field, the text shown from `_foreign` on
    await features(client, { foreignKeys: false });
    const off = errorBody(`${FEATURE_OFF}\n30:36 ${PROFILE.slice(20)}`, 'feature_not_enabled');
    t.deepEqual((await search(PROFILE)).body, off);
    t.deepEqual((await multi(PROFILE)).body, errorBody(`Inside \`.queries[0]\`: ${off.message}`, 'feature_not_enabled'));
    t.deepEqual((await federated(PROFILE)).body, errorBody(`Inside \`.queries[0]\`: ${off.message}`, 'feature_not_enabled'));
  }));

test('_foreign is bounded: more than 100 foreign documents per foreign index is refused (as Meilisearch), 100 pass; more than 100 `_foreign` conditions are refused', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 2 }, async ({ client }) => {
    await features(client, { foreignKeys: true });
    await client.createIndex('tags', 'id');
    await client.addDocuments('tags', Array.from({ length: 300 }, (_, i) => ({ id: i, rank: i, group: i % 10 })));
    // (a distinct attribute of the foreign index does not apply: 10 groups, yet 300 documents match)
    await client.run('PATCH', '/indexes/tags/settings', { body: { filterableAttributes: ['rank', 'group'], distinctAttribute: 'group' } });
    await client.createIndex('posts', 'id');
    await client.addDocuments('posts', Array.from({ length: 300 }, (_, i) => ({ id: i, tag: i, tags: [i, (i + 1) % 300] })));
    await client.run('PATCH', '/indexes/posts/settings', {
      body: { filterableAttributes: ['tag', 'tags'], foreignKeys: [{ foreignIndexUid: 'tags', fieldName: 'tag' }, { foreignIndexUid: 'tags', fieldName: 'tags' }] },
    });
    const tooMany = errorBody('Index `tags`: Foreign filter is retrieving too many documents, foreign filters can\'t retrieve more than 100 documents per index', 'invalid_search_filter');
    const started = Date.now();
    const all = await client.post('/indexes/posts/search', { filter: '_foreign(tag, rank >= 0)' });
    t.is(all.status, 400);
    t.deepEqual(all.body, tooMany);
    t.true(Date.now() - started < 5000);
    const hundred = await client.post('/indexes/posts/search', { filter: '_foreign(tag, rank < 100)', limit: 0 });
    t.is(hundred.status, 200, hundred.text);
    t.is(hundred.body.estimatedTotalHits, 100);
    // two conditions of 60 each: 120 foreign documents on one index in all
    const union = await client.post('/indexes/posts/search', { filter: '_foreign(tag, rank < 60) OR _foreign(tags, rank 200 TO 259)' });
    t.deepEqual(union.body, tooMany);
    const overlapping = await client.post('/indexes/posts/search', { filter: '_foreign(tag, rank < 60) OR _foreign(tags, rank 20 TO 79)', limit: 0 });
    t.is(overlapping.status, 200, '80 distinct foreign documents');
    t.is(overlapping.body.estimatedTotalHits, 80);

    const conditions = Array.from({ length: 101 }, (_, i) => `_foreign(tag, rank = ${i})`).join(' OR ');
    const many = await client.post('/indexes/posts/search', { filter: conditions });
    t.is(many.status, 400);
    t.deepEqual(many.body, errorBody('Too many `_foreign` conditions: the filter has 101, more than the 100 this server accepts.', 'invalid_search_filter'));
    const hundredConditions = Array.from({ length: 100 }, (_, i) => `_foreign(tag, rank = ${i})`).join(' OR ');
    const fine = await client.post('/indexes/posts/search', { filter: hundredConditions, limit: 0 });
    t.is(fine.status, 200, fine.text);
    t.is(fine.body.estimatedTotalHits, 100);
  }));
