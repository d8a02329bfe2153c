// End to end indexing as a Meilisearch client does it (meilisearch-js addDocumentsInBatches): the
// NDJSON file in payloads of `batch` lines, POSTed one after another (each awaits its 202 only), then
// the last task polled until it succeeded and one search answered. Timed from the first POST to that
// answer: uploads, decoding, scheduling, LMDB commits, shard indexing and the pre-commit search build
// (a task leaving the queue empty succeeds only once the index serves at full speed).
// node post-all.mjs URL INDEX FILE [batch=10000]
import { readFileSync } from 'node:fs';
const [url, index, file, batchArg] = process.argv.slice(2);
const batch = Number(batchArg ?? 10000);
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
const bodies = [];
for (let i = 0; i < lines.length; i += batch) bodies.push(lines.slice(i, i + batch).join('\n') + '\n');
const t0 = performance.now();
let last = 0;
for (const body of bodies) {
  const r = await fetch(`${url}/indexes/${index}/documents`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
  if (r.status !== 202) throw new Error(`POST: ${r.status} ${await r.text()}`);
  last = (await r.json()).taskUid;
}
const posted = performance.now();
for (;;) {
  const task = await (await fetch(`${url}/tasks/${last}`)).json();
  if (task.status === 'succeeded') break;
  if (task.status === 'failed' || task.status === 'canceled') throw new Error(JSON.stringify(task));
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const succeeded = performance.now();
const search = await (await fetch(`${url}/indexes/${index}/search?q=react`)).json();
const answered = performance.now();
const failed = await (await fetch(`${url}/tasks?statuses=failed,canceled&indexUids=${index}`)).json();
if (failed.total > 0) throw new Error(`${failed.total} tasks failed`);
const s = (ms) => (ms / 1000).toFixed(2);
console.log(JSON.stringify({ documents: lines.length, payloads: bodies.length, postedS: s(posted - t0), succeededS: s(succeeded - t0), answeredS: s(answered - t0),
  docsPerS: Math.round(lines.length / ((answered - t0) / 1000)), hits: search.estimatedTotalHits }));
