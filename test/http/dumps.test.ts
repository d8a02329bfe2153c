// Dumps (src/dump): POST /dumps writes Meilisearch's format v6, --import-dump rebuilds a server from one.
// Round trip with 100k documents, a Meilisearch-written layout imported, Skein's dump read with the
// checks of Meilisearch's v6 reader, a kill -9 during a dump, refusals and a failed import.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import * as tar from 'tar';
import {
  freePort, makeTempDir as makeDir, REPO_ROOT, sleep, spawnChildServer, startTestServer, stopChild, withTempDir, type Client,
} from './harness.js';

const MASTER_KEY = 'dumps-master-key-0123456789';

/** Temporary folders of this file (dump folders, unpacked dumps), removed after the last test. */
const made: string[] = [];
function makeTempDir(prefix: string): string {
  const dir = makeDir(prefix);
  made.push(dir);
  return dir;
}
test.after.always(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const FIXTURE = join(REPO_ROOT, 'test/http/fixtures/meilisearch-dump-v6');

/** 100k documents from the npm fixture (rows repeated), with numbers JavaScript would rewrite. */
function npmDocuments(count: number): string {
  const rows = readFileSync(join(REPO_ROOT, 'test/http/fixtures/npm-packages.tsv'), 'utf8').split('\n').slice(1).filter(Boolean)
    .map((line) => line.split('\t'));
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const [name, version, downloads, summary] = rows[i % rows.length]!;
    // Literals kept as written: a u64 beyond 2^53, a float with a trailing zero, an exponent.
    out.push(`{"id":${i},"name":${JSON.stringify(`${name}-${i}`)},"version":${JSON.stringify(version)},"downloads":${Number(downloads) || 0},`
      + `"summary":${JSON.stringify(summary ?? '')},"big":1844674407370955${String(i % 10_000).padStart(4, '0')},"ratio":${i % 7}.10,"tiny":1e-7,`
      + `"tags":[${JSON.stringify(name!.slice(0, 3))},"pkg"],"owner":{"name":"o${i % 97}"}}`);
  }
  return out.join('\n');
}

/** Enqueues an NDJSON addition and resolves once it is processing (the next tasks then wait behind it). */
async function enqueueAndWaitProcessing(client: Client, path: string, ndjson: string): Promise<number> {
  const uid = await client.enqueue('POST', path, { raw: ndjson, contentType: 'application/x-ndjson' });
  for (;;) {
    const task = (await client.get(`/tasks/${uid}`)).body;
    if (task.status === 'processing') return uid;
    if (task.status !== 'enqueued') throw new Error(`task ${uid} finished before the test could enqueue behind it`);
    await sleep(2);
  }
}

const EVERY_SETTING = {
  displayedAttributes: ['name', 'version', 'summary', 'big', 'ratio', 'id', 'downloads', 'tags', 'owner', 'tiny'],
  searchableAttributes: ['name', 'summary', 'owner.name'],
  filterableAttributes: ['downloads', 'tags', { attributePatterns: ['owner.*'], features: { facetSearch: true, filter: { equality: true, comparison: false } } }],
  sortableAttributes: ['downloads', 'name'],
  rankingRules: ['words', 'typo', 'sort', 'proximity', 'attributeRank', 'wordPosition', 'exactness', 'downloads:desc'],
  stopWords: ['the', 'a', 'of'],
  nonSeparatorTokens: ['#'],
  separatorTokens: ['|'],
  dictionary: ['J.R.R.'],
  synonyms: { js: ['javascript'], ts: ['typescript'] },
  distinctAttribute: 'version',
  proximityPrecision: 'byAttribute',
  typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 4, twoTypos: 10 }, disableOnWords: ['react'], disableOnAttributes: ['version'], disableOnNumbers: true },
  faceting: { maxValuesPerFacet: 50, sortFacetValuesBy: { tags: 'count' } },
  pagination: { maxTotalHits: 5000 },
  searchCutoffMs: 800,
  localizedAttributes: [{ attributePatterns: ['summary'], locales: ['eng'] }],
  facetSearch: false,
  prefixSearch: 'disabled',
};

