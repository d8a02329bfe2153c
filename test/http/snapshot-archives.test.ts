// User-facing snapshots (POST /snapshots, --schedule-snapshot, --import-snapshot): the archive's
// name and content, consistency under a search and write load, imports and their errors, and a kill
// -9 while one is written. (test/http/snapshots.test.ts is about the shards' own restart files.)
// Serial: the load test alone runs 64 connections, and the suite runs two files at once (the fuzz
// test's 15 s answer bound for 26 MB bodies starved when this file's servers all ran together).
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { startServer } from '../../src/index.js';
import { SnapshotReader } from '../../src/shard/snapshot/snapshot-container.js';
import {
  Client, freePort, makeTempDir, sleep, spawnChildServer, stopChild, withTempDir, withTestServer,
} from './harness.js';
import { withStorage } from './storage-behind-the-back.js';

const MASTER_KEY = 'snapshot-archives-master-key-0123456789';

function movies(count: number, from = 0) {
  return Array.from({ length: count }, (_, k) => ({ id: from + k, title: `amber film ${from + k}`, genre: ['drama', 'comedy'][(from + k) % 2], year: 1990 + ((from + k) % 30) }));
}

async function snapshotTask(client: Client): Promise<any> {
  const response = await client.post('/snapshots');
  if (response.status !== 202) throw new Error(`POST /snapshots answered ${response.status}: ${response.text}`);
  return client.waitForTask(response.body.taskUid, 120_000);
}

async function extract(archive: string): Promise<string> {
  const folder = makeTempDir('skein-snapshot-x-');
  await tar.x({ file: archive, cwd: folder });
  return folder;
}

async function listArchive(archive: string): Promise<string[]> {
  const names: string[] = [];
  await tar.t({ file: archive, onReadEntry: (entry) => { names.push(entry.path); } });
  return names.sort();
}

test.serial('POST /snapshots: 202 snapshotCreation task without details; <db-name>.snapshot, read-only, holds LMDB and shard files stamped like the copy', (t) =>
  withTempDir(async (root) => {
    const dbPath = join(root, 'my-data.skein');
    const snapshotDir = join(root, 'snaps');
    await withTestServer({ dbPath, more: { snapshotDir } }, async ({ client }) => {
      await client.addDocuments('movies', movies(500));
      const response = await client.post('/snapshots');
      t.is(response.status, 202);
      t.deepEqual(Object.keys(response.body), ['taskUid', 'indexUid', 'status', 'type', 'enqueuedAt']);
      t.like(response.body, { indexUid: null, status: 'enqueued', type: 'snapshotCreation' });
      const task = await client.waitForTask(response.body.taskUid);
      t.like(task, { status: 'succeeded', type: 'snapshotCreation', indexUid: null, error: null });
      t.false('details' in task, 'snapshotCreation has no details key');
    });
    const archive = join(snapshotDir, 'my-data.skein.snapshot');
    t.true(existsSync(archive));
    t.is(statSync(archive).mode & 0o777, 0o444, 'read-only, as Meilisearch');
    t.deepEqual(readdirSync(snapshotDir), ['my-data.skein.snapshot'], 'no temporary file left');
    const names = await listArchive(archive);
    t.true(names.includes('lmdb/data.mdb'));
    t.false(names.some((name) => name.endsWith('lock.mdb')));
    const shardFiles = names.filter((name) => /^snapshots\/movies\/\d+\.bin$/.test(name));
    t.is(shardFiles.length, 3, 'one restart file per shard');
    const folder = await extract(archive);
    const stamp = withStorage(folder, `return storage.indexes.get('movies').commitSeq;`);
    for (const name of shardFiles) t.is(SnapshotReader.fromBytes(readFileSync(join(folder, name))).meta['commitSeq'], stamp);
    // The snapshot task is not in its own snapshot (it would run again after an import).
    t.deepEqual(withStorage(folder, `return [...storage.tasks.getRange({})].map(({ value }) => value.type);`), ['documentAdditionOrUpdate']);
  }));

