// Cluster mode, the Object Store: snapshots travel between a file and the store as streams, with bounded
// memory (task-log.ts putObjectFile / getObjectToFile), and the payloads a node put there are listed in its
// data folder (payload-ledger.ts), so that a node restarted still deletes them once compaction purged
// their tasks.
import test from 'ava';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { TaskLog, PAYLOAD_BUCKET, STREAM } from '../../src/cluster/task-log.js';
import { call, sleep, waitForTask } from './cluster-client.js';
import { freePort, LocalCluster } from './local-cluster.js';

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

test.serial('a 96 MiB snapshot goes to the Object Store and back with bounded memory', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'skein-objstream-'));
  const port = await freePort();
  const server = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(root, 'js')], { stdio: 'ignore' });
  let log: TaskLog | null = null;
  try {
    log = await TaskLog.open({ urls: [`nats://127.0.0.1:${port}`], nodeName: 'streaming-test', replicas: 1, log: () => {} });
    const source = join(root, 'archive.bin');
    const chunk = randomBytes(1 << 20);
    writeFileSync(source, Buffer.concat(Array.from({ length: 96 }, () => chunk)));
    const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    (globalThis as { gc?: () => void }).gc?.();
    const base = memory();
    let peak = base;
    const sampler = setInterval(() => { peak = Math.max(peak, memory()); }, 5);
    try {
      await log.putObjectFile('big-snapshot', source, { 'skein-log-seq': '7' });
      const target = join(root, 'downloaded.bin');
      t.true(await log.getObjectToFile('big-snapshot', target));
      t.is(await sha256(target), await sha256(source));
      t.false(await log.getObjectToFile('no-such-object', join(root, 'none.bin')));
    } finally {
      clearInterval(sampler);
    }
    const grown = (peak - base) / (1 << 20);
    t.log(`peak growth ${grown.toFixed(1)} MiB for a 96 MiB archive`);
    t.true(grown < 48, `memory grew by ${grown.toFixed(1)} MiB`);
  } finally {
    await log?.close();
    server.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
});

test.serial('payloads a node put in the Object Store are deleted once purged, also after the node restarted', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  const connection = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    const [a, b] = cluster.nodes.map((node) => node.url) as [string, string];
    // ~1.2 MB: above the inline limit, so its payload goes through the Object Store.
    const big = Array.from({ length: 600 }, (_, i) => ({ id: i, text: 'x'.repeat(2000) }));
    const write = await call(a, 'POST', '/indexes/items/documents', big);
    t.is(write.status, 202);
    for (const node of cluster.nodes) t.is(await waitForTask(node.url, write.body.taskUid), 'succeeded');
    const store = await new Objm(connection).open(PAYLOAD_BUCKET);
    const payloadNames = async () => {
      const names: string[] = [];
      for (const info of await store.list()) if (info.name.startsWith('skein1.')) names.push(info.name);
      return names;
    };
    t.is((await payloadNames()).length, 1, 'the payload is in the store');
    // Node 1 restarts (kill -9): its list of payloads is in its data folder.
    cluster.killNode(0);
    await cluster.startNode(cluster.nodes[0]!);
    const snapshot = await call(b, 'POST', '/snapshots');
    t.is(snapshot.status, 202);
    for (const node of cluster.nodes) t.is(await waitForTask(node.url, snapshot.body.taskUid, 120_000), 'succeeded');
    const jsm = await jetstreamManager(connection);
    const deadline = Date.now() + 60_000;
    while ((await jsm.streams.info(STREAM)).state.first_seq <= write.body.taskUid + 1) {
      if (Date.now() > deadline) throw new Error('the log was not compacted');
      await sleep(250);
    }
    const gone = Date.now() + 20_000;
    while ((await payloadNames()).length > 0 && Date.now() < gone) await sleep(250);
    t.deepEqual(await payloadNames(), [], 'the purged task\'s payload was deleted by the restarted node');
  } finally {
    await connection.close();
    await cluster.stop();
  }
});
