// Facet string values as milli keys them (extract_facets.rs truncate_str): the normalized value's UTF-8
// bytes cut to MAX_FACET_VALUE_LENGTH (468) at the last character boundary at or before it. Two values
// equal on those bytes are one facet value (facetDistribution, facet search, distinct); a filter's `=` /
// `!=` / `IN` value is normalized but not cut (value_bounds.rs), so a longer value names no key and the
// cut key names both documents.
import test from 'ava';
import { withTestServer } from './harness.js';

// 'ж' is 2 bytes in UTF-8.
const HEAD = 'ж'.repeat(234); // 468 bytes
const CUT = `x${'ж'.repeat(233)}`; // 467 bytes: 'x' + 233 two-byte characters
const A = `${CUT}ыa`; // 470 bytes: cut at 467 (468 falls inside 'ы')
const B = `${CUT}ыb`; // same key as A
const C = `${CUT}q`; // exactly 468 bytes: not cut, a key of its own
const D = `${HEAD}A`; // 469 bytes: cut to HEAD
const E = `${'Ж'.repeat(234)}b`; // normalized (lowercase) to HEAD + 'b': same key as D
const F = `${'ж'.repeat(233)}я`; // differs from HEAD inside the 468 bytes

const DOCUMENTS = [
  { id: 1, title: A, group: 'x' }, { id: 2, title: B, group: 'x' }, { id: 3, title: C, group: 'x' },
  { id: 4, title: D, group: 'h' }, { id: 5, title: E, group: 'h' }, { id: 6, title: F, group: 'h' },
  { id: 7, title: 'short', group: 's' },
];

const idsOf = (hits: { id: number }[]): number[] => hits.map((hit) => hit.id).sort((a, b) => a - b);

test('facet strings are keyed by their first 468 normalized bytes, cut at a character boundary: facetDistribution, facet search, = / != / IN filters and distinct, on 1 and 3 shards', async (t) => {
  for (const shardsPerIndex of [1, 3]) {
    await withTestServer({ workers: 2, shardsPerIndex }, async ({ client }) => {
      const where = `${shardsPerIndex} shard(s)`;
      await client.addDocuments('long', DOCUMENTS);
      await client.run('PATCH', '/indexes/long/settings', { body: { filterableAttributes: ['title', 'group'] } });

      const facets = await client.post('/indexes/long/search', { facets: ['title'], limit: 0 });
      t.is(facets.status, 200, facets.text);
      // one value per key, shown with its smallest spelling (Skein's choice, the same on every shard layout)
      t.deepEqual(facets.body.facetDistribution.title, { [A]: 2, [C]: 1, [E]: 2, [F]: 1, short: 1 }, `distribution, ${where}`);
      // alpha order is the keys' order: A's key (CUT) before C's (CUT + 'q'), though 'ы' > 'q'
      t.deepEqual(Object.keys(facets.body.facetDistribution.title).filter((value) => value.startsWith('x')), [A, C], `distribution order, ${where}`);

      const facetSearch = await client.post('/indexes/long/facet-search', { facetName: 'title', facetQuery: 'x' });
      t.is(facetSearch.status, 200, facetSearch.text);
      t.deepEqual(facetSearch.body.facetHits, [{ value: A, count: 2 }, { value: C, count: 1 }], `facet search, ${where}`);

      const search = async (filter: unknown): Promise<number[]> => {
        const response = await client.post('/indexes/long/search', { filter, limit: 20, attributesToRetrieve: ['id'] });
        t.is(response.status, 200, response.text);
        return idsOf(response.body.hits);
      };
      const quoted = (value: string): string => JSON.stringify(value);
      t.deepEqual(await search(`title = ${quoted(A)}`), [], `= a value longer than its key names no key, ${where}`);
      t.deepEqual(await search(`title = ${quoted(CUT)}`), [1, 2], `= the cut key, ${where}`);
      t.deepEqual(await search(`title = ${quoted(C)}`), [3], `= a 468-byte value, ${where}`);
      t.deepEqual(await search(`title = ${quoted(HEAD.toUpperCase())}`), [4, 5], `= the cut key of D and E, normalized, ${where}`);
      t.deepEqual(await search(`title != ${quoted(A)}`), [1, 2, 3, 4, 5, 6, 7], `!= a longer value excludes nothing, ${where}`);
      t.deepEqual(await search(`title != ${quoted(CUT)}`), [3, 4, 5, 6, 7], `!= the cut key, ${where}`);
      t.deepEqual(await search(`title IN [${quoted(CUT)}, ${quoted(F)}]`), [1, 2, 6], `IN, ${where}`);

      const fetched = await client.post('/indexes/long/documents/fetch', { filter: `title = ${quoted(CUT)}`, fields: ['id'] });
      t.is(fetched.status, 200, fetched.text);
      t.deepEqual(idsOf(fetched.body.results), [1, 2], `documents route, ${where}`);

      const distinct = await client.post('/indexes/long/search', { distinct: 'title', limit: 20, attributesToRetrieve: ['id'] });
      t.is(distinct.status, 200, distinct.text);
      const kept = idsOf(distinct.body.hits);
      t.is(kept.length, 5, `distinct: one hit per key, ${where}: ${kept}`);
      t.is(kept.filter((id) => id === 1 || id === 2).length, 1, where);
      t.is(kept.filter((id) => id === 4 || id === 5).length, 1, where);
      t.is(distinct.body.estimatedTotalHits, 5, `distinct count, ${where}`);

      // delete by filter (the scheduler's per-document match): the longer value deletes nothing, the key both
      await client.run('POST', '/indexes/long/documents/delete', { body: { filter: `title = ${quoted(A)}` } });
      t.deepEqual(await search('group = x'), [1, 2, 3], `delete by a longer value, ${where}`);
      await client.run('POST', '/indexes/long/documents/delete', { body: { filter: `title = ${quoted(CUT)}` } });
      t.deepEqual(await search('group = x'), [3], `delete by the key, ${where}`);
    });
  }
});