async function allDocumentsText(client: Client, uid: string): Promise<string[]> {
  const pages: string[] = [];
  for (let offset = 0; ; offset += 20_000) {
    const page = await client.get(`/indexes/${uid}/documents?offset=${offset}&limit=20000`);
    if (page.status !== 200) throw new Error(page.text);
    pages.push(page.text);
    if (page.body.results.length < 20_000) return pages;
  }
}

async function waitAll(client: Client, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await client.get('/tasks?statuses=enqueued,processing&limit=1')).body.total > 0) {
    if (Date.now() > deadline) throw new Error('tasks still pending');
    await sleep(50);
  }
}

async function dumpNow(client: Client, dumpDir: string): Promise<string> {
  const task = await client.waitForTask(await client.enqueue('POST', '/dumps'), 120_000);
  if (task.status !== 'succeeded') throw new Error(JSON.stringify(task));
  return join(dumpDir, `${task.details.dumpUid}.dump`);
}

test('round trip: indexes, 100k documents byte-identical, settings of every kind, keys, finished and enqueued tasks', async (t) => {
  t.timeout(300_000);
  const dumpDir = makeTempDir('skein-dumps-');
  const source = await startTestServer({ masterKey: MASTER_KEY, dumpDir, workers: 1, shardsPerIndex: 2 });
  let target: Awaited<ReturnType<typeof startTestServer>> | null = null;
  try {
    const c = source.client;
    await c.run('POST', '/indexes', { body: { uid: 'npm', primaryKey: 'id' } });
    await c.run('PATCH', '/indexes/npm/settings', { body: EVERY_SETTING });
    await c.run('POST', '/indexes/small/documents?primaryKey=sku', { body: [{ sku: 'a-1', price: 10.5 }, { sku: 'b-2', price: 3 }] });
    await c.run('POST', '/indexes', { body: { uid: 'empty' } });
    await c.run('DELETE', '/indexes/small/documents/b-2');
    const failed = await c.waitForTask(await c.enqueue('POST', '/indexes/npm/documents', { body: [{ noId: true }] }));
    t.is(failed.status, 'failed');
    const key = await c.post('/keys', { description: 'pattern key', actions: ['search', 'documents.get'], indexes: ['np*', 'small'], expiresAt: '2099-01-01T00:00:00Z' });
    t.is(key.status, 201);
    // The 100k documents are indexed while an addition then the dump are enqueued: the dump is selected
    // next (before older index tasks, as Meilisearch), so the addition is dumped enqueued, payload included.
    const bulk = await enqueueAndWaitProcessing(c, '/indexes/npm/documents', npmDocuments(100_000));
    const enqueuedAdd = await c.enqueue('POST', '/indexes/small/documents', { raw: '{"sku":"c-3","price":12345678901234567890}\n{"sku":"d-4","price":0.30}', contentType: 'application/x-ndjson' });
    const dumpUid = await c.enqueue('POST', '/dumps');
    t.is((await c.waitForTask(bulk, 120_000)).status, 'succeeded');
    const dumpTask = await c.waitForTask(dumpUid, 120_000);
    t.is(dumpTask.status, 'succeeded', JSON.stringify(dumpTask));
    t.regex(dumpTask.details.dumpUid, /^\d{8}-\d{9}$/);
    const file = join(dumpDir, `${dumpTask.details.dumpUid}.dump`);
    t.true(existsSync(file));
    t.deepEqual(readdirSync(dumpDir), [`${dumpTask.details.dumpUid}.dump`]);
    const addedLater = await c.waitForTask(enqueuedAdd);
    t.true(addedLater.startedAt > dumpTask.finishedAt, 'the enqueued addition ran after the dump');
    await waitAll(c);
    const tasksBefore = (await c.get('/tasks?limit=1000')).body.results as any[];
    const batchesBefore = (await c.get('/batches?limit=1000')).body.results as any[];

    target = await startTestServer({ masterKey: MASTER_KEY, importDump: file, workers: 1, shardsPerIndex: 3 });
    const d = target.client;
    await waitAll(d);
    // `small` was updated again by the addition that was enqueued in the dump (it ran on each side).
    const indexes = async (client: Client) => (await client.get('/indexes?limit=100')).body.results
      .map((index: any) => (index.uid === 'small' ? { ...index, updatedAt: null } : index));
    t.deepEqual(await indexes(d), await indexes(c));
    for (const uid of ['npm', 'small', 'empty']) {
      t.deepEqual(await allDocumentsText(d, uid), await allDocumentsText(c, uid), `documents of ${uid}`);
      t.is((await d.get(`/indexes/${uid}/settings`)).text, (await c.get(`/indexes/${uid}/settings`)).text, `settings of ${uid}`);
    }
    t.is((await d.get('/indexes/npm/documents/3')).text, (await c.get('/indexes/npm/documents/3')).text);
    t.is((await d.get('/keys?limit=100')).text, (await c.get('/keys?limit=100')).text, 'same keys: uids, values, expiry');
    // The pattern key works on the imported server with the same value.
    t.is((await d.withKey(key.body.key).post('/indexes/npm/search', { q: 'react', limit: 1 })).status, 200);
    const search = { q: 'react', filter: 'downloads > 1000', sort: ['downloads:desc'], limit: 5 };
    t.deepEqual((await d.post('/indexes/npm/search', search)).body.hits, (await c.post('/indexes/npm/search', search)).body.hits);
    // Tasks: the history as it was at the dump; the addition enqueued then ran again after the import.
    const tasksAfter = (await d.get('/tasks?limit=1000')).body.results as any[];
    const byUid = new Map(tasksAfter.map((task) => [task.uid, task]));
    for (const task of tasksBefore) {
      const imported = byUid.get(task.uid);
      t.truthy(imported, `task ${task.uid}`);
      if (task.uid < enqueuedAdd && task.uid !== dumpUid) t.deepEqual(imported, task, `task ${task.uid}`);
    }
    t.like(byUid.get(dumpUid), { type: 'dumpCreation', status: 'succeeded', details: { dumpUid: dumpTask.details.dumpUid } });
    t.like(byUid.get(enqueuedAdd), { status: 'succeeded', details: { receivedDocuments: 2, indexedDocuments: 2 } });
    // Batches: every batch before the dump's as it was; the dump's own finished as its task.
    const batchesAfter = new Map(((await d.get('/batches?limit=1000')).body.results as any[]).map((batch) => [batch.uid, batch]));
    t.true(batchesBefore.length > 5);
    for (const batch of batchesBefore.filter((entry) => entry.uid < dumpTask.batchUid)) t.deepEqual(batchesAfter.get(batch.uid), batch, `batch ${batch.uid}`);
    t.like(batchesAfter.get(dumpTask.batchUid), { details: { dumpUid: dumpTask.details.dumpUid }, stats: { totalNbTasks: 1, status: { succeeded: 1 }, types: { dumpCreation: 1 } } });
    t.not(batchesAfter.get(dumpTask.batchUid).finishedAt, null);
    t.is((await d.get(`/batches?uids=${dumpTask.batchUid}`)).body.results.length, 1, 'the imported batch answers the uids filter');
    t.true(byUid.get(enqueuedAdd).batchUid > dumpTask.batchUid, 'batches after the import continue the uid sequence');
    // New tasks continue the uid sequence.
    t.is(await d.enqueue('POST', '/indexes', { body: { uid: 'after' } }), Math.max(...tasksBefore.map((task) => task.uid)) + 1);
  } finally {
    await source.close();
    await target?.close();
  }
});