test.serial('a key without snapshots.create gets 403; one with it (or snapshots.*) enqueues', (t) =>
  withTempDir(async (root) => {
    await withTestServer({ dbPath: join(root, 'db'), masterKey: MASTER_KEY, more: { snapshotDir: join(root, 'snaps') } }, async ({ client }) => {
      const keyFor = async (actions: string[]) => (await client.post('/keys', { actions, indexes: ['*'], expiresAt: null })).body.key as string;
      const refused = await client.withKey(await keyFor(['search', 'dumps.create', 'tasks.get'])).post('/snapshots');
      t.is(refused.status, 403);
      t.is(refused.body.code, 'invalid_api_key');
      const unauthenticated = await new Client(client.baseUrl).post('/snapshots');
      t.is(unauthenticated.status, 401);
      for (const actions of [['snapshots.create'], ['snapshots.*']]) {
        const accepted = await client.withKey(await keyFor(actions)).post('/snapshots');
        t.is(accepted.status, 202, actions.join());
      }
    });
  }));

/** 64 connections searching until stopped; every answer must be a 200 with hits. */
function searchLoad(baseUrl: string, connections: number) {
  let stop = false;
  let ok = 0;
  const errors: string[] = [];
  /** When each answer arrived (ms since the epoch, the clock the task timestamps use). */
  const answeredAt: number[] = [];
  const loops = Array.from({ length: connections }, async (_, k) => {
    while (!stop) {
      try {
        const response = await fetch(`${baseUrl}/indexes/movies/search`, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${MASTER_KEY}` },
          body: JSON.stringify({ q: k % 2 === 0 ? 'amber' : 'film', filter: 'year > 1995', limit: 5 }),
        });
        const text = await response.text();
        if (response.status !== 200 || !Array.isArray(JSON.parse(text).hits)) errors.push(`${response.status} ${text.slice(0, 200)}`);
        else {
          ok++;
          answeredAt.push(Date.now());
        }
      } catch (cause) {
        errors.push(String(cause));
      }
    }
  });
  return {
    get ok() { return ok; },
    errors,
    answeredAt,
    async stop() {
      stop = true;
      await Promise.all(loops);
    },
  };
}

test.serial('snapshot under load (64 searching connections, a write per second): no search error; the import holds every write that succeeded before it started and none made after', (t) =>
  withTempDir(async (root) => {
    const snapshotDir = join(root, 'snaps');
    const base = movies(20_000);
    const writes: { id: number; taskUid: number }[] = [];
    let snapshot: any;
    let keysBefore: unknown;
    let settingsBefore: unknown;
    let tasksBefore: any[] = [];
    const originalTasks = new Map<number, any>();
    await withTestServer({ dbPath: join(root, 'db'), masterKey: MASTER_KEY, more: { snapshotDir } }, async ({ client }) => {
      await client.run('PATCH', '/indexes/movies/settings', { body: { filterableAttributes: ['year', 'genre'], sortableAttributes: ['year'] } });
      await client.addDocuments('movies', base);
      await client.post('/keys', { name: 'kept', actions: ['search'], indexes: ['movies'], expiresAt: null });
      const load = searchLoad(client.baseUrl, 64);
      let writing = true;
      const writer = (async () => {
        for (let id = 100_000; writing; id++) {
          writes.push({ id, taskUid: await client.enqueue('POST', '/indexes/movies/documents', { body: [{ id, title: `late write ${id}`, year: 2001 }] }) });
          await sleep(1000);
        }
      })();
      await sleep(3500);
      snapshot = await snapshotTask(client);
      await sleep(3000);
      writing = false;
      await writer;
      await load.stop();
      t.is(snapshot.status, 'succeeded', JSON.stringify(snapshot.error));
      t.deepEqual(load.errors.slice(0, 5), [], `${load.errors.length} search errors`);
      t.true(load.ok > 100, `${load.ok} searches answered`);
      const during = load.answeredAt.filter((at) => at >= Date.parse(snapshot.startedAt) && at <= Date.parse(snapshot.finishedAt)).length;
      t.true(during > 0, 'searches were answered while the snapshot was taken');
      t.log(`${load.ok} searches answered (${during} while the snapshot was taken), none failed; snapshot ${snapshot.duration}; ${writes.length} writes`);
      for (const write of writes) await client.waitForTask(write.taskUid);
      for (const task of (await client.get('/tasks?limit=1000')).body.results) originalTasks.set(task.uid, task);
      keysBefore = (await client.get('/keys')).body.results;
      settingsBefore = (await client.get('/indexes/movies/settings')).body;
      tasksBefore = (await client.get(`/tasks?limit=1000&beforeEnqueuedAt=${encodeURIComponent(snapshot.startedAt)}`)).body.results;
    });
    const startedAt = Date.parse(snapshot.startedAt);
    const finishedAt = Date.parse(snapshot.finishedAt);
    const archive = join(snapshotDir, 'db.snapshot');
    await withTestServer({ dbPath: join(root, 'imported'), masterKey: MASTER_KEY, more: { importSnapshot: archive, snapshotDir: join(root, 'snaps2') } }, async ({ client }) => {
      // Writes enqueued before the snapshot but not processed yet were in it as enqueued tasks: they run now.
      const imported = (await client.get('/tasks?limit=1000')).body.results as any[];
      for (const task of imported.filter((task) => task.status === 'enqueued' || task.status === 'processing')) await client.waitForTask(task.uid);
      let before = 0;
      let after = 0;
      let present = 0;
      for (const write of writes) {
        // The original server's view of the task decides what the snapshot must hold.
        const original = originalTasks.get(write.taskUid);
        t.is(original?.status, 'succeeded');
        const document = await client.get(`/indexes/movies/documents/${write.id}`);
        if (document.status === 200) present++;
        if (Date.parse(original.finishedAt) < startedAt) {
          before++;
          t.is(document.status, 200, `write ${write.id} (task ${write.taskUid}) succeeded before the snapshot started: in it`);
        } else if (Date.parse(original.enqueuedAt) < startedAt) {
          t.is(document.status, 200, `write ${write.id} enqueued before the snapshot: in it as an enqueued task, applied after the import`);
        } else if (Date.parse(original.enqueuedAt) > finishedAt) {
          after++;
          t.is(document.status, 404, `write ${write.id} enqueued after the snapshot is not in it`);
        }
      }
      t.true(before >= 1 && after >= 1, `${before} writes before, ${after} after`);
      t.log(`${before} writes succeeded before the snapshot started, ${present} in the import, ${after} enqueued after it ended`);
      t.is((await client.get('/indexes/movies/stats')).body.numberOfDocuments, base.length + present);
      t.deepEqual((await client.get('/indexes/movies/settings')).body, settingsBefore);
      t.deepEqual((await client.get('/keys')).body.results, keysBefore, 'same keys, same values');
      // Every task finished before the snapshot started is there as it was.
      for (const task of tasksBefore.filter((task) => task.finishedAt !== null && Date.parse(task.finishedAt) < startedAt)) {
        t.deepEqual(imported.find((other) => other.uid === task.uid), task);
      }
      t.false(imported.some((task) => task.type === 'snapshotCreation'), 'the snapshot task is not in its own snapshot');
      t.false(imported.some((task) => Date.parse(task.enqueuedAt) > finishedAt), 'nothing enqueued after the snapshot');
      const search = await client.post('/indexes/movies/search', { q: 'amber', filter: 'year >= 1990', sort: ['year:desc'], facets: ['genre'], limit: 1 });
      t.is(search.status, 200);
      t.deepEqual(search.body.facetDistribution.genre, { comedy: base.length / 2, drama: base.length / 2 }, 'filters and facets as before');
      t.is(search.body.hits[0].year, 2019);
    });
  }));

test.serial('--schedule-snapshot: snapshotCreation tasks every period, shown in /tasks, each writing the archive', (t) =>
  withTempDir(async (root) => {
    const snapshotDir = join(root, 'snaps');
    await withTestServer({ dbPath: join(root, 'db'), more: { snapshotDir, scheduleSnapshot: 1 } }, async ({ client }) => {
      await client.addDocuments('movies', movies(50));
      const deadline = Date.now() + 30_000;
      let done: any[] = [];
      while (Date.now() < deadline) {
        done = (await client.get('/tasks?types=snapshotCreation&statuses=succeeded')).body.results;
        if (done.length >= 2) break;
        await sleep(200);
      }
      t.true(done.length >= 2, `${done.length} scheduled snapshots`);
      t.true(existsSync(join(snapshotDir, 'db.snapshot')));
    });
  }));

test.serial('--import-snapshot errors: Meilisearch messages for an existing database or a missing file, the ignore flags, and a bad archive leaves no half database', (t) =>
  withTempDir(async (root) => {
    const snapshotDir = join(root, 'snaps');
    await withTestServer({ dbPath: join(root, 'db'), more: { snapshotDir } }, async ({ client }) => {
      await client.addDocuments('movies', movies(10));
      await snapshotTask(client);
    });
    const archive = join(snapshotDir, 'db.snapshot');
    const start = (dbPath: string, more: Record<string, unknown>) => startServer({ dbPath, httpAddr: '127.0.0.1:0', workers: 1, snapshotDir: join(root, 'unused'), ...more });

    const existing = join(root, 'existing');
    await withTestServer({ dbPath: existing }, async ({ client }) => { await client.addDocuments('other', movies(3)); });
    await t.throwsAsync(start(existing, { importSnapshot: archive }), { message: `database already exists at ${JSON.stringify(existing)}, try to delete it or rename it` });
    await withTestServer({ dbPath: existing, more: { importSnapshot: archive, ignoreSnapshotIfDbExists: true } }, async ({ client }) => {
      t.deepEqual((await client.get('/indexes')).body.results.map((index: { uid: string }) => index.uid), ['other'], 'the existing database, not the snapshot');
    });

    const missing = join(root, 'missing.snapshot');
    await t.throwsAsync(start(join(root, 'fresh'), { importSnapshot: missing }), { message: `snapshot doesn't exist at ${missing}` });
    await withTestServer({ dbPath: join(root, 'fresh'), more: { importSnapshot: missing, ignoreMissingSnapshot: true } }, async ({ client }) => {
      t.is((await client.get('/indexes')).body.total, 0);
    });

    // A corrupt archive, and a tar.gz that is no Skein snapshot: an error, and the folder stays empty.
    const corrupt = join(root, 'corrupt.snapshot');
    const bytes = readFileSync(archive);
    writeFileSync(corrupt, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const foreign = join(root, 'foreign.snapshot');
    mkdirSync(join(root, 'foreign', 'tasks'), { recursive: true });
    writeFileSync(join(root, 'foreign', 'tasks', 'data.mdb'), 'not ours');
    await tar.c({ gzip: true, file: foreign, cwd: join(root, 'foreign') }, ['tasks']);
    for (const [name, file] of [['corrupt', corrupt], ['foreign', foreign]] as const) {
      const dbPath = join(root, `bad-${name}`);
      await t.throwsAsync(start(dbPath, { importSnapshot: file }), { message: /importing the snapshot .* failed/ }, name);
      t.deepEqual(readdirSync(dbPath), [], `${name}: nothing left in the data folder`);
      // The folder is still empty: the real snapshot imports into it.
      await withTestServer({ dbPath, more: { importSnapshot: archive } }, async ({ client }) => {
        t.is((await client.get('/indexes/movies/stats')).body.numberOfDocuments, 10, name);
      });
    }
  }));

function digest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

test.serial('kill -9 while the archive is written: the previous snapshot stays whole, the task is redone after the restart, the data intact', (t) =>
  withTempDir(async (root) => {
    const dbPath = join(root, 'db');
    const snapshotDir = join(root, 'snaps');
    const archive = join(snapshotDir, 'db.snapshot');
    await withTestServer({ dbPath, more: { snapshotDir } }, async ({ client }) => {
      await client.addDocuments('movies', movies(100));
      await snapshotTask(client);
    });
    const first = digest(archive);

    const port = await freePort();
    const child = await spawnChildServer({ dbPath, port, failurePoints: ['beforeSnapshotRename'], more: { snapshotDir } });
    try {
      await child.client.addDocuments('movies', movies(50, 100));
      const taskUid = await child.client.enqueue('POST', '/snapshots');
      const exit = await Promise.race([child.exited, sleep(60_000).then(() => null)]);
      t.is(exit?.signal, 'SIGKILL', 'killed at the failure point');
      t.is(digest(archive), first, 'the snapshot an import would take is the previous one, whole');
      t.true(readdirSync(snapshotDir).some((name) => name.endsWith('.tmp')), 'the archive was being written');

      await withTestServer({ dbPath, more: { snapshotDir } }, async ({ client }) => {
        const task = await client.waitForTask(taskUid, 60_000);
        t.is(task.status, 'succeeded', 'redone after the restart');
        t.is((await client.get('/indexes/movies/stats')).body.numberOfDocuments, 150);
      });
      t.deepEqual(readdirSync(snapshotDir), ['db.snapshot'], 'no leftover');
      t.not(digest(archive), first);
      await withTestServer({ dbPath: join(root, 'imported'), more: { importSnapshot: archive, snapshotDir: join(root, 'snaps2') } }, async ({ client }) => {
        t.is((await client.get('/indexes/movies/stats')).body.numberOfDocuments, 150);
      });
    } finally {
      await stopChild(child);
    }
  }));

test.serial('closing the server while a snapshot is written: the process survives, the task is done at the next start', (t) =>
  withTempDir(async (root) => {
    const dbPath = join(root, 'db');
    const snapshotDir = join(root, 'snaps');
    const uids: number[] = [];
    // The copy's callback into a scheduler thread being torn down aborted the whole process (SIGABRT),
    // depending on timing: a few delays between the request and the close.
    for (const delay of [0, 3, 6, 10, 20]) {
      await withTestServer({ dbPath, workers: 1, more: { snapshotDir } }, async ({ client }) => {
        if (uids.length === 0) await client.addDocuments('movies', movies(2000));
        uids.push(await client.enqueue('POST', '/snapshots'));
        await sleep(delay);
      });
    }
    await withTestServer({ dbPath, workers: 1, more: { snapshotDir } }, async ({ client }) => {
      for (const uid of uids) t.is((await client.waitForTask(uid, 60_000)).status, 'succeeded');
      t.is((await client.get('/indexes/movies/stats')).body.numberOfDocuments, 2000);
    });
    t.deepEqual(readdirSync(snapshotDir), ['db.snapshot']);
  }));

test.serial('a crash while an imported snapshot was moved into place: the next start removes the half database and starts empty', (t) =>
  withTempDir(async (root) => {
    const snapshotDir = join(root, 'snaps');
    await withTestServer({ dbPath: join(root, 'db'), more: { snapshotDir } }, async ({ client }) => {
      await client.addDocuments('movies', movies(10));
      await snapshotTask(client);
    });
    // What a kill between two renames of the import leaves: the pending marker, LMDB moved in, the rest still staged.
    const dbPath = join(root, 'half');
    mkdirSync(dbPath);
    const extracted = await extract(join(snapshotDir, 'db.snapshot'));
    mkdirSync(join(dbPath, 'lmdb'));
    writeFileSync(join(dbPath, 'lmdb', 'data.mdb'), readFileSync(join(extracted, 'lmdb', 'data.mdb')));
    mkdirSync(join(dbPath, '.import-snapshot.staging', 'snapshots'), { recursive: true });
    writeFileSync(join(dbPath, '.import-snapshot.pending'), '');
    await withTestServer({ dbPath }, async ({ client }) => {
      t.is((await client.get('/indexes')).body.total, 0, 'not the half-imported database');
    });
    t.false(existsSync(join(dbPath, '.import-snapshot.pending')));
    t.false(existsSync(join(dbPath, '.import-snapshot.staging')));
  }));
