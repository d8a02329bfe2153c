// Facet strings keep their diacritics, as milli's normalize_facet (NFKD, then lowercase; no removal of
// marks): "café" and "cafe" are two facet values, `= cafe` does not match "café", and sort orders them
// by their decomposed keys. Facet search alone compares without diacritics (milli's lossy
// normalize_facet_string over the keys), so `facetQuery: "cafe"` finds both values.
import test from 'ava';
import { withTestServer } from './harness.js';

const DOCUMENTS = [
  { id: 1, place: 'Café' },
  { id: 2, place: 'cafe' },
  { id: 3, place: 'CAFÉ' },
  { id: 4, place: 'cafe\u0301' }, // "café" spelled decomposed: the same key as 1 and 3
  { id: 5, place: 'Zürich' },
  { id: 6, place: 'zurich' },
];

const idsOf = (hits: { id: number }[]): number[] => hits.map((hit) => hit.id).sort((a, b) => a - b);

test('facet values keep their diacritics in filters, facetDistribution and sort; facet search matches without them (1 and 2 shards)', async (t) => {
  for (const shardsPerIndex of [1, 2]) {
    await withTestServer({ workers: 2, shardsPerIndex }, async ({ client }) => {
      const where = `${shardsPerIndex} shard(s)`;
      await client.addDocuments('places', DOCUMENTS);
      await client.run('PATCH', '/indexes/places/settings', { body: { filterableAttributes: ['place'], sortableAttributes: ['place'] } });
      const search = async (filter: string): Promise<number[]> => {
        const response = await client.post('/indexes/places/search', { filter, limit: 20 });
        t.is(response.status, 200, response.text);
        return idsOf(response.body.hits);
      };
      t.deepEqual(await search('place = cafe'), [2], `= cafe, ${where}`);
      t.deepEqual(await search('place = "café"'), [1, 3, 4], `= café, ${where}`);
      t.deepEqual(await search('place = "CAFE\u0301"'), [1, 3, 4], `= decomposed, upper case, ${where}`);
      t.deepEqual(await search('place != cafe'), [1, 3, 4, 5, 6], `!= cafe, ${where}`);
      t.deepEqual(await search('place IN [zurich]'), [6], `IN, ${where}`);
      t.deepEqual(await search('place STARTS WITH "zü"'), [5], `STARTS WITH, ${where}`);

      const facets = await client.post('/indexes/places/search', { facets: ['place'], limit: 0 });
      t.is(facets.status, 200, facets.text);
      t.deepEqual(Object.values(facets.body.facetDistribution.place).sort(), [1, 1, 1, 3], `two values per word, ${where}`);
      t.is(Object.keys(facets.body.facetDistribution.place).length, 4, `distribution keys, ${where}`);

      const sorted = await client.post('/indexes/places/search', { sort: ['place:asc', 'id:asc'], limit: 20 });
      t.is(sorted.status, 400, 'id is not sortable');
      const byPlace = await client.post('/indexes/places/search', { sort: ['place:asc'], limit: 20 });
      t.is(byPlace.status, 200, byPlace.text);
      const order = byPlace.body.hits.map((hit: { id: number }) => hit.id);
      // "cafe" < "cafe\u0301" (a longer key) < "zurich" < "zu\u0308rich" ('r' < U+0308)
      t.deepEqual([order[0], idsOf(byPlace.body.hits.slice(1, 4)), order[4], order[5]], [2, [1, 3, 4], 6, 5], `sort, ${where}`);

      const facetSearch = await client.post('/indexes/places/facet-search', { facetName: 'place', facetQuery: 'cafe' });
      t.is(facetSearch.status, 200, facetSearch.text);
      t.deepEqual(facetSearch.body.facetHits.map((hit: { count: number }) => hit.count).sort(), [1, 3], `facet search finds both, ${where}`);
      const accented = await client.post('/indexes/places/facet-search', { facetName: 'place', facetQuery: 'zü' });
      t.deepEqual(accented.body.facetHits.map((hit: { count: number }) => hit.count), [1, 1], `facet search without diacritics, ${where}`);
    });
  }
});
