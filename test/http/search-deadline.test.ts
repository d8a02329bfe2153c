// searchCutoffMs bounds the whole search on the shard worker (filter, facets, ranking), and a heavy
// search does not hold a worker: a light search sent while a multi-search of heavy queries runs is
// answered inside the heavy ones' yield points. One worker holding one shard, so every search meets
// the heavy ones. Real text: npm package names and versions (/work/.library/env/packages/npm.tsv when
// present, else generated names). Timing margins are wide: the machine is shared.
import { existsSync, readFileSync } from 'node:fs';
import test from 'ava';
import { sleep, startTestServer, type TestServer } from './harness.js';

const DOCUMENTS = 30_000;
const PACKAGES = '/work/.library/env/packages/npm.tsv';

interface Package {
  id: number;
  name: string;
  version: string;
  downloads: number;
  summary: string;
}

function packages(): Package[] {
  const lines = existsSync(PACKAGES) ? readFileSync(PACKAGES, 'utf8').split('\n').slice(1, DOCUMENTS + 1) : [];
  const out: Package[] = [];
  for (let id = 0; id < DOCUMENTS; id++) {
    const [name, version, downloads, summary] = (lines[id] ?? '').split('\t');
    out.push({
      id,
      name: name || `package-${(id * 7919) % DOCUMENTS}-${id}`,
      version: version || `${id % 13}.${id % 7}.${id % 5}`,
      downloads: Number(downloads) || (id * 104_729) % 1_000_000,
      summary: summary || `a package for ${id % 97} things`,
    });
  }
  return out;
}

const docs = packages();
let server: TestServer;

test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  const settings = { filterableAttributes: ['name', 'version', 'downloads'], sortableAttributes: ['downloads'] };
  for (const uid of ['heavy', 'cut']) {
    await server.client.createIndex(uid, 'id');
    await server.client.run('PATCH', `/indexes/${uid}/settings`, { body: settings });
    for (let k = 0; k < docs.length; k += 10_000) await server.client.addDocuments(uid, docs.slice(k, k + 10_000));
    await buildNow(uid);
  }
});

/**
 * A bulk load or a settings change leaves search structures to build, in slices before each query
 * batch (up to 1 s each) unless a batch of 8 searches or more builds them at once: done here, so the
 * tests time searches, not builds.
 */
async function buildNow(uid: string): Promise<void> {
  await server.client.post('/multi-search', { queries: Array.from({ length: 10 }, (_, k) => ({ indexUid: uid, q: `react ${k}`, limit: 1 })) });
}
test.after.always(async () => {
  await server?.close();
});

/** POST with a time limit: a search the worker never gets to fails the test instead of hanging it. */
async function timedPost(path: string, body: unknown, limitMs: number): Promise<{ status: number; body: any; ms: number; at: number }> {
  const started = performance.now();
  const response = await fetch(server.client.baseUrl + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(limitMs),
  }).catch((cause: unknown) => ({ status: 0, json: async () => ({ aborted: String(cause) }) }));
  const parsed = await response.json();
  const at = performance.now();
  return { status: response.status, body: parsed, ms: at - started, at };
}

/** `name > "x" OR ...` over 2,000 names: a filter of 2,000 string ranges (62 s on 30k documents when each scanned every name). */
function stringRanges(count: number): string {
  return Array.from({ length: count }, (_, k) => `name > ${JSON.stringify(docs[(k * 13) % docs.length]!.name)}`).join(' OR ');
}

test.serial('a light search sent while a multi-search of heavy queries runs is answered long before it', async (t) => {
  // Heavy on any code: a facet distribution of every one of ~30k names and versions (maxValuesPerFacet
  // above them: no cut can skip a value), and 300 range conditions.
  await server.client.run('PUT', '/indexes/heavy/settings/search-cutoff-ms', { body: 10_000 });
  await server.client.run('PATCH', '/indexes/heavy/settings', { body: { faceting: { maxValuesPerFacet: 100_000 } } });
  await buildNow('heavy');
  const filter = Array.from({ length: 300 }, (_, k) => `downloads >= ${k * 3}`).join(' OR ');
  const heavy = { indexUid: 'heavy', q: '', filter, facets: ['name', 'version'], sort: ['downloads:desc'], limit: 50 };
  const light = { q: 'react', limit: 3 };
  // Warm: first uses build the sorted facet lists.
  t.is((await timedPost('/multi-search', { queries: [heavy] }, 60_000)).status, 200);
  t.is((await timedPost('/indexes/heavy/search', light, 60_000)).status, 200);

  const heavyRun = timedPost('/multi-search', { queries: Array(10).fill(heavy) }, 90_000);
  await sleep(250);
  const lightRun = await timedPost('/indexes/heavy/search', light, 60_000);
  const heavyDone = await heavyRun;
  t.is(heavyDone.status, 200);
  t.is(heavyDone.body.results.length, 10);
  t.is(lightRun.status, 200);
  t.true(lightRun.body.hits.length > 0);
  t.log(`heavy multi-search ${heavyDone.ms.toFixed(0)} ms, light search ${lightRun.ms.toFixed(0)} ms`);
  // The light search met the heavy ones at work (else the test shows nothing), and did not wait for them.
  t.true(heavyDone.ms > 1_000, `the heavy multi-search took ${heavyDone.ms.toFixed(0)} ms`);
  t.true(lightRun.at < heavyDone.at, 'the light search is answered before the heavy multi-search');
  t.true(lightRun.ms < heavyDone.ms / 4, `light ${lightRun.ms.toFixed(0)} ms against heavy ${heavyDone.ms.toFixed(0)} ms`);
});

