// Figures for issue 23 (not a test): `node dist/test/cluster/figures.js` on loopback.
//  1. write acknowledgement latency (1-document POSTs, one at a time): a single node vs a cluster node;
//  2. time until writes are acknowledged again after kill -9 of the stream leader NATS server;
//  3. search throughput (wrk, outside the servers) against 1 node vs spread over 3 replicas.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { call, sleep, waitForTask } from './cluster-client.js';
import { freePort, LocalCluster, REPO_ROOT } from './local-cluster.js';
import { STREAM } from '../../src/cluster/task-log.js';

const WRITES = Number(process.env['FIGURE_WRITES'] ?? 300);
const WRK_SECONDS = Number(process.env['FIGURE_WRK_SECONDS'] ?? 8);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function writeLatencies(url: string): Promise<string> {
  const latencies: number[] = [];
  let last = 0;
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    const answer = await call(url, 'POST', '/indexes/lat/documents', [{ id: i, title: `document ${i} about latency` }]);
    latencies.push(performance.now() - started);
    if (answer.status !== 202) throw new Error(JSON.stringify(answer.body));
    last = answer.body.taskUid;
  }
  await waitForTask(url, last);
  return `p50 ${percentile(latencies, 0.5).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms (${WRITES} sequential 1-document POSTs)`;
}

async function seed(url: string): Promise<void> {
  const documents = Array.from({ length: 5000 }, (_, i) => ({ id: i, title: `item ${i} ${['red', 'blue', 'green', 'black'][i % 4]} ${['lamp', 'chair', 'table'][i % 3]}`, n: i % 100 }));
  const answer = await call(url, 'POST', '/indexes/items/documents', documents);
  await waitForTask(url, answer.body.taskUid, 120_000);
}

async function throughput(urls: string[]): Promise<number> {
  const script = join(tmpdir(), `skein-wrk-${process.pid}.lua`);
  writeFileSync(script, 'wrk.method = "POST"\nwrk.body = \'{"q":"blue chair","limit":10}\'\nwrk.headers["Content-Type"] = "application/json"\n');
  const runs = urls.map((url) => new Promise<number>((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${Math.max(2, Math.round(12 / urls.length))}`, `-d${WRK_SECONDS}s`, '-s', script, `${url}/indexes/items/search`]);
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('close', () => {
      const match = /Requests\/sec:\s+([\d.]+)/.exec(out);
      if (match) resolve(Number(match[1])); else reject(new Error(out));
    });
  }));
  const values = await Promise.all(runs);
  return values.reduce((sum, value) => sum + value, 0);
}

async function main(): Promise<void> {
  console.log(`load average at start: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  // Single node, no cluster options.
  const single = mkdtempSync(join(tmpdir(), 'skein-single-'));
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/src/cli.js'), '--db-path', single, '--http-addr', `127.0.0.1:${port}`, '--workers', '1', '--log-level', 'warn'], { stdio: 'ignore' });
  const singleUrl = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 100; i++) { if ((await call(singleUrl, 'GET', '/health').catch(() => null))?.status === 200) break; await sleep(100); }
    console.log(`write ack, single node:     ${await writeLatencies(singleUrl)}`);
    await seed(singleUrl);
    console.log(`search, 1 single node (wrk 12 connections): ${(await throughput([singleUrl])).toFixed(0)} requests/s`);
  } finally {
    child.kill('SIGKILL');
    await sleep(300);
    rmSync(single, { recursive: true, force: true });
  }
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  try {
    const urls = cluster.nodes.map((node) => node.url);
    console.log(`write ack, cluster node:    ${await writeLatencies(urls[0]!)}`);
    const seeded = await call(urls[0]!, 'GET', '/tasks?limit=1');
    await seed(urls[0]!);
    for (const url of urls) await waitForTask(url, seeded.body.results[0].uid + 1, 120_000);
    console.log(`search, 1 of 3 replicas (wrk 12 connections): ${(await throughput([urls[0]!])).toFixed(0)} requests/s`);
    console.log(`search, 3 replicas (3 wrk, 4 connections each): ${(await throughput(urls)).toFixed(0)} requests/s`);
    // Recovery of writes after kill -9 of the stream leader NATS server, one write at a time.
    const connection = await connect({ servers: cluster.nats.map((server) => server.url) });
    const leaderName = (await (await jetstreamManager(connection)).streams.info(STREAM)).cluster?.leader;
    await connection.close();
    const leader = cluster.nats.findIndex((server) => server.name === leaderName);
    let stop = false;
    const acks: Array<[number, number]> = []; // [started, acknowledged]
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const started = Date.now();
        const answer = await call(urls[1]!, 'POST', '/indexes/rec/documents', [{ id: i }], 70_000).catch(() => null);
        if (answer?.status === 202) acks.push([started, Date.now()]);
      }
    })();
    await sleep(1000);
    const killedAt = Date.now();
    cluster.killNats(leader);
    // The first write started after the kill and acknowledged (the one in flight at the kill waits too).
    const firstAfter = () => acks.find(([started]) => started > killedAt)?.[1];
    while (firstAfter() === undefined && Date.now() - killedAt < 60_000) await sleep(50);
    stop = true;
    await writer;
    const recovered = firstAfter();
    console.log(`writes after kill -9 of the stream leader (${leaderName}): acknowledged again after ${recovered ? recovered - killedAt : 'more than 60000'} ms`);
    // Killing a Skein node: the others never stop acknowledging (writes go to the log, not to it).
    const before = Date.now();
    cluster.killNode(0);
    const answer = await call(urls[1]!, 'POST', '/indexes/rec/documents', [{ id: 'after-node-kill' }]);
    console.log(`write through a surviving node right after kill -9 of another Skein node: ${answer.status} in ${Date.now() - before} ms`);
  } finally {
    await cluster.stop();
  }
  console.log(`load average at end: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
}

await main();
