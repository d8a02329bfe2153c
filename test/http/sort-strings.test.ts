// Sorting by a string field as milli does (search/new/sort.rs over facet_id_string_docids): by the
// normalized value (trimmed, compatibility-decomposed, lowercased) in code point order (its UTF-8
// bytes), up to MAX_FACET_VALUE_LENGTH (468 bytes); numbers before strings and documents without a
// value last, in both directions. Shards key strings on their first 72 UTF-16 units (sort-key.ts):
// values sharing a longer prefix than the 24 units once keyed must still come in order, on every shard
// count, for the search and the documents routes.
import test from 'ava';
import { withTestServer } from './harness.js';

const PREFIX = 'the chronicles of the northern kingdom volume '; // 46 characters

test('string sort: values sharing a prefix longer than 24 characters keep their order across shards, asc and desc; code point order past U+FFFF; numbers first, missing last', (t) =>
  withTestServer({ workers: 2, shardsPerIndex: 3 }, async ({ client }) => {
    const suffixes = ['zeta', 'alpha', 'omega', 'delta', 'kappa', 'beta', 'sigma', 'gamma', 'theta', 'eta', 'iota', 'mu'];
    // Sent in the reverse of the title order, so the internal id order (the tie order) never gives the answer.
    const titles = suffixes.map((suffix) => `${PREFIX}${suffix}`);
    const sorted = [...titles].sort();
    const documents = sorted.map((title, k) => ({ id: 100 - k, title: k % 2 === 0 ? title.toUpperCase() : title })).reverse();
    documents.push({ id: 1, title: '\u{1F600} smile' }, { id: 2, title: '\uFFFD replacement' }, { id: 3, title: 42 as unknown as string }, { id: 4 } as { id: number; title: string });
    await client.addDocuments('books', documents);
    await client.run('PATCH', '/indexes/books/settings', { body: { sortableAttributes: ['title'] } });

    const asc = await client.post('/indexes/books/search', { sort: ['title:asc'], limit: 50, attributesToRetrieve: ['id'] });
    t.is(asc.status, 200, asc.text);
    const expected = [3, ...sorted.map((_, k) => 100 - k), 2, 1, 4];
    t.deepEqual(asc.body.hits.map((hit: { id: number }) => hit.id), expected, 'numbers, then strings by their whole normalized value (U+FFFD before U+1F600), then missing');
    const desc = await client.post('/indexes/books/search', { sort: ['title:desc'], limit: 50, attributesToRetrieve: ['id'] });
    t.deepEqual(desc.body.hits.map((hit: { id: number }) => hit.id), [3, 1, 2, ...sorted.map((_, k) => 100 - k).reverse(), 4]);

    // a small window: the shards' keyed path (few candidates) and walked path agree
    const window = await client.post('/indexes/books/search', { q: 'chronicles', sort: ['title:asc'], limit: 3, offset: 2, attributesToRetrieve: ['id'] });
    t.deepEqual(window.body.hits.map((hit: { id: number }) => hit.id), [98, 97, 96]);
    const fetched = await client.post('/indexes/books/documents/fetch', { sort: ['title:desc'], limit: 4, fields: ['id'] });
    t.deepEqual(fetched.body.results.map((hit: { id: number }) => hit.id), [3, 1, 2, 100 - sorted.length + 1]);
  }));
