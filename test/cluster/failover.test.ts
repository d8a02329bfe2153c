// Cluster mode, failover (issue 23): under continuous writes and searches, kill -9 one Skein node, then
// the NATS server leading the task log stream. Writes and searches through the surviving nodes go on
// (a write waits while JetStream elects a new leader: ~4-9 s here); every acknowledged write is on
// every live node; the killed node, restarted, catches up from its last applied sequence and answers
// like the others.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { allDocumentIds, call, searchAnswer, sleep, taskList, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';
import { STREAM } from '../../src/cluster/task-log.js';

async function streamLeader(cluster: LocalCluster): Promise<number> {
  const connection = await connect({ servers: cluster.nats.filter((server) => server.process).map((server) => server.url) });
  try {
    const jsm = await jetstreamManager(connection);
    const info = await jsm.streams.info(STREAM);
    const leader = info.cluster?.leader;
    const index = cluster.nats.findIndex((server) => server.name === leader);
    if (index < 0) throw new Error(`no stream leader (${leader})`);
    return index;
  } finally {
    await connection.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

test('kill -9 a Skein node then the stream leader NATS server under writes and searches: no acknowledged write lost, the restarted node catches up', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  try {
    const urls = cluster.nodes.map((node) => node.url);
    const alive = new Set(urls);
    const first = await call(urls[0]!, 'PATCH', '/indexes/items/settings', { filterableAttributes: ['writer'] });
    t.is(first.status, 202);
    await waitForTask(urls[0]!, first.body.taskUid);

    let stop = false;
    let nextId = 0;
    const acked = new Map<string, number>(); // document id -> task uid
    const ackTimes: number[] = [];
    /** [started, acknowledged] of every acknowledged write. */
    const spans: Array<[number, number]> = [];
    const latencies: number[] = [];
    const writeErrors: string[] = [];
    let searchesOk = 0;
    const searchErrors: string[] = [];
    const pick = (i: number) => { const live = [...alive]; return live[i % live.length]!; };
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const id = String(nextId++);
        const url = pick(i + w);
        const started = performance.now();
        try {
          const answer = await call(url, 'POST', '/indexes/items/documents', [{ id, writer: w, text: `item ${id} written by ${w}` }], 70_000);
          if (answer.status === 202) {
            acked.set(id, answer.body.taskUid);
            ackTimes.push(Date.now());
            spans.push([Date.now() - (performance.now() - started), Date.now()]);
            latencies.push(performance.now() - started);
          } else if (alive.has(url)) writeErrors.push(`${url} ${answer.status} ${JSON.stringify(answer.body)}`);
        } catch (cause) {
          if (alive.has(url)) writeErrors.push(`${url} ${(cause as Error).message}`);
        }
      }
    };
    const searcher = async () => {
      for (let i = 0; !stop; i++) {
        const url = pick(i);
        try {
          const answer = await call(url, 'POST', '/indexes/items/search', { q: 'item', limit: 5 });
          if (answer.status === 200) searchesOk++;
          else if (alive.has(url)) searchErrors.push(`${url} ${answer.status}`);
        } catch (cause) {
          if (alive.has(url)) searchErrors.push(`${url} ${(cause as Error).message}`);
        }
        await sleep(5);
      }
    };
    const load = Promise.all([writer(0), writer(1), writer(2), searcher()]);
    await sleep(2000);
    // 1. A Skein node dies (kill -9); its clients move to the others (a load balancer's health check).
    alive.delete(urls[2]!);
    cluster.killNode(2);
    await sleep(2000);
    const acksBeforeNatsKill = acked.size;
    const searchesBeforeNatsKill = searchesOk;
    // 2. The NATS server leading the task log stream dies (kill -9).
    const leader = await streamLeader(cluster);
    const killedAt = Date.now();
    cluster.killNats(leader);
    // Until a write started after the kill was acknowledged, and writes went on for a while (or 40 s).
    const recoveredAt = () => spans.find(([started]) => started > killedAt)?.[1];
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline) {
      const recovered = recoveredAt();
      if (recovered !== undefined && Date.now() - recovered > 3000) break;
      await sleep(200);
    }
    stop = true;
    await load;
    const firstAckAfterKill = recoveredAt();
    t.log(`writes acknowledged: ${acked.size}; ack latency p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(0)} ms`);
    t.log(`NATS stream leader killed: first write started after it acknowledged ${firstAckAfterKill ? firstAckAfterKill - killedAt : 'none'} ms; searches answered ${searchesOk}`);
    t.deepEqual(writeErrors, [], 'writes through live nodes are delayed, never refused');
    t.deepEqual(searchErrors, [], 'searches through live nodes never fail');
    t.true(acked.size > acksBeforeNatsKill, 'writes go on after the NATS server died');
    t.true(searchesOk > searchesBeforeNatsKill, 'searches go on after the NATS server died');

    // 3. Every acknowledged write is on every live node.
    const lastUid = Math.max(...acked.values());
    for (const url of [urls[0]!, urls[1]!]) t.is(await waitForTask(url, lastUid, 90_000), 'succeeded');
    const ids0 = await allDocumentIds(urls[0]!, 'items');
    const missing = [...acked.keys()].filter((id) => !ids0.has(id));
    t.deepEqual(missing, [], 'acknowledged writes missing on node 1');
    t.deepEqual(await allDocumentIds(urls[1]!, 'items'), ids0);

    // 4. The killed Skein node restarts (the NATS server stays down): it catches up and answers alike.
    await cluster.startNode(cluster.nodes[2]!);
    t.is(await waitForTask(urls[2]!, lastUid, 90_000), 'succeeded');
    const tasks0 = await taskList(urls[0]!);
    t.deepEqual(await taskList(urls[1]!), tasks0);
    t.deepEqual(await taskList(urls[2]!), tasks0);
    t.deepEqual(await allDocumentIds(urls[2]!, 'items'), ids0);
    for (const query of [{ q: 'item' }, { q: 'written 2', limit: 40 }, { q: '', filter: 'writer = 1', limit: 100, facets: ['writer'] }]) {
      const expected = await searchAnswer(urls[0]!, 'items', query);
      t.deepEqual(await searchAnswer(urls[1]!, 'items', query), expected);
      t.deepEqual(await searchAnswer(urls[2]!, 'items', query), expected);
    }
  } finally {
    await cluster.stop();
  }
});
