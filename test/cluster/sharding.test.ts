// Cluster sharding (issue 23): 3 nats-server + 3 Skein processes, /network with 3 shard groups (one
// node each), so every node keeps only its group's documents (rendezvous placement by the task log
// message's group names). A search with useNetwork answers exactly as a single node holding every
// document: same hits, order, facet counts, totals, pagination, on a few hundred real-text queries
// (npm package names and summaries). A group's node that does not answer is skipped for the next node
// of the group; a group with no live node is reported in `remoteErrors`.
import test from 'ava';
import { startTestServer } from '../http/harness.js';
import { call, waitForTask } from './cluster-client.js';
import { freePort, LocalCluster } from './local-cluster.js';
import { packages, queries } from './npm-sample.js';

function comparable(body: Record<string, unknown>): Record<string, unknown> {
  const { processingTimeMs: _time, ...rest } = body;
  return rest;
}

test.serial('an index over 3 shard groups answers useNetwork searches exactly as one node with every document; a dead node of a group is skipped; a dead group is reported', async (t) => {
  const docs = packages();
  const cluster = new LocalCluster({ size: 3 });
  const single = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  await cluster.start();
  try {
    const urls = cluster.nodes.map((node) => node.url) as [string, string, string];
    const deadPort = await freePort();
    const remotes = { skein1: { url: urls[0] }, skein2: { url: urls[1] }, skein3: { url: urls[2] }, ghost: { url: `http://127.0.0.1:${deadPort}` } };
    // Group g2's first listed node never answers: every search through it goes on to skein2.
    const shards = { g1: { remotes: ['skein1'] }, g2: { remotes: ['ghost', 'skein2'] }, g3: { remotes: ['skein3'] } };
    for (const [i, url] of urls.entries()) {
      t.is((await call(url, 'PATCH', '/experimental-features', { network: true })).status, 200);
      const patched = await call(url, 'PATCH', '/network', { self: `skein${i + 1}`, remotes, shards });
      t.is(patched.status, 200, JSON.stringify(patched.body));
    }
    // `scope` in count order, 5 values a facet: each node's counts must reach the asking node whole (no worker cuts them).
    const settings = { filterableAttributes: ['downloads', 'band', 'scope'], sortableAttributes: ['downloads'], searchableAttributes: ['name', 'summary'],
      faceting: { maxValuesPerFacet: 5, sortFacetValuesBy: { '*': 'alpha', scope: 'count' } } };
    const first = await call(urls[0], 'PATCH', '/indexes/npm/settings', settings);
    // Through two nodes, as two tasks: the sequence runs across tasks and accepting nodes.
    const half = Math.floor(docs.length / 2);
    const addA = await call(urls[1], 'POST', '/indexes/npm/documents', docs.slice(0, half));
    const addB = await call(urls[2], 'POST', '/indexes/npm/documents', docs.slice(half));
    for (const url of urls) t.is(await waitForTask(url, addB.body.taskUid), 'succeeded');
    await single.client.waitForTask((await single.client.patch('/indexes/npm/settings', settings)).body.taskUid);
    await single.client.waitForTask((await single.client.post('/indexes/npm/documents', docs.slice(0, half))).body.taskUid);
    await single.client.waitForTask((await single.client.post('/indexes/npm/documents', docs.slice(half))).body.taskUid);
    t.truthy(first.body.taskUid >= 0 && addA.body.taskUid >= 0);

    // Each node keeps only its group's share, and the shares add up to every document.
    const counts = await Promise.all(urls.map(async (url) => (await call(url, 'GET', '/indexes/npm/stats')).body.numberOfDocuments as number));
    t.is(counts.reduce((a, b) => a + b, 0), docs.length);
    for (const count of counts) t.true(count > docs.length / 6 && count < docs.length / 2, `group share ${count} of ${docs.length}`);

    let compared = 0;
    for (const [i, query] of queries(docs, 300).entries()) {
      const expected = await single.client.post('/indexes/npm/search', query);
      t.is(expected.status, 200, JSON.stringify(expected.body));
      const answer = await call(urls[i % 3], 'POST', '/indexes/npm/search', { ...query, useNetwork: true });
      t.is(answer.status, 200, JSON.stringify(answer.body));
      if (JSON.stringify(comparable(answer.body)) !== JSON.stringify(comparable(expected.body))) {
        t.deepEqual(comparable(answer.body), comparable(expected.body), `query ${i} ${JSON.stringify(query)} through node ${i % 3 + 1}`);
      }
      compared++;
    }
    t.is(compared, 300);

    // Multi-search, plain and federated, with useNetwork on each query: as the single node's.
    const multi = { queries: [{ indexUid: 'npm', q: 'react', facets: ['band'], useNetwork: true }, { indexUid: 'npm', q: 'parser', limit: 5, useNetwork: true },
      { indexUid: 'npm', q: '', facets: ['scope', 'band'], limit: 0, useNetwork: true }, { indexUid: 'npm', q: 'plugin', facets: ['scope'], limit: 0, useNetwork: true }] };
    const federated = { federation: { limit: 15 }, queries: [{ indexUid: 'npm', q: 'react', useNetwork: true }, { indexUid: 'npm', q: 'vue', federationOptions: { weight: 0.8 }, useNetwork: true }] };
    const strip = (body: any) => JSON.parse(JSON.stringify(body, (key, value) => (key === 'processingTimeMs' ? 0 : value)));
    const withoutNetwork = (body: any) => ({ ...body, queries: body.queries.map(({ useNetwork: _drop, ...query }: any) => query) });
    for (const body of [multi, federated]) {
      const expected = await single.client.post('/multi-search', withoutNetwork(body));
      const answer = await call(urls[1], 'POST', '/multi-search', body);
      t.is(answer.status, 200, JSON.stringify(answer.body));
      t.deepEqual(strip(answer.body), strip(expected.body));
    }

    // Without useNetwork a node answers from its own group only; so does useNetwork with the network feature off.
    const local = await call(urls[0], 'POST', '/indexes/npm/search', { q: '', limit: 0 });
    t.is(local.body.estimatedTotalHits, counts[0]);
    await call(urls[0], 'PATCH', '/experimental-features', { network: false });
    t.is((await call(urls[0], 'POST', '/indexes/npm/search', { q: '', limit: 0, useNetwork: true })).body.estimatedTotalHits, counts[0]);
    t.is((await call(urls[0], 'PATCH', '/experimental-features', { network: true })).status, 200);
    // Features reach the other nodes through the config log, not at once (their reads do not wait for it).
    for (const url of urls) {
      const deadline = Date.now() + 20_000;
      while ((await call(url, 'GET', '/experimental-features')).body.network !== true && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // `_shard`: a node's own group is all its documents, another group none; through useNetwork each group answers for its own.
    for (const [i, url] of urls.entries()) {
      const own = await call(url, 'POST', '/indexes/npm/search', { q: '', limit: 0, filter: `_shard = g${i + 1}` });
      t.is(own.body.estimatedTotalHits, counts[i], `node ${i + 1}: ${JSON.stringify(own.body)}`);
      t.is((await call(url, 'POST', '/indexes/npm/search', { q: '', limit: 0, filter: `_shard != g${i + 1}` })).body.estimatedTotalHits, 0);
    }
    const popular = (url: string, filter: string, useNetwork = false) =>
      call(url, 'POST', '/indexes/npm/search', { q: '', limit: 0, filter: `downloads > 50000 AND ${filter}`, useNetwork }).then((answer) => answer.body.estimatedTotalHits as number);
    const [popular2, popular3] = [await popular(urls[1], '_shard = g2'), await popular(urls[2], '_shard = g3')];
    t.true(popular2 > 0 && popular3 > 0 && popular2 + popular3 < 1000);
    t.is(await popular(urls[0], '_shard IN [g2, g3]', true), popular2 + popular3);
    // useNetwork on the documents routes: as the single node's documents, order and totals.
    for (const body of [{ offset: 40, limit: 25 }, { sort: ['downloads:desc'], offset: 7, limit: 30, fields: ['name', 'downloads'] },
      { filter: 'band = high', limit: 50 }, { ids: ['3', '400', '77', '5'] }]) {
      const expected = await single.client.post('/indexes/npm/documents/fetch', body);
      const answer = await call(urls[1], 'POST', '/indexes/npm/documents/fetch', { ...body, useNetwork: true });
      t.is(answer.status, 200, JSON.stringify(answer.body));
      t.deepEqual(answer.body, expected.body, JSON.stringify(body));
    }

    // Delete by filter with `_shard`, taken by node 1 (group g1): every node resolves it with its own
    // group, so only g2's node deletes its popular documents; the task's details count each node's own.
    const removal = await call(urls[0], 'POST', '/indexes/npm/documents/delete', { filter: 'downloads > 50000 AND _shard = g2' });
    t.is(removal.status, 202, JSON.stringify(removal.body));
    for (const [i, url] of urls.entries()) {
      t.is(await waitForTask(url, removal.body.taskUid), 'succeeded');
      const task = (await call(url, 'GET', `/tasks/${removal.body.taskUid}`)).body;
      t.is(task.details.deletedDocuments, i === 1 ? popular2 : 0, `node ${i + 1}: ${JSON.stringify(task)}`);
    }
    t.is(await popular(urls[1], '_shard = g2'), 0);
    t.is(await popular(urls[2], '_shard = g3'), popular3);
    t.is(await popular(urls[0], '_shard IN [g2, g3]', true), popular3);
    t.is((await call(urls[1], 'GET', '/indexes/npm/stats')).body.numberOfDocuments, counts[1]! - popular2);

    // A whole group down (g3's only node): the others' hits, and the group in remoteErrors.
    const some = { q: '', limit: 0, filter: 'downloads > 50000' };
    const shares = await Promise.all(urls.map(async (url) => (await call(url, 'POST', '/indexes/npm/search', some)).body.estimatedTotalHits as number));
    t.true(shares[0]! + shares[1]! < 1000 && shares[2]! > 0, JSON.stringify(shares));
    cluster.killNode(2);
    const partial = await call(urls[0], 'POST', '/indexes/npm/search', { ...some, useNetwork: true });
    t.is(partial.status, 200, JSON.stringify(partial.body));
    t.is(partial.body.estimatedTotalHits, shares[0]! + shares[1]!);
    t.is(partial.body.remoteErrors?.skein3?.code, 'remote_could_not_send_request', JSON.stringify(partial.body));
  } finally {
    await cluster.stop();
    await single.close();
  }
});
