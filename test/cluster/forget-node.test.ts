// Cluster mode: DELETE /cluster/nodes/{name} forgets a node gone for good, so its last progress in
// skein-progress no longer holds the task log's compaction back (README "Cluster"). Refused for this
// node itself, for a name that never reported, off cluster mode (bad_request), without network.update.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startTestServer } from '../http/harness.js';
import { call, sleep, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';

const MASTER = 'forget-node-master-key-0123456789';

test.serial('a dead node is forgotten through another node: its progress subject is gone; the errors', async (t) => {
  const cluster = new LocalCluster({ size: 3, skeinArgs: ['--master-key', MASTER] });
  await cluster.start();
  const nats = await connect({ servers: cluster.natsUrls.split(','), timeout: 5000 });
  try {
    const [a, b] = cluster.nodes.map((node) => node.url) as [string, string, string];
    const added = await call(a, 'POST', '/indexes/movies/documents', [{ id: 1, title: 'blue river' }], 15_000, MASTER);
    for (const url of cluster.nodes.map((node) => node.url)) t.is(await waitForTask(url, added.body.taskUid, 60_000, MASTER), 'succeeded');
    const jsm = await jetstreamManager(nats);
    const subjects = async () => Object.keys((await jsm.streams.info('skein-progress', { subjects_filter: '>' })).state.subjects ?? {}).sort();
    // Each node reports what it applied from its follower's watch (about every second).
    const all = ['skein.progress.skein1', 'skein.progress.skein2', 'skein.progress.skein3'];
    for (const deadline = Date.now() + 20_000; JSON.stringify(await subjects()) !== JSON.stringify(all) && Date.now() < deadline;) await sleep(200);
    t.deepEqual(await subjects(), all);
    cluster.killNode(2);

    const searchKey = (await call(a, 'POST', '/keys', { actions: ['search'], indexes: ['*'], expiresAt: null }, 15_000, MASTER)).body.key as string;
    t.is((await call(b, 'DELETE', '/cluster/nodes/skein3', undefined, 15_000, searchKey)).status, 403);
    const self = await call(b, 'DELETE', '/cluster/nodes/skein2', undefined, 15_000, MASTER);
    t.is(self.status, 400, JSON.stringify(self.body));
    t.is(self.body.code, 'bad_request');
    const forgotten = await call(b, 'DELETE', '/cluster/nodes/skein3', undefined, 15_000, MASTER);
    t.is(forgotten.status, 204, JSON.stringify(forgotten.body));
    t.deepEqual(await subjects(), ['skein.progress.skein1', 'skein.progress.skein2']);
    const again = await call(a, 'DELETE', '/cluster/nodes/skein3', undefined, 15_000, MASTER);
    t.is(again.status, 400, JSON.stringify(again.body));
    t.regex(again.body.message, /has no progress/);
  } finally {
    await nats.close();
    await cluster.stop();
  }
  const single = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  try {
    const refused = await single.client.delete('/cluster/nodes/anyone');
    t.is(refused.status, 400);
    t.regex(refused.body.message, /not part of a cluster/);
  } finally {
    await single.close();
  }
});