/** Meilisearch's V6Reader::open and the serde types it reads, written as checks (crates/dump/src/reader/v6/mod.rs, lib.rs). */
function readLikeMeilisearch(t: any, dir: string): { tasks: any[]; keys: any[] } {
  const metadata = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8'));
  t.deepEqual(Object.keys(metadata), ['dumpVersion', 'dbVersion', 'dumpDate']);
  t.is(metadata.dumpVersion, 'V6');
  t.regex(metadata.dbVersion, /^\d+\.\d+\.\d+$/);
  t.false(Number.isNaN(Date.parse(metadata.dumpDate)));
  t.regex(readFileSync(join(dir, 'instance_uid.uuid'), 'utf8'), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const features = JSON.parse(readFileSync(join(dir, 'experimental-features.json'), 'utf8'));
  for (const value of Object.values(features)) t.is(typeof value, 'boolean');
  t.like(JSON.parse(readFileSync(join(dir, 'network.json'), 'utf8')), { self: null, remotes: {} });
  t.deepEqual(JSON.parse(readFileSync(join(dir, 'webhooks.json'), 'utf8')), { webhooks: {} });
  const batches = readFileSync(join(dir, 'batches/queue.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  t.true(batches.length > 0, 'batches are dumped');
  for (const batch of batches) {
    for (const field of ['uid', 'details', 'stats', 'startedAt', 'finishedAt']) t.true(Object.hasOwn(batch, field), `batch field ${field}`);
    for (const field of Object.keys(batch)) t.true(['uid', 'details', 'stats', 'startedAt', 'finishedAt', 'enqueuedAt', 'stopReason'].includes(field), `batch field ${field}`);
    for (const field of ['totalNbTasks', 'status', 'types', 'indexUids']) t.true(Object.hasOwn(batch.stats, field), `batch stats field ${field}`);
  }
  const keys = readFileSync(join(dir, 'keys.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  for (const key of keys) {
    for (const field of ['uid', 'actions', 'indexes', 'expires_at', 'created_at', 'updated_at']) t.true(Object.hasOwn(key, field), `key field ${field}`);
    t.false(Object.hasOwn(key, 'key'), 'a key value is never dumped');
    for (const field of Object.keys(key)) t.true(['description', 'name', 'uid', 'actions', 'indexes', 'expires_at', 'created_at', 'updated_at'].includes(field), field);
  }
  const KINDS = ['documentImport', 'documentDeletion', 'documentClear', 'documentDeletionByFilter', 'documentEdition', 'settings', 'indexDeletion',
    'indexCreation', 'indexUpdate', 'indexSwap', 'taskCancelation', 'tasksDeletion', 'dumpCreation', 'snapshotCreation', 'export', 'upgradeDatabase', 'indexCompaction'];
  const DETAILS = ['DocumentAdditionOrUpdate', 'SettingsUpdate', 'IndexInfo', 'DocumentDeletion', 'DocumentDeletionByFilter', 'DocumentEdition', 'ClearAll',
    'TaskCancelation', 'TaskDeletion', 'Dump', 'IndexSwap', 'Export', 'UpgradeDatabase', 'IndexCompaction'];
  const tasks = readFileSync(join(dir, 'tasks/queue.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  for (const task of tasks) {
    for (const field of ['uid', 'status', 'type', 'enqueuedAt']) t.true(Object.hasOwn(task, field), `task field ${field}`);
    t.true(['enqueued', 'processing', 'succeeded', 'failed', 'canceled'].includes(task.status));
    const kind = typeof task.type === 'string' ? task.type : Object.keys(task.type)[0];
    t.true(KINDS.includes(kind), `kind ${kind}`);
    if (typeof task.type === 'object') for (const field of Object.keys(task.type[kind])) t.regex(field, /^[a-z_]+$/, `snake_case KindDump field ${field}`);
    if (kind === 'documentImport') t.true(['ReplaceDocuments', 'UpdateDocuments'].includes(task.type[kind].method));
    if (task.details !== undefined) {
      const variant = Object.keys(task.details)[0]!;
      t.true(DETAILS.includes(variant), `details ${variant}`);
      if (variant !== 'SettingsUpdate') for (const field of Object.keys(task.details[variant])) t.regex(field, /^[a-z_]+$/);
    }
    for (const nullable of ['canceledBy', 'details', 'error', 'startedAt', 'finishedAt']) t.not(task[nullable], null, `${nullable} is left out, not null`);
    if (task.status === 'enqueued' && kind === 'documentImport') t.true(existsSync(join(dir, `tasks/update_files/${task.uid}.jsonl`)));
  }
  for (const uid of readdirSync(join(dir, 'indexes'))) {
    const index = JSON.parse(readFileSync(join(dir, 'indexes', uid, 'metadata.json'), 'utf8'));
    t.deepEqual(Object.keys(index), ['uid', 'primaryKey', 'createdAt', 'updatedAt']);
    t.is(index.uid, uid);
    const settings = JSON.parse(readFileSync(join(dir, 'indexes', uid, 'settings.json'), 'utf8'));
    t.true(Array.isArray(settings.rankingRules));
    for (const line of readFileSync(join(dir, 'indexes', uid, 'documents.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      t.is(typeof JSON.parse(line), 'object');
    }
  }
  return { tasks, keys };
}

test('Skein\'s dump passes the checks of Meilisearch\'s v6 reader (file names, JSON shapes, field names, enum spellings)', async (t) => {
  const dumpDir = makeTempDir('skein-dumps-');
  const server = await startTestServer({ dumpDir, workers: 1, shardsPerIndex: 2 });
  try {
    const c = server.client;
    await c.run('POST', '/indexes/movies/documents', { body: [{ id: 1, title: 'a', n: 1.5 }, { id: 2, title: 'b' }] });
    await c.run('PATCH', '/indexes/movies/settings', { body: { stopWords: ['the'], synonyms: { a: ['b'] } } });
    await c.run('PUT', '/indexes/movies/documents', { body: [{ id: 2, more: true }] });
    await c.run('DELETE', '/indexes/movies/documents/1');
    await c.run('POST', '/indexes/movies/documents/delete', { body: { filter: 'id = 7' } }).catch(() => {});
    await c.run('DELETE', '/indexes/movies/documents');
    await c.run('POST', '/indexes', { body: { uid: 'other', primaryKey: 'pk' } });
    await c.run('PATCH', '/indexes/other', { body: { primaryKey: 'pk2' } });
    await c.run('DELETE', '/indexes/other');
    await c.run('POST', '/tasks/cancel?statuses=enqueued');
    await c.run('DELETE', '/tasks?uids=0');
    await c.waitForTask(await c.enqueue('POST', '/indexes/movies/documents', { body: [{ nope: 1 }] }));
    await enqueueAndWaitProcessing(c, '/indexes/bulk/documents', npmDocuments(50_000));
    const queued = await c.enqueue('POST', '/indexes/movies/documents', { body: [{ id: 9 }] });
    const dump = await c.enqueue('POST', '/dumps');
    const task = await c.waitForTask(dump, 60_000);
    await c.waitForTask(queued, 60_000);
    const dir = makeTempDir('skein-dump-read-');
    await tar.x({ file: join(dumpDir, `${task.details.dumpUid}.dump`), cwd: dir });
    const { tasks } = readLikeMeilisearch(t, dir);
    const self = tasks.find((entry) => entry.uid === dump);
    t.like(self, { status: 'succeeded', details: { Dump: { dump_uid: task.details.dumpUid } } });
    t.truthy(self.type.dumpCreation.keys);
    t.like(tasks.find((entry) => entry.uid === queued), { status: 'enqueued', type: { documentImport: { method: 'ReplaceDocuments', documents_count: 1 } } });
    t.true(tasks.some((entry) => entry.type === 'documentClear'));
    t.true(tasks.some((entry) => entry.type === 'indexDeletion'));
    t.true(tasks.some((entry) => Array.isArray(entry.type.taskCancelation?.tasks)), 'a RoaringBitmap is serialized as its bytes');
    t.true(tasks.some((entry) => entry.error?.code === 'missing_document_id'));
  } finally {
    await server.close();
  }
});

test('a dump laid out as Meilisearch v1.x writes it (its dump crate\'s test asset) imports into Skein', async (t) => {
  await withTempDir(async (dbPath) => {
    const file = join(makeTempDir('skein-dumps-'), 'meilisearch.dump');
    const entries = readdirSync(FIXTURE).filter((name) => name !== 'README.md');
    await tar.c({ gzip: true, cwd: FIXTURE, file, portable: true }, entries);
    const server = await startTestServer({ dbPath, importDump: file, workers: 1, shardsPerIndex: 2, masterKey: MASTER_KEY });
    try {
      const c = server.client;
      await waitAll(c);
      t.like((await c.get('/indexes/test')).body, { uid: 'test', primaryKey: 'id', createdAt: '2023-07-06T07:07:41.364694Z' });
      const documents = await c.get('/indexes/test/documents?limit=10');
      t.is(documents.text, '{"results":[{"id":1,"name":"this is a test dump to check that experimental features work as intended"},'
        + '{"id":2,"name":"an enqueued document","big":12345678901234567890},{"id":3,"name":"another","f":1.10}],"offset":0,"limit":10,"total":3}');
      t.deepEqual((await c.get('/indexes/test/settings/stop-words')).body, ['the']);
      const keys = (await c.get('/keys')).body.results;
      t.deepEqual(keys.map((key: any) => key.uid).sort(), ['6a350146-4a84-4713-8f1c-53ae9997c74b', 'db7bcc81-78a5-44ac-b1a7-7364c28d91ae']);
      const tasks = (await c.get('/tasks')).body.results;
      t.like(tasks.find((task: any) => task.uid === 0), {
        status: 'succeeded', type: 'documentAdditionOrUpdate', details: { receivedDocuments: 1, indexedDocuments: 1 },
        enqueuedAt: '2023-07-06T07:07:41.361122Z', finishedAt: '2023-07-06T07:07:41.411453Z',
      });
      t.like(tasks.find((task: any) => task.uid === 1), { status: 'succeeded', type: 'dumpCreation' });
      t.like(tasks.find((task: any) => task.uid === 2), { status: 'succeeded', details: { receivedDocuments: 2, indexedDocuments: 2 } });
      t.like(tasks.find((task: any) => task.uid === 3), { status: 'succeeded', type: 'settingsUpdate' });
      t.is(await c.enqueue('POST', '/indexes', { body: { uid: 'next' } }), 4);
    } finally {
      await server.close();
    }
  });
});

test('POST /dumps needs dumps.create (a key without it: 403); the task is global', async (t) => {
  const dumpDir = makeTempDir('skein-dumps-');
  const server = await startTestServer({ masterKey: MASTER_KEY, dumpDir, workers: 1, shardsPerIndex: 1 });
  try {
    const c = server.client;
    const without = await c.post('/keys', { actions: ['search', 'documents.*', 'indexes.*', 'tasks.*', 'snapshots.create'], indexes: ['*'], expiresAt: null });
    const scoped = await c.post('/keys', { actions: ['dumps.create'], indexes: ['movies'], expiresAt: null });
    const allowed = await c.post('/keys', { actions: ['dumps.*'], indexes: ['*'], expiresAt: null });
    const denied = await c.withKey(without.body.key).post('/dumps');
    t.is(denied.status, 403);
    t.is(denied.body.code, 'invalid_api_key');
    t.is((await c.withKey(scoped.body.key).post('/dumps')).status, 403, 'a key limited to some indexes cannot dump them all');
    t.is((await new (c.constructor as any)(c.baseUrl).post('/dumps')).status, 401);
    const accepted = await c.withKey(allowed.body.key).post('/dumps');
    t.is(accepted.status, 202);
    t.deepEqual(Object.keys(accepted.body), ['taskUid', 'indexUid', 'status', 'type', 'enqueuedAt']);
    t.like(accepted.body, { indexUid: null, status: 'enqueued', type: 'dumpCreation' });
    const task = await c.waitForTask(accepted.body.taskUid);
    t.like(task, { status: 'succeeded', details: { dumpUid: task.details.dumpUid } });
  } finally {
    await server.close();
  }
});

test('--import-dump: a database already there or a missing file refuse the start, as Meilisearch; the ignore flags start without importing', async (t) => {
  await withTempDir(async (dbPath) => {
    const dumpDir = makeTempDir('skein-dumps-');
    const first = await startTestServer({ dbPath, dumpDir, workers: 1, shardsPerIndex: 1 });
    await first.client.run('POST', '/indexes', { body: { uid: 'kept' } });
    const file = await dumpNow(first.client, dumpDir);
    await first.close();
    const error = await t.throwsAsync(startTestServer({ dbPath, importDump: file, workers: 1 }));
    t.regex(error!.message, /^database already exists at ".*", try to delete it or rename it$/);
    const missing = await t.throwsAsync(startTestServer({ importDump: join(dumpDir, 'nope.dump'), workers: 1 }));
    t.is(missing!.message, `dump doesn't exist at "${join(dumpDir, 'nope.dump')}"`);
    const ignored = await startTestServer({ dbPath, importDump: file, ignoreDumpIfDbExists: true, workers: 1 });
    t.is((await ignored.client.get('/indexes/kept')).status, 200);
    await ignored.close();
    const fresh = await startTestServer({ importDump: join(dumpDir, 'nope.dump'), ignoreMissingDump: true, workers: 1 });
    t.is((await fresh.client.get('/indexes')).body.total, 0);
    await fresh.close();
  });
});

test('a failed import leaves no database behind (the next start is a fresh one)', async (t) => {
  await withTempDir(async (dbPath) => {
    const dir = makeTempDir('skein-bad-dump-');
    // The Meilisearch layout, with a document that has no usable id halfway.
    const unpacked = makeTempDir('skein-bad-dump-src-');
    await tar.x({ file: await packFixture(), cwd: unpacked });
    writeFileSync(join(unpacked, 'indexes/test/documents.jsonl'), '{"id":1}\n{"id":"bad id with spaces"}\n');
    const bad = join(dir, 'bad.dump');
    await tar.c({ gzip: true, cwd: unpacked, file: bad }, readdirSync(unpacked));
    const error = await t.throwsAsync(startTestServer({ dbPath, importDump: bad, workers: 1 }));
    t.regex(error!.message, /cannot import dump .*bad\.dump/);
    t.false(existsSync(join(dbPath, 'lmdb')), 'no half database');
    t.deepEqual(readdirSync(dbPath).filter((name) => name !== 'skein.lock'), []);
    const next = await startTestServer({ dbPath, workers: 1 });
    t.is((await next.client.get('/indexes')).body.total, 0);
    await next.close();
  });
});

async function packFixture(): Promise<string> {
  const file = join(makeTempDir('skein-dumps-'), 'fixture.dump');
  await tar.c({ gzip: true, cwd: FIXTURE, file }, readdirSync(FIXTURE).filter((name) => name !== 'README.md'));
  return file;
}

test('kill -9 during a dump (archive written, not yet renamed): no <uid>.dump left; after restart the task is redone', async (t) => {
  t.timeout(90_000);
  await withTempDir(async (dbPath) => {
    const dumpDir = makeTempDir('skein-dumps-');
    const port = await freePort();
    const child = await spawnChildServer({ dbPath, port, workers: 1, shardsPerIndex: 1, failurePoints: ['beforeDumpRename'], dumpDir });
    try {
      await child.client.run('POST', '/indexes/movies/documents', { body: [{ id: 1, title: 'kept' }] });
      const uid = await child.client.enqueue('POST', '/dumps');
      const exit = await child.exited;
      t.is(exit.signal, 'SIGKILL');
      t.deepEqual(readdirSync(dumpDir).filter((name) => name.endsWith('.dump')), [], 'no file an import would take');
      const again = await spawnChildServer({ dbPath, port, workers: 1, shardsPerIndex: 1, dumpDir });
      try {
        const task = await again.client.waitForTask(uid, 30_000);
        t.is(task.status, 'succeeded');
        t.deepEqual(readdirSync(dumpDir), [`${task.details.dumpUid}.dump`], 'the leftovers of the cut dump are gone');
      } finally {
        await stopChild(again);
      }
    } finally {
      await stopChild(child);
    }
  });
});

