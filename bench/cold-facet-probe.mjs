// The first searches and facet searches of a fresh server (issue 22): starts `node dist/src/cli.js` on a
// fresh data folder, then per round (a fresh index each, as meilisearch-js's facet_search.test.ts)
// creates an index of 4 documents and prints processingTimeMs and wall time of its first searches.
// usage: [CLI=dist/src/cli.js] node bench/cold-facet-probe.mjs [port] [rounds]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.argv[2] ?? 7881);
const rounds = Number(process.argv[3] ?? 3);
const base = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'cold-facet-'));
const server = spawn(process.execPath, [process.env.CLI ?? 'dist/src/cli.js', '--db-path', join(dir, 'data'), '--http-addr', `127.0.0.1:${port}`, '--master-key', 'masterKey', ...(process.env.PROBE ? ['--log-level', 'debug'] : [])],
  { stdio: ['ignore', 'ignore', process.env.PROBE ? 'inherit' : 'ignore'] });
const headers = { 'content-type': 'application/json', authorization: 'Bearer masterKey' };
const call = async (method, path, body) => {
  const started = performance.now();
  const response = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { body: await response.json().catch(() => null), ms: performance.now() - started };
};
const waitTask = async (uid) => {
  for (;;) {
    const { body } = await call('GET', `/tasks/${uid}`);
    if (['succeeded', 'failed', 'canceled'].includes(body.status)) return body;
    await new Promise((done) => setTimeout(done, 20));
  }
};
try {
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`${base}/health`)).ok) break; } catch { /* not yet */ }
    await new Promise((done) => setTimeout(done, 50));
  }
  const documents = [
    { id: 123, title: 'Pride and Prejudice', genres: ['romance', 'action'] },
    { id: 456, title: 'Le Petit Prince', genres: ['adventure', 'comedy'] },
    { id: 2, title: 'Le Rouge et le Noir', genres: 'romance' },
    { id: 1, title: 'Alice In Wonderland', genres: ['adventure'] },
  ];
  for (let round = 0; round < rounds; round++) {
    const uid = `movies_${round}`;
    await waitTask((await call('POST', '/indexes', { uid })).body.taskUid);
    await waitTask((await call('PATCH', `/indexes/${uid}/settings`, { filterableAttributes: ['genres', 'title'] })).body.taskUid);
    await waitTask((await call('POST', `/indexes/${uid}/documents`, documents)).body.taskUid);
    const line = [];
    for (const [name, path, body] of [
      ['facet', 'facet-search', { facetName: 'genres', facetQuery: 'a' }],
      ['facet+filter', 'facet-search', { facetName: 'genres', facetQuery: 'a', filter: ['genres = action'] }],
      ['facet+q', 'facet-search', { facetName: 'genres', facetQuery: 'a', q: 'Alice' }],
      ['facet again', 'facet-search', { facetName: 'genres', facetQuery: 'a' }],
      ['search q', 'search', { q: 'prince' }],
      ['search facets', 'search', { q: 'le', facets: ['genres'], filter: 'genres = romance' }],
    ]) {
      const { body: answer, ms } = await call('POST', `/indexes/${uid}/${path}`, body);
      line.push(`${name} ${answer.processingTimeMs}ms (wall ${ms.toFixed(1)})`);
    }
    console.log(`round ${round}: ${line.join(', ')}`);
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((done) => server.once('exit', done));
  rmSync(dir, { recursive: true, force: true });
}
