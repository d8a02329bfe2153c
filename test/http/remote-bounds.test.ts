// Requests to /network remotes (src/network/remote-post.ts, ip-policy.ts): `--experimental-allowed-ip-networks`
// as Meilisearch's IP policy (no option: every non-global address refused, a host name included; a
// listed network or `any` allowed), the refusal reported as remote_could_not_send_request in
// remoteErrors; and a hostile remote cannot hold a node: an answer of more than 64 MiB is cut off
// (remote_bad_response), one that trickles past the deadline too (remote_timeout), on useNetwork
// searches, documents fetches and federationOptions.remote alike.
import { spawnSync } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { CLI_PATH, makeTempDir, startTestServer, type Client, type TestServer } from './harness.js';

async function enableNetwork(client: Client): Promise<void> {
  const response = await client.patch('/experimental-features', { network: true });
  if (response.status !== 200) throw new Error(response.text);
}

async function withBooks(client: Client): Promise<void> {
  await client.waitForTask((await client.post('/indexes/books/documents', [{ id: 1, title: 'red river' }, { id: 2, title: 'blue river' }])).body.taskUid);
  await enableNetwork(client);
}

test('without --experimental-allowed-ip-networks a loopback remote is refused (address or host name); a listed network or `any` lets it through', async (t) => {
  const servers: TestServer[] = [];
  try {
    const strict = await startTestServer({ workers: 1, shardsPerIndex: 1, more: { experimentalAllowedIpNetworks: [] } });
    servers.push(strict);
    const other = await startTestServer({ workers: 1, shardsPerIndex: 1 });
    servers.push(other);
    await withBooks(strict.client);
    await withBooks(other.client);
    const configure = (url: string) => strict.client.patch('/network', {
      self: 'here', remotes: { here: { url: `http://127.0.0.1:${strict.port}` }, there: { url } },
      shards: { g1: { remotes: ['here'] }, g2: { remotes: ['there'] } },
    });
    for (const url of [`http://127.0.0.1:${other.port}`, `http://localhost:${other.port}`, `http://[::ffff:127.0.0.1]:${other.port}`]) {
      t.is((await configure(url)).status, 200);
      const search = await strict.client.post('/indexes/books/search', { q: 'river', useNetwork: true });
      t.is(search.status, 200, search.text);
      t.deepEqual(search.body.hits.map((hit: { id: number }) => hit.id), [1, 2], url);
      t.is(search.body.remoteErrors?.there?.code, 'remote_could_not_send_request', url);
      t.regex(search.body.remoteErrors.there.message, /Rejected IP/, url);
      const documents = await strict.client.post('/indexes/books/documents/fetch', { useNetwork: true });
      t.is(documents.body.remoteErrors?.there?.code, 'remote_could_not_send_request', url);
      const federated = await strict.client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', q: 'river', federationOptions: { remote: 'there' } }] });
      t.is(federated.status, 200, federated.text);
      t.is(federated.body.remoteErrors?.there?.code, 'remote_could_not_send_request', url);
    }
    // The same remote, allowed: the harness's servers allow 127.0.0.0/8.
    const open = await other.client.patch('/network', {
      self: 'here', remotes: { here: { url: `http://127.0.0.1:${other.port}` }, there: { url: `http://localhost:${strict.port}` } },
      shards: { g1: { remotes: ['here'] }, g2: { remotes: ['there'] } },
    });
    t.is(open.status, 200);
    const allowed = await other.client.post('/indexes/books/search', { q: 'river', useNetwork: true });
    t.is(allowed.body.remoteErrors, undefined, allowed.text);
    t.is(allowed.body.estimatedTotalHits, 4);
  } finally {
    for (const server of servers) await server.close();
  }
});