test.serial('searchCutoffMs bounds a filter of 2,000 conditions: a degraded answer whose hits all match', async (t) => {
  await server.client.run('PATCH', '/indexes/cut/settings', { body: { searchCutoffMs: 50 } });
  await buildNow('cut');
  // Warm (a settings change reloads the shards): the first range filter on a field sorts its values.
  t.is((await timedPost('/indexes/cut/search', { filter: 'name > "m" AND version > "1"', limit: 1 }, 60_000)).status, 200);
  const filter = stringRanges(2_000);
  const response = await timedPost('/indexes/cut/search', { q: '', filter, limit: 20 }, 8_000);
  t.is(response.status, 200, JSON.stringify(response.body).slice(0, 300));
  t.log(`cutoff 50 ms: answered in ${response.ms.toFixed(0)} ms (processingTimeMs ${response.body.processingTimeMs}), ${response.body.hits.length} hits, estimatedTotalHits ${response.body.estimatedTotalHits}`);
  t.true(response.ms < 3_000, `answered in ${response.ms.toFixed(0)} ms`);
  // Never a hit the filter does not match (Meilisearch never skips a filter).
  const lowest = docs.slice(0, 2_000 * 13).filter((_, k) => k % 13 === 0).map((doc) => doc.name.toLowerCase()).sort()[0]!;
  for (const hit of response.body.hits) t.true(hit.name.toLowerCase() > lowest, `${hit.name} matches no condition`);
});

test.serial('search-cutoff-ms routes: the sub-route and the settings object set it, DELETE resets it to null, and it bounds facets and sort too', async (t) => {
  t.is((await server.client.get('/indexes/heavy/settings/search-cutoff-ms')).body, 10_000);
  await server.client.run('PUT', '/indexes/heavy/settings/search-cutoff-ms', { body: 30 });
  t.is((await server.client.get('/indexes/heavy/settings/search-cutoff-ms')).body, 30);
  t.is((await server.client.get('/indexes/heavy/settings')).body.searchCutoffMs, 30);
  const invalid = await server.client.put('/indexes/heavy/settings/search-cutoff-ms', -1);
  t.is(invalid.status, 400);
  t.is(invalid.body.code, 'invalid_settings_search_cutoff_ms');
  const filter = stringRanges(2_000);
  const query = { indexUid: 'heavy', q: 'e', filter, facets: ['name', 'version'], sort: ['downloads:asc'], limit: 20 };
  await buildNow('heavy');
  await timedPost('/indexes/heavy/search', { filter: 'name > "m"', limit: 1 }, 60_000);
  const response = await timedPost('/multi-search', { queries: Array(4).fill(query) }, 8_000);
  t.is(response.status, 200, JSON.stringify(response.body).slice(0, 300));
  t.log(`four heavy queries at 30 ms each: ${response.ms.toFixed(0)} ms`);
  t.true(response.ms < 4_000, `answered in ${response.ms.toFixed(0)} ms`);
  await server.client.run('DELETE', '/indexes/heavy/settings/search-cutoff-ms');
  t.is((await server.client.get('/indexes/heavy/settings/search-cutoff-ms')).body, null);
  t.is((await server.client.get('/indexes/heavy/settings')).body.searchCutoffMs, null);
});

test.serial('searchCutoffMs bounds the negative operator\'s check under attributesToSearchOn: the documents not read stay excluded', async (t) => {
  // Every document holds `common` in its body, one in four in its title too: `-common` on the title
  // reads every document's fields to tell which (field-restriction.ts), 20,000 of them.
  const documents = Array.from({ length: 20_000 }, (_, id) => ({ id, title: `${id % 4 === 0 ? 'common' : 'rare'} title ${id}`, body: 'common words here' }));
  await server.client.createIndex('negcut', 'id');
  await server.client.run('PATCH', '/indexes/negcut/settings', { body: { pagination: { maxTotalHits: 50_000 } } });
  for (let k = 0; k < documents.length; k += 10_000) await server.client.addDocuments('negcut', documents.slice(k, k + 10_000));
  await buildNow('negcut');
  const query = { q: '-common', attributesToSearchOn: ['title'], attributesToRetrieve: ['title'], limit: 50 };
  const full = await timedPost('/indexes/negcut/search', query, 60_000);
  t.is(full.status, 200, JSON.stringify(full.body).slice(0, 300));
  t.is(full.body.estimatedTotalHits, 15_000, 'within the default cutoff every document is read');
  await server.client.run('PATCH', '/indexes/negcut/settings', { body: { searchCutoffMs: 1 } });
  await buildNow('negcut');
  const cut = await timedPost('/indexes/negcut/search', query, 8_000);
  t.is(cut.status, 200, JSON.stringify(cut.body).slice(0, 300));
  t.log(`cutoff 1 ms: ${cut.ms.toFixed(0)} ms, estimatedTotalHits ${cut.body.estimatedTotalHits} (full: ${full.ms.toFixed(0)} ms)`);
  // Cut short: fewer hits, and never one holding the word in its title (proven matches only).
  t.true(cut.body.estimatedTotalHits < 15_000, `estimatedTotalHits ${cut.body.estimatedTotalHits}`);
  for (const hit of cut.body.hits) t.false(hit.title.startsWith('common'), hit.title);
});
