// Cluster mode, a node joining from a snapshot (issue 23): POST /snapshots goes through the log (every
// node takes one); the publishing node uploads its archive to the Object Store. Once every node applied
// past it, the nodes compact the log below the snapshot's sequence, so a new node can only join from
// the archive: it imports it, follows the log after it, and answers like the others.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { allDocumentIds, call, searchAnswer, sleep, taskList, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';
import { PAYLOAD_BUCKET, STREAM } from '../../src/cluster/task-log.js';
import { SNAPSHOT_OBJECT } from '../../src/cluster/snapshot-exchange.js';

function items(from: number, count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => ({ id: from + i, title: `item ${from + i} ${['alpha', 'beta', 'gamma'][(from + i) % 3]}`, n: (from + i) % 17 }));
}

test.serial('a node joining after the log was purged below a snapshot starts from the snapshot and answers identically', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  const connection = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    const [a, b] = cluster.nodes.map((node) => node.url) as [string, string];
    t.is((await call(a, 'PATCH', '/indexes/items/settings', { filterableAttributes: ['n'], sortableAttributes: ['n'] })).status, 202);
    for (let i = 0; i < 4; i++) t.is((await call(i % 2 ? b : a, 'POST', '/indexes/items/documents', items(i * 100, 100))).status, 202);
    // A payload above the inline limit, in the Object Store until compaction purges its task.
    const big = items(1000, 300).map((item) => ({ ...item, text: 'y'.repeat(4000) }));
    t.is((await call(a, 'POST', '/indexes/items/documents', big)).status, 202);
    const snapshot = await call(b, 'POST', '/snapshots');
    t.is(snapshot.status, 202);
    // Writes after the snapshot: the new node gets them from the log.
    t.is((await call(a, 'POST', '/indexes/items/documents', items(400, 100))).status, 202);
    const deletion = await call(a, 'DELETE', '/indexes/items/documents/5');
    for (const url of [a, b]) t.is(await waitForTask(url, deletion.body.taskUid), 'succeeded');

    const store = await new Objm(connection).open(PAYLOAD_BUCKET);
    const deadline = Date.now() + 60_000;
    while (!(await store.info(SNAPSHOT_OBJECT)) && Date.now() < deadline) await sleep(200);
    t.truthy(await store.info(SNAPSHOT_OBJECT), 'the publishing node uploaded its snapshot');
    // Compaction: every node applied past the snapshot's sequence (taskUid + 1), so the log keeps what follows it only.
    const jsm = await jetstreamManager(connection);
    const keepFrom = snapshot.body.taskUid + 2;
    const compactDeadline = Date.now() + 30_000;
    while ((await jsm.streams.info(STREAM)).state.first_seq < keepFrom && Date.now() < compactDeadline) await sleep(200);
    t.is((await jsm.streams.info(STREAM)).state.first_seq, keepFrom, 'the log is compacted up to the snapshot');
    const objectsDeadline = Date.now() + 15_000;
    const names = async () => (await store.list()).map((info) => info.name).sort();
    while ((await names()).length > 1 && Date.now() < objectsDeadline) await sleep(200);
    t.deepEqual(await names(), [SNAPSHOT_OBJECT], 'the payload of a purged task is deleted');

    const joined = await cluster.addNode();
    t.is(await waitForTask(joined.url, deletion.body.taskUid, 60_000), 'succeeded');
    const tasksA = await taskList(a);
    t.deepEqual(await taskList(joined.url), tasksA);
    const idsA = await allDocumentIds(a, 'items');
    t.is(idsA.size, 799);
    t.deepEqual(await allDocumentIds(joined.url, 'items'), idsA);
    for (const query of [{ q: 'item' }, { q: 'beta', filter: 'n < 5', facets: ['n'] }, { q: '', sort: ['n:desc'], limit: 40 }]) {
      t.deepEqual(await searchAnswer(joined.url, 'items', query), await searchAnswer(a, 'items', query), JSON.stringify(query));
    }
    // And it keeps following: a write through it lands everywhere.
    const later = await call(joined.url, 'POST', '/indexes/items/documents', items(900, 10));
    t.is(later.status, 202);
    for (const url of [a, b, joined.url]) t.is(await waitForTask(url, later.body.taskUid), 'succeeded');
  } finally {
    await connection.close();
    await cluster.stop();
  }
});

test.serial('a node cannot join a log purged below every snapshot: it refuses to start instead of missing tasks', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  const connection = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    const a = cluster.nodes[0]!.url;
    let last = 0;
    for (let i = 0; i < 3; i++) last = (await call(a, 'POST', '/indexes/items/documents', items(i * 10, 10))).body.taskUid;
    await waitForTask(a, last);
    const jsm = await jetstreamManager(connection);
    await jsm.streams.purge(STREAM, { seq: last + 1 });
    const error = await t.throwsAsync(cluster.addNode());
    t.regex(error!.message, /no cluster snapshot exists: this node cannot join/);
  } finally {
    await connection.close();
    await cluster.stop();
  }
});

test.serial('compaction waits for a node that is down: restarted, it finds every task it had not applied', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  const connection = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    const [a, , c] = cluster.nodes.map((node) => node.url) as [string, string, string];
    const first = await call(a, 'POST', '/indexes/items/documents', items(0, 50));
    t.is(await waitForTask(c, first.body.taskUid), 'succeeded');
    await sleep(1500); // its progress reported
    cluster.killNode(2);
    for (let i = 1; i < 4; i++) t.is((await call(a, 'POST', '/indexes/items/documents', items(i * 50, 50))).status, 202);
    const snapshot = await call(a, 'POST', '/snapshots');
    const after = await call(a, 'POST', '/indexes/items/documents', items(200, 50));
    t.is(await waitForTask(a, after.body.taskUid), 'succeeded');
    const store = await new Objm(connection).open(PAYLOAD_BUCKET);
    const deadline = Date.now() + 60_000;
    while (!(await store.info(SNAPSHOT_OBJECT)) && Date.now() < deadline) await sleep(200);
    t.truthy(await store.info(SNAPSHOT_OBJECT));
    await sleep(5000); // a few compaction rounds
    const jsm = await jetstreamManager(connection);
    t.true((await jsm.streams.info(STREAM)).state.first_seq <= first.body.taskUid + 2, 'nothing the stopped node needs is purged');
    await cluster.startNode(cluster.nodes[2]!);
    t.is(await waitForTask(c, after.body.taskUid), 'succeeded');
    t.deepEqual(await allDocumentIds(c, 'items'), await allDocumentIds(a, 'items'));
    // Now every node passed the snapshot: the log is compacted up to it.
    const compactDeadline = Date.now() + 30_000;
    while ((await jsm.streams.info(STREAM)).state.first_seq < snapshot.body.taskUid + 2 && Date.now() < compactDeadline) await sleep(200);
    t.is((await jsm.streams.info(STREAM)).state.first_seq, snapshot.body.taskUid + 2);
  } finally {
    await connection.close();
    await cluster.stop();
  }
});
