// post-all.mjs with uploads paced at RATE MB/s (a client behind a network link, issue 19): payloads of
// BATCH lines, each POST written in 64 KiB chunks at that rate, one after another (each awaits its 202),
// then the last task polled until it succeeded. node post-paced.mjs URL INDEX FILE [batch=10000] [rateMBs=20]
import { readFileSync } from 'node:fs';
import http from 'node:http';
const [url, index, file, batchArg, rateArg] = process.argv.slice(2);
const batch = Number(batchArg ?? 10000); const rate = Number(rateArg ?? 20) * 1e6;
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
const bodies = [];
for (let i = 0; i < lines.length; i += batch) bodies.push(Buffer.from(lines.slice(i, i + batch).join('\n') + '\n'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const agent = new http.Agent({ keepAlive: true });
async function post(body) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/indexes/${index}/documents`, { method: 'POST', agent, headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length } }, (res) => {
      let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => res.statusCode === 202 ? resolve(JSON.parse(text).taskUid) : reject(new Error(text)));
    });
    req.on('error', reject);
    (async () => {
      const t0 = performance.now();
      for (let at = 0; at < body.length; at += 65536) {
        req.write(body.subarray(at, at + 65536));
        const due = t0 + ((at + 65536) / rate) * 1000 - performance.now();
        if (due > 1) await sleep(due);
      }
      req.end();
    })();
  });
}
const t0 = performance.now();
let last = 0;
for (const body of bodies) last = await post(body);
const posted = performance.now();
for (;;) {
  const task = await (await fetch(`${url}/tasks/${last}`)).json();
  if (task.status === 'succeeded') break;
  if (task.status === 'failed' || task.status === 'canceled') throw new Error(JSON.stringify(task));
  await sleep(5);
}
const succeeded = performance.now();
console.log(JSON.stringify({ documents: lines.length, payloads: bodies.length, rateMBs: rate / 1e6, postedS: ((posted - t0) / 1000).toFixed(2), succeededS: ((succeeded - t0) / 1000).toFixed(2), docsPerS: Math.round(lines.length / ((succeeded - t0) / 1000)) }));
agent.destroy();
