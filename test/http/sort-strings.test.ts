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

test('string sort: values sharing 200 characters still come in order (milli compares 468 bytes of the normalized value); values equal on their first 468 bytes tie, on every shard count, walked and keyed', async (t) => {
  const long = 'x'.repeat(200);
  const head = 'ж'.repeat(234); // 2 bytes each in UTF-8: 468 bytes in 234 UTF-16 units
  for (const shardsPerIndex of [1, 3]) {
    await withTestServer({ workers: 2, shardsPerIndex }, async ({ client }) => {
      // ids against the value order, so the tie order (internal ids) never gives the answer
      const documents: Record<string, unknown>[] = [
        { id: 1, title: `${long}d` }, { id: 2, title: `${long}c` }, { id: 3, title: `${long}b` }, { id: 4, title: `${long}A` },
        // equal on 468 bytes, different after: one value for milli, so they tie (internal id order)
        { id: 5, title: `${head}z` }, { id: 6, title: `${head}a` }, { id: 7, title: `${head}m` },
        { id: 8, title: `${'ж'.repeat(233)}я` },
      ].map((document) => ({ ...document, group: 'long' }));
      // many other values, so a search among the 8 long ones is keyed document by document (sort-order.ts)
      for (let k = 0; k < 400; k++) documents.push({ id: 1000 + k, title: k, group: 'number' });
      await client.addDocuments('long', documents);
      await client.run('PATCH', '/indexes/long/settings', { body: { sortableAttributes: ['title'], filterableAttributes: ['group'] } });
      const placeholder = await client.post('/indexes/long/search', { filter: 'group = long', limit: 20, attributesToRetrieve: ['id'] });
      const tied = placeholder.body.hits.map((hit: { id: number }) => hit.id).filter((id: number) => id >= 5 && id <= 7);
      t.is(tied.length, 3);
      const ascending = [4, 3, 2, 1, ...tied, 8];
      const descending = [8, ...tied, 1, 2, 3, 4];
      const ids = (hits: { id: number }[]): number[] => hits.map((hit) => hit.id).filter((id) => id < 1000);
      const walkedAsc = await client.post('/indexes/long/search', { sort: ['title:asc'], limit: 500, attributesToRetrieve: ['id'] });
      t.is(walkedAsc.status, 200, walkedAsc.text);
      t.deepEqual(ids(walkedAsc.body.hits), ascending, `walked asc, ${shardsPerIndex} shard(s)`);
      const walkedDesc = await client.post('/indexes/long/search', { sort: ['title:desc'], limit: 500, attributesToRetrieve: ['id'] });
      t.deepEqual(ids(walkedDesc.body.hits), descending, `walked desc, ${shardsPerIndex} shard(s)`);
      for (const [direction, expected] of [['asc', ascending], ['desc', descending]] as const) {
        const keyed = await client.post('/indexes/long/search', { filter: 'group = long', sort: [`title:${direction}`], limit: 20, attributesToRetrieve: ['id'] });
        t.deepEqual(ids(keyed.body.hits), expected, `keyed ${direction}, ${shardsPerIndex} shard(s)`);
        const fetched = await client.post('/indexes/long/documents/fetch', { filter: 'group = long', sort: [`title:${direction}`], limit: 20, fields: ['id'] });
        t.deepEqual(ids(fetched.body.results), expected, `documents ${direction}, ${shardsPerIndex} shard(s)`);
      }
    });
  }
});
