// Cluster mode: a node frozen (behind by more than its consumer had buffered) while the others compacted the task log past what it applied (its
// progress removed from skein-progress, as for a node gone for good) finds a gap when it resumes: it
// answers 503 `cluster_node_restoring` while it restores the latest cluster snapshot (src/cluster/rejoin.ts),
// then follows the log again and ends with the same tasks and documents as the others.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { allDocumentIds, call, sleep, taskList, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';

function documents(from: number, count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => ({ id: from + i, title: `document ${from + i} river ${i % 7}` }));
}

test.serial('a node that finds the log purged past it restores the latest snapshot and catches up', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  const nats = await connect({ servers: cluster.natsUrls.split(','), timeout: 5000 });
  try {
    const jsm = await jetstreamManager(nats);
    const [a, b, c] = cluster.nodes.map((node) => node.url) as [string, string, string];
    const first = await call(a, 'POST', '/indexes/docs/documents', documents(0, 100));
    for (const url of [a, b, c]) t.is(await waitForTask(url, first.body.taskUid), 'succeeded');
    const frozen = cluster.nodes[2]!.process!;
    frozen.kill('SIGSTOP');
    let resumed = false;
    try {
      // More than the follower's pull (256 messages, already in node 3's socket buffer): the rest is purged before it asks.
      const writer = async (url: string, from: number) => {
        for (let i = 0; i < 150; i++) t.is((await call(url, 'POST', '/indexes/docs/documents', documents(from + i * 2, 2))).status, 202);
      };
      await Promise.all([writer(a, 100), writer(b, 1000), writer(a, 2000), writer(b, 3000)]);
      const snapshot = await call(a, 'POST', '/snapshots');
      t.is(snapshot.status, 202, JSON.stringify(snapshot.body));
      t.is(await waitForTask(a, snapshot.body.taskUid, 120_000), 'succeeded');
      // Node 3 is forgotten by compaction, which then purges past it (below the snapshot's sequence + 1).
      await jsm.streams.purge('skein-progress', { filter: 'skein.progress.skein3' });
      const snapshotSeq = snapshot.body.taskUid + 1;
      const deadline = Date.now() + 60_000;
      while ((await jsm.streams.info('skein-tasks')).state.first_seq <= snapshotSeq) {
        if (Date.now() > deadline) throw new Error('the log was not compacted');
        await sleep(250);
      }
      // Writes after the snapshot: node 3 gets them from the log once restored.
      const after = await call(b, 'POST', '/indexes/docs/documents', documents(5000, 50));
      const deleted = await call(a, 'DELETE', '/indexes/docs/documents/3');
      for (const url of [a, b]) t.is(await waitForTask(url, deleted.body.taskUid), 'succeeded');
      t.true(after.body.taskUid < deleted.body.taskUid);
      frozen.kill('SIGCONT');
      resumed = true;
      // While restoring: 503 cluster_node_restoring (or the port briefly closed between the two servers).
      const seen = new Set<string>();
      const until = Date.now() + 90_000;
      for (;;) {
        const health = await call(c, 'GET', '/health', undefined, 2000).catch(() => ({ status: 0, body: null }));
        const stats = await call(c, 'GET', '/stats', undefined, 2000).catch(() => ({ status: 0, body: null }));
        if (stats.status === 503) seen.add(String(stats.body?.code));
        if (health.status === 200 && seen.has('cluster_node_restoring')) break;
        if (Date.now() > until) throw new Error(`node 3 not back: ${JSON.stringify([...seen])} ${cluster.nodes[2]!.output.slice(-10).join('\n')}`);
        await sleep(50);
      }
      t.true(seen.has('cluster_node_restoring'), JSON.stringify([...seen]));
      t.is(await waitForTask(c, deleted.body.taskUid, 60_000), 'succeeded');
      t.deepEqual(await taskList(c), await taskList(a));
      t.deepEqual([...await allDocumentIds(c, 'docs')].sort(), [...await allDocumentIds(a, 'docs')].sort());
      // It follows the log again.
      const later = await call(c, 'POST', '/indexes/docs/documents', documents(9000, 5));
      t.is(later.status, 202);
      for (const url of [a, b, c]) t.is(await waitForTask(url, later.body.taskUid), 'succeeded');
    } finally {
      if (!resumed) frozen.kill('SIGCONT');
    }
  } finally {
    await nats.close();
    await cluster.stop();
  }
});
