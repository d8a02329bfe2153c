// Cluster mode: API keys and experimental features go through the skein-config stream
// (src/cluster/config-log.ts): a key created through one node authenticates on the others (same uid,
// same key value), a deletion through another node is refused everywhere, features alike, and two
// nodes creating the same uid at once get one success and one refusal, the same state everywhere.
import test from 'ava';
import { call, sleep, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';

const MASTER = 'a-master-key-of-the-cluster-0123456789';

/** Polls until `check` is true; fails with the last answer after `timeoutMs`. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not true after ${timeoutMs} ms`);
    await sleep(100);
  }
}

test.serial('a key created through node 1 authenticates on node 3, deleted through node 2 it is refused on node 1; features alike', async (t) => {
  const cluster = new LocalCluster({ size: 3, skeinArgs: ['--master-key', MASTER] });
  await cluster.start();
  try {
    const [a, b, c] = cluster.nodes.map((node) => node.url) as [string, string, string];
    const added = await call(a, 'POST', '/indexes/movies/documents', [{ id: 1, title: 'blue river' }], 15_000, MASTER);
    t.is(added.status, 202, JSON.stringify(added.body));
    for (const url of [a, b, c]) t.is(await waitForTask(url, added.body.taskUid, 60_000, MASTER), 'succeeded');

    const created = await call(a, 'POST', '/keys', { name: 'searcher', actions: ['search'], indexes: ['movies'], expiresAt: null }, 15_000, MASTER);
    t.is(created.status, 201, JSON.stringify(created.body));
    const { key, uid } = created.body as { key: string; uid: string };
    // The accepting node answers once it applied the change itself.
    t.is((await call(a, 'POST', '/indexes/movies/search', { q: 'blue' }, 15_000, key)).status, 200);
    await eventually('the key searches on node 3', async () => (await call(c, 'POST', '/indexes/movies/search', { q: 'blue' }, 15_000, key)).status === 200);
    for (const url of [b, c]) {
      const fetched = await call(url, 'GET', `/keys/${uid}`, undefined, 15_000, MASTER);
      t.is(fetched.status, 200, `${url}: ${JSON.stringify(fetched.body)}`);
      t.deepEqual(fetched.body, created.body, `${url} holds the same key`);
    }
    // An update through node 3 shows on node 1.
    const renamed = await call(c, 'PATCH', `/keys/${uid}`, { name: 'renamed' }, 15_000, MASTER);
    t.is(renamed.status, 200, JSON.stringify(renamed.body));
    await eventually('the new name on node 1', async () => (await call(a, 'GET', `/keys/${uid}`, undefined, 15_000, MASTER)).body.name === 'renamed');

    const deleted = await call(b, 'DELETE', `/keys/${uid}`, undefined, 15_000, MASTER);
    t.is(deleted.status, 204, JSON.stringify(deleted.body));
    t.is((await call(b, 'POST', '/indexes/movies/search', { q: 'blue' }, 15_000, key)).status, 403);
    await eventually('the deleted key refused on node 1', async () => (await call(a, 'POST', '/indexes/movies/search', { q: 'blue' }, 15_000, key)).status === 403);
    await eventually('the deleted key refused on node 3', async () => (await call(c, 'POST', '/indexes/movies/search', { q: 'blue' }, 15_000, key)).status === 403);

    // Hostile: the same uid created through two nodes at once: one 201, one api_key_already_exists.
    const twinUid = '0b3f9a52-4f3e-4c7e-9d0a-6f1f3d2b8c11';
    const body = { uid: twinUid, actions: ['search'], indexes: ['*'], expiresAt: null };
    const twins = await Promise.all([a, c].map((url) => call(url, 'POST', '/keys', body, 15_000, MASTER)));
    t.deepEqual(twins.map((answer) => answer.status).sort(), [201, 409], JSON.stringify(twins.map((answer) => answer.body)));
    t.is(twins.find((answer) => answer.status === 409)!.body.code, 'api_key_already_exists');
    const winner = twins.find((answer) => answer.status === 201)!.body;
    for (const url of [a, b, c]) {
      await eventually(`the twin key on ${url}`, async () => (await call(url, 'GET', `/keys/${twinUid}`, undefined, 15_000, MASTER)).status === 200);
      t.deepEqual((await call(url, 'GET', `/keys/${twinUid}`, undefined, 15_000, MASTER)).body, winner);
    }
    const lists = await Promise.all([a, b, c].map(async (url) => JSON.stringify((await call(url, 'GET', '/keys?limit=100', undefined, 15_000, MASTER)).body.results.map((k: any) => [k.uid, k.key, k.name, k.actions]))));
    t.is(lists[1], lists[0]);
    t.is(lists[2], lists[0]);

    // Read-your-writes across nodes: node 3 frozen while node 1 creates a key; thawed, it is asked for
    // the key at once (GET, PATCH, DELETE): it first applies what the config log holds, no 404.
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      cluster.nodes[2]!.process!.kill('SIGSTOP');
      let fresh;
      try {
        fresh = await call(a, 'POST', '/keys', { actions: ['search'], indexes: ['*'], expiresAt: null }, 15_000, MASTER);
      } finally {
        cluster.nodes[2]!.process!.kill('SIGCONT');
      }
      t.is(fresh.status, 201, JSON.stringify(fresh.body));
      const answer = await call(c, method, `/keys/${fresh.body.uid}`, method === 'PATCH' ? { name: 'just made' } : undefined, 15_000, MASTER);
      t.is(answer.status, method === 'DELETE' ? 204 : 200, `${method}: ${JSON.stringify(answer.body)}`);
      if (method === 'PATCH') t.is(answer.body.name, 'just made');
    }

    // Features: changed through node 2, seen on nodes 1 and 3.
    const patched = await call(b, 'PATCH', '/experimental-features', { containsFilter: true }, 15_000, MASTER);
    t.is(patched.status, 200, JSON.stringify(patched.body));
    t.is(patched.body.containsFilter, true);
    for (const url of [a, c]) {
      await eventually(`containsFilter on ${url}`, async () => (await call(url, 'GET', '/experimental-features', undefined, 15_000, MASTER)).body.containsFilter === true);
    }
    // A restarted node keeps them and applies what it missed.
    cluster.killNode(2);
    await call(a, 'PATCH', '/experimental-features', { containsFilter: false, metrics: true }, 15_000, MASTER);
    await cluster.startNode(cluster.nodes[2]!);
    const features = (await call(cluster.nodes[2]!.url, 'GET', '/experimental-features', undefined, 15_000, MASTER)).body;
    t.is(features.containsFilter, false, 'health waits for the config log too');
    t.is(features.metrics, true);
    t.is((await call(cluster.nodes[2]!.url, 'GET', `/keys/${twinUid}`, undefined, 15_000, MASTER)).status, 200);
  } finally {
    await cluster.stop();
  }
});