test('the CLI refuses an allowed network that is not one', (t) => {
  const run = spawnSync(process.execPath, [CLI_PATH, '--db-path', makeTempDir(), '--experimental-allowed-ip-networks', '10.0.0.0/8,10.0.0.0/40'], { encoding: 'utf8', timeout: 20_000 });
  t.is(run.status, 2, run.stderr);
  t.regex(run.stderr, /10\.0\.0\.0\/40/);
});

/** A remote that answers 200 and then either floods (stops after `cap` bytes) or trickles a byte every 100 ms until the connection closes. */
async function hostileRemote(mode: () => 'flood' | 'drip', cap = 160 * 1024 * 1024): Promise<{ server: Server; port: number; sent: () => number }> {
  let sent = 0;
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const server = createServer((request, response: ServerResponse) => {
    request.resume();
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.write('{"results":[{"candidates":1,"hits":[],"extras":{"pad":"');
    if (mode() === 'drip') {
      const timer = setInterval(() => response.write('a'), 100);
      response.on('close', () => clearInterval(timer));
      return;
    }
    const pump = () => {
      while (sent < cap && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end('"}}]}');
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, sent: () => sent };
}

test('a remote that floods or trickles its answer is cut off: remote_bad_response past 64 MiB, remote_timeout past the deadline', async (t) => {
  let mode: 'flood' | 'drip' = 'flood';
  const hostile = await hostileRemote(() => mode);
  // The flood on a server with the default deadline (reading 64 MiB takes its time on a loaded machine),
  // the trickle on one whose deadline is 1.5 s.
  const servers: TestServer[] = [];
  const node = async (more: Record<string, unknown>) => {
    const server = await startTestServer({ workers: 1, shardsPerIndex: 1, more });
    servers.push(server);
    await withBooks(server.client);
    const set = await server.client.patch('/network', {
      self: 'here', remotes: { here: { url: `http://127.0.0.1:${server.port}` }, hostile: { url: `http://127.0.0.1:${hostile.port}` } },
      shards: { g1: { remotes: ['here'] }, g2: { remotes: ['hostile'] } },
    });
    t.is(set.status, 200, set.text);
    return server;
  };
  try {
    let here = await node({});

    let started = Date.now();
    const flooded = await here.client.post('/indexes/books/search', { q: 'river', useNetwork: true });
    t.is(flooded.status, 200, flooded.text.slice(0, 300));
    t.deepEqual(flooded.body.hits.map((hit: { id: number }) => hit.id), [1, 2]);
    t.is(flooded.body.remoteErrors?.hostile?.code, 'remote_bad_response', flooded.text.slice(0, 300));
    t.regex(flooded.body.remoteErrors.hostile.message, /more than 67108864 bytes/);
    t.true(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
    t.true(hostile.sent() < 100 * 1024 * 1024, `the remote got to send ${hostile.sent()} bytes`);
    const federated = await here.client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', q: 'river', federationOptions: { remote: 'hostile' } }] });
    t.is(federated.body.remoteErrors?.hostile?.code, 'remote_bad_response', federated.text.slice(0, 300));

    mode = 'drip';
    here = await node({ remoteTimeoutMs: 1500 });
    for (const request of [
      () => here.client.post('/indexes/books/search', { q: 'river', useNetwork: true }),
      () => here.client.post('/indexes/books/documents/fetch', { useNetwork: true }),
      () => here.client.post('/multi-search', { federation: {}, queries: [{ indexUid: 'books', q: 'river', federationOptions: { remote: 'hostile' } }] }),
    ]) {
      started = Date.now();
      const slow = await request();
      const elapsed = Date.now() - started;
      t.is(slow.status, 200, slow.text.slice(0, 300));
      t.is(slow.body.remoteErrors?.hostile?.code, 'remote_timeout', slow.text.slice(0, 300));
      t.true(elapsed >= 1400 && elapsed < 8000, `answered after ${elapsed} ms`);
    }
  } finally {
    for (const server of servers) await server.close();
    hostile.server.closeAllConnections();
    await new Promise((resolve) => hostile.server.close(resolve));
  }
});
