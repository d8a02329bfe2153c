// Issue 22: a fresh server warms its search paths up (src/shard/warm-up.ts, src/front/threads/warm-up.ts), off
// the request path, so its first real searches and facet searches do not pay for compiling them
// (figures: bench/cold-facet-probe.mjs). Here: every worker does it once, without error, and it
// leaves nothing behind (no index, no document, not even for an index of the warm-up's own name).
import test from 'ava';
import { sleep, withTestServer } from './harness.js';

// The harness turns the write warm-up off for the suite's other servers; here it is what is tested.
process.env.SKEIN_WRITE_WARM_UP = '1';

async function waitFor<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('every shard worker warms its search and write paths up once, and nothing of it shows', async (t) => {
  const lines: string[] = [];
  await withTestServer({
    workers: 2, shardsPerIndex: 3, logLevel: 'debug', logsMode: 'json', logDestination: { write: (chunk: string) => { lines.push(chunk); } },
  }, async ({ client }) => {
    const warmed = await waitFor(() => {
      const records = lines.map((line) => JSON.parse(line)).filter((record) => record.msg === 'search paths warmed up');
      return records.length >= 2 ? records : null;
    }, 'both workers\' warm-up lines');
    t.deepEqual(warmed.map((record) => record.worker).sort(), [0, 1]);
    for (const record of warmed) {
      t.is(record.error, undefined, JSON.stringify(record));
      t.is(record.level, 'debug');
      t.true(record.durationMs < 10_000);
    }
    // Then its write path (a throwaway index's writes and build), also once per thread and without error.
    const writesWarmed = await waitFor(() => {
      const records = lines.map((line) => JSON.parse(line)).filter((record) => record.msg === 'write paths warmed up');
      return records.length >= 2 ? records : null;
    }, 'both workers\' write warm-up lines');
    t.deepEqual(writesWarmed.map((record) => record.worker).sort(), [0, 1]);
    for (const record of writesWarmed) t.is(record.error, undefined, JSON.stringify(record));
    const indexes = await client.request('GET', '/indexes');
    t.deepEqual(indexes.body.results, []);
    const stats = await client.request('GET', '/stats');
    t.deepEqual(stats.body.indexes, {});
    // An index of the warm-up's name is the user's own: searched, faceted and facet-searched as any.
    await client.run('PATCH', '/indexes/skein-warm-up/settings', { body: { filterableAttributes: ['genres'] } });
    await client.addDocuments('skein-warm-up', [{ id: 1, title: 'Alice In Wonderland', genres: ['adventure'] }, { id: 2, title: 'Le Petit Prince', genres: 'romance' }]);
    const search = await client.post('/indexes/skein-warm-up/search', { q: 'prince', facets: ['genres'] });
    t.deepEqual(search.body.hits, [{ id: 2, title: 'Le Petit Prince', genres: 'romance' }]);
    t.deepEqual(search.body.facetDistribution, { genres: { romance: 1 } });
    const facets = await client.post('/indexes/skein-warm-up/facet-search', { facetName: 'genres', facetQuery: 'a' });
    t.deepEqual(facets.body.facetHits, [{ value: 'adventure', count: 1 }]);
    t.is(typeof facets.body.processingTimeMs, 'number');
    // No second warm-up line (once per thread).
    t.is(lines.filter((line) => line.includes('search paths warmed up')).length, 2);
    t.is(lines.filter((line) => line.includes('write paths warmed up')).length, 2);
  });
});
