// Names Object.prototype answers to (`__proto__`, `constructor`, `toString`, `hasOwnProperty`, `valueOf`)
// as facet values, field names and facet names: each is a name like any other. Before, a facet value
// `constructor` read Object's constructor as its count (the distribution's JSON was no JSON), a value
// `__proto__` vanished, showMatchesPosition on a field `constructor` answered 500, and a `__proto__`
// field was left out of attributesToRetrieve, `_formatted` and `fields`. On one worker holding the
// index and on shards spread over two workers (partials merged by the front).
import test from 'ava';
import { serversPerLayout, WORKER_LAYOUTS } from './harness.js';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
// Document k holds value NAMES[k % 5]: 12 documents, so the counts are 3, 3, 2, 2, 2.
const DOCUMENTS = Array.from({ length: 12 }, (_, id) => JSON.parse(
  `{"id":${id},"g":${JSON.stringify(NAMES[id % 5])},"__proto__":{"a":"polluted words ${id}"},"constructor":"builder text ${id}","toString":${id},"title":"hello world"}`));
const COUNTS: Record<string, number> = JSON.parse('{"__proto__":3,"constructor":3,"toString":2,"hasOwnProperty":2,"valueOf":2}');

const servers = serversPerLayout(test, async (client) => {
  await client.addDocuments('protos', DOCUMENTS);
  await client.run('PATCH', '/indexes/protos/settings', { body: { filterableAttributes: ['g', 'constructor', 'toString'] } });
});

for (const [k, layout] of WORKER_LAYOUTS.entries()) {
  const name = `${layout.workers} worker(s), ${layout.shardsPerIndex} shard(s)`;

  test.serial(`${name}: facet values and facet names named as Object.prototype's members are counted like any other`, async (t) => {
    const { client } = servers[k]!;
    for (const order of ['alpha', 'count'] as const) {
      await client.run('PATCH', '/indexes/protos/settings', { body: { faceting: { sortFacetValuesBy: { '*': order } } } });
      const response = await client.post('/indexes/protos/search', { q: '', facets: ['g', 'constructor', 'toString'], limit: 0 });
      t.is(response.status, 200);
      const body = JSON.parse(response.text);
      t.deepEqual(body.facetDistribution.g, COUNTS, order);
      t.is(Object.keys(body.facetDistribution.constructor).length, 12);
      t.deepEqual(body.facetStats, JSON.parse('{"toString":{"min":0,"max":11}}'));
      const facetSearch = await client.post('/indexes/protos/facet-search', { facetName: 'g' });
      t.is(facetSearch.status, 200, facetSearch.text);
      t.deepEqual(Object.fromEntries(JSON.parse(facetSearch.text).facetHits.map((hit: { value: string; count: number }) => [hit.value, hit.count])), COUNTS);
      const filtered = await client.post('/indexes/protos/search', { q: '', filter: 'g = constructor', facets: ['g'] });
      t.is(JSON.parse(filtered.text).estimatedTotalHits, 3);
    }
    // A facet's order set for a facet named `constructor` (its own entry, not an inherited member).
    await client.run('PATCH', '/indexes/protos/settings', { body: { faceting: { sortFacetValuesBy: { '*': 'alpha', constructor: 'count' } } } });
    t.is((await client.post('/indexes/protos/search', { q: '', facets: ['constructor'], limit: 0 })).status, 200);
  });

  test.serial(`${name}: fields named __proto__ and constructor are retrieved, formatted and matched`, async (t) => {
    const { client } = servers[k]!;
    const retrieved = await client.post('/indexes/protos/search', { q: 'hello', attributesToRetrieve: ['id', '__proto__', 'constructor'], filter: 'toString = 5' });
    t.is(retrieved.status, 200);
    t.is(retrieved.text.includes('"__proto__":{"a":"polluted words 5"}'), true, retrieved.text);
    const hit = JSON.parse(retrieved.text).hits[0];
    t.true(Object.hasOwn(hit, '__proto__'));
    t.is(hit.constructor, 'builder text 5');
    const formatted = await client.post('/indexes/protos/search', { q: 'polluted builder', attributesToHighlight: ['*'], showMatchesPosition: true, filter: 'toString = 5' });
    t.is(formatted.status, 200, formatted.text);
    const formattedHit = JSON.parse(formatted.text).hits[0];
    t.is(formattedHit._formatted.__proto__.a, '<em>polluted</em> words 5');
    t.is(formattedHit._formatted.constructor, '<em>builder</em> text 5');
    t.deepEqual(Object.keys(formattedHit._matchesPosition).sort(), ['__proto__.a', 'constructor']);
    const fields = await client.get('/indexes/protos/documents/5?fields=__proto__,constructor');
    t.is(fields.text, '{"__proto__":{"a":"polluted words 5"},"constructor":"builder text 5"}');
    const stats = JSON.parse((await client.get('/indexes/protos/stats')).text);
    t.is(stats.fieldDistribution.constructor, 12);
    t.is(stats.fieldDistribution.toString, 12);
  });

  test.serial(`${name}: an index named __proto__ is listed in GET /stats`, async (t) => {
    const { client } = servers[k]!;
    await client.addDocuments('__proto__', [{ id: 1, title: 'hello' }]);
    const search = JSON.parse((await client.get('/indexes/__proto__/search?q=hello')).text);
    t.is(search.estimatedTotalHits, 1);
    const stats = JSON.parse((await client.get('/stats')).text);
    t.true(Object.hasOwn(stats.indexes, '__proto__'), JSON.stringify(Object.keys(stats.indexes)));
    t.is(stats.indexes.__proto__.numberOfDocuments, 1);
  });
}
