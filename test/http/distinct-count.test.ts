// estimatedTotalHits / totalHits with distinct: one per key plus every keyless match, shown capped at
// maxTotalHits (a worker stops counting there), exact below it; a federated search sums each query's
// uncapped count. On one worker holding the whole index (the count crosses alone) and on shards spread
// over two workers (keys cross and the front unions them).
import test from 'ava';
import { serversPerLayout, WORKER_LAYOUTS } from './harness.js';

// 90 documents: 30 families (each on 2 documents, so duplicates cross shards and workers) and 30 without one.
const DOCUMENTS = Array.from({ length: 90 }, (_, id) => (id < 60 ? { id, title: `tea ${id % 7}`, family: `f${id % 30}` } : { id, title: `tea ${id % 7}` }));
const EXACT = 60;

const servers = serversPerLayout(test, async (client) => {
  await client.addDocuments('teas', DOCUMENTS);
  await client.run('PATCH', '/indexes/teas/settings', { body: { filterableAttributes: ['family', 'title'], searchableAttributes: ['title'], distinctAttribute: 'family' } });
});

for (const [k, layout] of WORKER_LAYOUTS.entries()) {
  const name = `${layout.workers} worker(s), ${layout.shardsPerIndex} shard(s)`;

  test.serial(`${name}: exact below maxTotalHits, capped at it, summed uncapped by a federated search`, async (t) => {
    const { client } = servers[k]!;
    const search = async (body: Record<string, unknown>) => (await client.post('/indexes/teas/search', body)).body;
    for (const q of ['', 'tea']) {
      t.is((await search({ q })).estimatedTotalHits, EXACT, `q=${q}`);
      t.is((await search({ q, hitsPerPage: 7 })).totalHits, EXACT);
      t.is((await search({ q, distinct: 'title' })).estimatedTotalHits, 7, 'the request\'s distinct over the setting');
    }
    const hits = (await search({ q: '', limit: 100 })).hits.map((hit: any) => hit.family ?? `none ${hit.id}`);
    t.is(new Set(hits).size, hits.length);
    t.is(hits.length, EXACT);
    await client.run('PATCH', '/indexes/teas/settings', { body: { pagination: { maxTotalHits: 25 } } });
    t.is((await search({ q: '' })).estimatedTotalHits, 25);
    t.is((await search({ q: 'tea', hitsPerPage: 7, page: 2 })).totalHits, 25);
    t.is((await search({ q: '', filter: 'family IN [f1, f2, f3]' })).estimatedTotalHits, 3, 'below the cap: exact');
    const federated = (await client.post('/multi-search', { federation: { limit: 5 },
      queries: [{ indexUid: 'teas', q: '' }, { indexUid: 'teas', q: 'tea 3', matchingStrategy: 'all' }] })).body;
    t.is(federated.estimatedTotalHits, EXACT + countFor(3), 'each query\'s uncapped count, summed');
    await client.run('PATCH', '/indexes/teas/settings', { body: { pagination: { maxTotalHits: 1000 } } });
  });
}

/** Matches of `tea N` once one per family is kept (families of documents whose title is `tea N`, plus its keyless ones). */
function countFor(n: number): number {
  const matching = DOCUMENTS.filter((document) => document.title === `tea ${n}`);
  return new Set(matching.filter((document) => 'family' in document).map((document) => (document as { family: string }).family)).size
    + matching.filter((document) => !('family' in document)).length;
}
