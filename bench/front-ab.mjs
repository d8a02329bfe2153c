// A/B of the front's per-request overhead (DECISIONS.md "Metrics, router, negotiation: figures"):
// for each build given (a dist/src/cli.js), starts the server on a small index (2,000 tiny documents,
// so the shard's search is cheap and the front's share of a request is large), then wrk POSTs the
// same search for D seconds; builds alternate, R rounds. Prints per build the median queries/s and the
// server's CPU per request (utime+stime from /proc, all threads), which a busy machine disturbs less.
// Usage: node bench/front-ab.mjs SECONDS ROUNDS name=path/to/cli.js name=... [-- extra server flags]
// AB_ACCEPT_ENCODING='gzip, deflate, br' sends that header with every search (compressed answers).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [seconds, rounds, ...rest] = process.argv.slice(2);
const split = rest.indexOf('--');
const builds = (split < 0 ? rest : rest.slice(0, split)).map((arg) => arg.split('='));
const extraFlags = split < 0 ? [] : rest.slice(split + 1);
const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);

const freePort = () => new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
};

async function startServer(cli) {
  const port = await freePort();
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-ab-'));
  const child = spawn(process.execPath, [cli, '--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`, ...extraFlags], { stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`${base}/health`)).ok) break; } catch {}
    await sleep(100);
  }
  const words = ['house', 'garden', 'river', 'night', 'storm', 'light', 'city', 'dream', 'road', 'star'];
  const docs = Array.from({ length: 2000 }, (_, id) => ({ id, title: `${words[id % 10]} ${words[(id * 7) % 10]} ${id}`, year: 1950 + (id % 70) }));
  const task = await (await fetch(`${base}/indexes/movies/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(docs) })).json();
  for (;;) {
    const state = await (await fetch(`${base}/tasks/${task.taskUid}`)).json();
    if (state.status === 'succeeded') break;
    if (state.status === 'failed') throw new Error(JSON.stringify(state));
    await sleep(50);
  }
  return { child, base, dbPath };
}

const script = join(mkdtempSync(join(tmpdir(), 'skein-ab-wrk-')), 'post.lua');
writeFileSync(script, `wrk.method = "POST"\nwrk.body = '{"q":"garden","limit":5}'\nwrk.headers["Content-Type"] = "application/json"\n${process.env.AB_ACCEPT_ENCODING ? `wrk.headers["Accept-Encoding"] = "${process.env.AB_ACCEPT_ENCODING}"\n` : ''}`);

const results = new Map(builds.map(([name]) => [name, []]));
for (let round = 0; round < Number(rounds); round++) {
  for (const [name, cli] of builds) {
    const server = await startServer(cli);
    spawnSync('wrk', ['-t1', '-c16', '-d2s', '-s', script, `${server.base}/indexes/movies/search`]); // warm-up
    const cpuBefore = cpuSeconds(server.child.pid);
    const out = spawnSync('wrk', ['-t1', '-c16', `-d${seconds}s`, '-s', script, `${server.base}/indexes/movies/search`]).stdout.toString();
    const cpu = cpuSeconds(server.child.pid) - cpuBefore;
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    results.get(name).push({ qps: requests / Number(seconds), cpuMicrosPerRequest: (cpu / requests) * 1e6, non2xx });
    console.log(`round ${round + 1} ${name}: ${(requests / Number(seconds)).toFixed(0)} q/s, ${((cpu / requests) * 1e6).toFixed(1)} µs CPU/request${non2xx ? `, non-2xx ${non2xx}` : ''}`);
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(server.dbPath, { recursive: true, force: true });
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, list] of results) {
  console.log(`${name}: median ${median(list.map((r) => r.qps)).toFixed(0)} q/s, median ${median(list.map((r) => r.cpuMicrosPerRequest)).toFixed(1)} µs server CPU per request (${list.length} runs)`);
}
