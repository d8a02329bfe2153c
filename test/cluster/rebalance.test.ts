// Rebalancing when the shard groups change (issue 23; scheduler/operations/network-move.ts): 3 nats-server + 3
// Skein processes, an index split over 2 groups (g1: skein1; g2: skein2 and skein3), then a third
// group (g3: skein3, which leaves g2). The networkTopologyChange task moves the documents g3 now wins
// (a third of them): skein3 fetches g1's share of them from skein1 in pages; every node drops what it
// no longer keeps once every node of the new groups imported. skein3 is killed (-9) in the middle of
// its import and restarted: it resumes. At the end every document is in exactly one group, its
// rendezvous group, and useNetwork searches answer exactly as one node holding everything (300
// real-text queries: hits, order, facet counts, totals). Searches sent during the move are counted.
import test from 'ava';
import { rendezvousGroup } from '../../src/documents/shard-group.js';
import { startTestServer } from '../http/harness.js';
import { call, sleep, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';
import { packages, queries } from './npm-sample.js';

// Small pages, so the move takes many steps and the kill lands in the middle of it.
process.env['SKEIN_MOVE_PAGE'] = '20';

const comparable = ({ processingTimeMs: _time, ...rest }: Record<string, unknown>) => rest;

/** A node's own documents' ids (its group's share). */
async function ownIds(url: string): Promise<string[]> {
  const answer = await call(url, 'GET', '/indexes/npm/documents?limit=10000&fields=id');
  return (answer.body.results as Array<{ id: string }>).map((doc) => doc.id);
}

async function waitEverywhere(urls: string[], uid: number): Promise<void> {
  for (const url of urls) await waitForTask(url, uid, 120_000);
}

test.serial('adding a shard group moves only its share; kill -9 mid-move resumes; every document ends in exactly one group and useNetwork answers as one node', async (t) => {
  const docs = packages((i) => `p${i}`);
  const cluster = new LocalCluster({ size: 3 });
  const single = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  await cluster.start();
  try {
    const urls = cluster.nodes.map((node) => node.url);
    const remotes = { skein1: { url: urls[0] }, skein2: { url: urls[1] }, skein3: { url: urls[2] } };
    const before = { g1: { remotes: ['skein1'] }, g2: { remotes: ['skein2', 'skein3'] } };
    for (const [i, url] of urls.entries()) {
      t.is((await call(url, 'PATCH', '/experimental-features', { network: true })).status, 200);
      t.is((await call(url, 'PATCH', '/network', { self: `skein${i + 1}`, remotes, shards: before })).status, 200);
    }
    const settings = { filterableAttributes: ['downloads', 'band', 'scope'], sortableAttributes: ['downloads'], searchableAttributes: ['name', 'summary'] };
    await call(urls[0], 'PATCH', '/indexes/npm/settings', settings);
    const half = Math.floor(docs.length / 2);
    await call(urls[0], 'POST', '/indexes/npm/documents', docs.slice(0, half));
    const last = await call(urls[1], 'POST', '/indexes/npm/documents', docs.slice(half));
    await waitEverywhere(urls, last.body.taskUid);
    await single.client.waitForTask((await single.client.patch('/indexes/npm/settings', settings)).body.taskUid);
    await single.client.waitForTask((await single.client.post('/indexes/npm/documents', docs)).body.taskUid);

    const twoGroups = ['g1', 'g2'];
    const threeGroups = ['g1', 'g2', 'g3'];
    const shareBefore = await Promise.all(urls.map(ownIds));
    t.deepEqual(new Set(shareBefore[0]), new Set(docs.map((doc) => doc.id as string).filter((id) => rendezvousGroup(id, twoGroups) === 'g1')));
    t.deepEqual(new Set(shareBefore[2]), new Set(shareBefore[1]));

    // The third group: skein3 leaves g2 for g3. The first PATCH publishes the move; the others find it made.
    const after = { g1: { remotes: ['skein1'] }, g2: { remotes: ['skein2'] }, g3: { remotes: ['skein3'] } };
    const moveStart = Date.now();
    t.is((await call(urls[0], 'PATCH', '/network', { shards: { g2: { remotes: ['skein2'] }, g3: { remotes: ['skein3'] } } })).status, 200);
    const tasks = await call(urls[0], 'GET', '/tasks?types=networkTopologyChange&limit=1');
    const moveUid = tasks.body.results[0].uid as number;
    t.deepEqual((await call(urls[0], 'GET', '/network')).body.shards, after);

    // Searches during the move, through skein1 (already on the 3 groups): how many totals were off.
    let searching = true;
    const during = { answers: 0, over: 0, under: 0, errors: 0, totals: new Map<number, number>() };
    const total = docs.length;
    const searcher = (async () => {
      while (searching) {
        // Facet counts are not capped by maxTotalHits: their sum is the number of documents the groups answered with.
        const answer = await call(urls[0], 'POST', '/indexes/npm/search', { q: '', limit: 0, facets: ['band'], useNetwork: true }).catch(() => null);
        const counted = answer?.status === 200 ? Object.values(answer.body.facetDistribution?.band ?? {}).reduce((a: number, b) => a + (b as number), 0) : -1;
        if (!answer || answer.status !== 200 || answer.body.remoteErrors) during.errors++;
        else if (counted > total) during.over++;
        else if (counted < total) during.under++;
        if (counted >= 0) during.totals.set(counted, (during.totals.get(counted) ?? 0) + 1);
        during.answers++;
        await sleep(20);
      }
    })();

    // skein3 killed once its import is under way (some of g1's documents fetched, not all), then restarted.
    let phase = '';
    let midCount = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      phase = (await call(urls[2], 'GET', `/_network-move/${moveUid}`)).body?.phase ?? '';
      midCount = (await call(urls[2], 'GET', '/indexes/npm/stats')).body.numberOfDocuments;
      if ((phase === 'import' && midCount > shareBefore[2]!.length) || phase === 'done' || Date.now() > deadline) break;
      await sleep(30);
    }
    t.is(phase, 'import', 'skein3 was killed in the middle of its import');
    cluster.killNode(2);
    await sleep(300);
    for (const url of urls.slice(1, 2)) t.not((await call(url, 'GET', `/tasks/${moveUid}`)).body.status, 'succeeded', 'the others wait for skein3');
    await cluster.startNode(cluster.nodes[2]!);
    t.is((await call(urls[2], 'PATCH', '/network', { shards: after })).status, 200);
    t.is((await call(urls[1], 'PATCH', '/network', { shards: after })).status, 200);
    await waitEverywhere(urls, moveUid);
    const moveMs = Date.now() - moveStart;
    searching = false;
    await searcher;
    const latest = (await call(urls[0], 'GET', '/tasks?limit=1')).body.results[0].uid as number;
    await waitEverywhere(urls, latest);

    // Never missing: every search sent during the move counted every document at least once (twice at
    // most for some, Meilisearch's window: between a document's import and its source's drop).
    t.is(during.under, 0, JSON.stringify([...during.totals]));

    // The move's tasks succeeded everywhere; movedDocuments: what left each node.
    const moved = await Promise.all(urls.map(async (url) => (await call(url, 'GET', `/tasks/${moveUid}`)).body));
    for (const task of moved) t.is(task.status, 'succeeded', JSON.stringify(task));

    // Every document in exactly one group: its rendezvous group over the 3 names.
    const shares = await Promise.all(urls.map(ownIds));
    const seen = new Map<string, number>();
    for (const [node, ids] of shares.entries()) {
      for (const id of ids) {
        t.false(seen.has(id), `${id} in two groups`);
        seen.set(id, node);
        t.is(rendezvousGroup(id, threeGroups), `g${node + 1}`, `${id} on skein${node + 1}`);
      }
    }
    t.is(seen.size, docs.length);
    const movedToG3 = shareBefore[0]!.filter((id) => rendezvousGroup(id, threeGroups) === 'g3').length
      + shareBefore[1]!.filter((id) => rendezvousGroup(id, threeGroups) === 'g3').length;
    t.is(shares[2]!.length, movedToG3);
    t.is(moved[0].details.movedDocuments + moved[1].details.movedDocuments, movedToG3);
    // skein3 gave away g2's share it no longer keeps.
    t.is(moved[2].details.movedDocuments, shareBefore[2]!.length - shareBefore[2]!.filter((id) => rendezvousGroup(id, threeGroups) === 'g3').length);

    // useNetwork answers as one node holding everything.
    for (const [i, query] of queries(docs, 300).entries()) {
      const expected = await single.client.post('/indexes/npm/search', query);
      const answer = await call(urls[i % 3]!, 'POST', '/indexes/npm/search', { ...query, useNetwork: true });
      t.is(answer.status, 200, JSON.stringify(answer.body));
      if (JSON.stringify(comparable(answer.body)) !== JSON.stringify(comparable(expected.body))) {
        t.deepEqual(comparable(answer.body), comparable(expected.body), `query ${i} ${JSON.stringify(query)} through skein${i % 3 + 1}`);
      }
    }

    // A later addition goes by the recorded groups: a new document lands in its rendezvous group only.
    const added = await call(urls[1], 'POST', '/indexes/npm/documents', [{ id: 'late-1', name: 'late', summary: 'added after the move', downloads: 1 }]);
    await waitEverywhere(urls, added.body.taskUid);
    const holders = await Promise.all(urls.map(async (url) => (await call(url, 'GET', '/indexes/npm/documents/late-1')).status));
    t.deepEqual(holders.map((status) => status === 200), ['g1', 'g2', 'g3'].map((group) => rendezvousGroup('late-1', threeGroups) === group));

    t.log(`move of ${docs.length} documents, 2 -> 3 groups: ${movedToG3} moved to g3 (${(100 * movedToG3 / docs.length).toFixed(1)} %), `
      + `${moveMs} ms from the PATCH to the task finished everywhere (a kill -9 and restart included, pages of 20); `
      + `searches during the move: ${during.answers}, totals over ${during.over}, under ${during.under}, errors ${during.errors}; totals seen ${JSON.stringify([...during.totals])}`);
  } finally {
    await cluster.stop();
    await single.close();
  }
});
