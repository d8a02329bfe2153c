// POST /swap-indexes and PATCH /indexes/{uid} with `uid` (rename), as Meilisearch 1.18+: validation
// errors, pairs swapped whole (documents, settings, stats, older tasks), a key restricted to one index.
import test from 'ava';
import { errorBody, withTempDir, withTestServer, type Client } from './harness.js';

async function setUpIndex(client: Client, uid: string, side: string, count: number, settings: Record<string, unknown>) {
  await client.run('POST', '/indexes', { body: { uid, primaryKey: 'id' } });
  await client.run('PATCH', `/indexes/${uid}/settings`, { body: settings });
  const documents = Array.from({ length: count }, (_, i) => ({ id: i, side, title: `${side} document number ${i}` }));
  await client.addDocuments(uid, documents);
}

async function sides(client: Client, uid: string): Promise<string[]> {
  const response = await client.post(`/indexes/${uid}/search`, { q: 'document', limit: 1000 });
  return [...new Set<string>(response.body.hits.map((hit: { side: string }) => hit.side))];
}

test('swap validation errors, each code as Meilisearch answers it', (t) =>
  withTestServer({}, async ({ client }) => {
    const cases: [unknown, number, ReturnType<typeof errorBody>][] = [
      ['doggo', 400, errorBody('Invalid value type: expected an array, but found a string: `"doggo"`', 'bad_request')],
      [['doggo'], 400, errorBody('Invalid value type at `[0]`: expected an object, but found a string: `"doggo"`', 'bad_request')],
      [[{ indexes: 'doggo' }], 400, errorBody('Invalid value type at `[0].indexes`: expected an array, but found a string: `"doggo"`', 'invalid_swap_indexes')],
      [[{ indexes: ['doggo'] }], 400, errorBody('Two indexes must be given for each swap. The list `["doggo"]` contains 1 indexes.', 'invalid_swap_indexes')],
      [[{ indexes: ['doggo', 'crabo', 'croco'] }], 400, errorBody('Two indexes must be given for each swap. The list `["doggo", "crabo", "croco"]` contains 3 indexes.', 'invalid_swap_indexes')],
      [[{ indexes: ['doggo', 'doggo'] }], 400, errorBody('Indexes must be declared only once during a swap. `doggo` was specified several times.', 'invalid_swap_duplicate_index_found')],
      [[{ indexes: ['doggo', 'catto'] }, { indexes: ['girafo', 'doggo'] }], 400, errorBody('Indexes must be declared only once during a swap. `doggo` was specified several times.', 'invalid_swap_duplicate_index_found')],
      [[{ indexes: ['a', 'b'] }, { indexes: ['b', 'a'] }], 400, errorBody('Indexes must be declared only once during a swap. `a`, `b` were specified several times.', 'invalid_swap_duplicate_index_found')],
      [[{ indexes: ['kefir', 'intel'], rename: 'hello' }], 400, errorBody('Invalid value type at `[0].rename`: expected a boolean, but found a string: `"hello"`', 'invalid_swap_rename')],
      [[{}], 400, errorBody('Missing field `indexes` inside `[0]`', 'missing_swap_indexes')],
      [[{ indexes: ['a', 'b'], other: 1 }], 400, errorBody('Unknown field `other` inside `[0]`: expected one of `indexes`, `rename`', 'bad_request')],
      [[{ indexes: ['a', 'b c'] }], 400, errorBody('Invalid value at `[0].indexes[1]`: `b c` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.', 'invalid_swap_indexes')],
    ];
    for (const [body, status, expected] of cases) {
      const response = await client.post('/swap-indexes', body);
      t.is(response.status, status, JSON.stringify(body));
      t.deepEqual(response.body, expected, JSON.stringify(body));
    }
    t.is((await client.get('/tasks')).body.total, 0, 'no task registered by a refused swap');

    // Missing indexes fail the task (index_not_found), rename targets that exist too.
    await client.createIndex('present');
    await client.createIndex('other');
    const oneMissing = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['present', 'absent'] }] }));
    t.is(oneMissing.status, 'failed');
    t.is(oneMissing.indexUid, null);
    t.is(oneMissing.type, 'indexSwap');
    t.deepEqual(oneMissing.details, { swaps: [{ indexes: ['present', 'absent'], rename: false }] });
    t.deepEqual(oneMissing.error, errorBody('Index `absent` not found.', 'index_not_found'));
    const twoMissing = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['zeta', 'present'] }, { indexes: ['other', 'alpha'] }] }));
    t.deepEqual(twoMissing.error, errorBody('Indexes `alpha`, `zeta` not found.', 'index_not_found'));
    const renameOnto = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['present', 'other'], rename: true }] }));
    t.deepEqual(renameOnto.error, errorBody('Cannot rename `present` to `other` as the index already exists. Hint: You can remove `other` first and then do your remove.', 'index_already_exists'));
    const renameMissing = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['absent', 'new'], rename: true }] }));
    t.deepEqual(renameMissing.error, errorBody('Index `absent` not found.', 'index_not_found'));
    // An empty list is a valid swap of nothing.
    t.is((await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [] }))).status, 'succeeded');
    t.deepEqual((await client.get('/indexes')).body.results.map((index: { uid: string }) => index.uid), ['other', 'present']);
  }));

test('swap of two pairs: documents, settings, stats and older tasks move whole', (t) =>
  withTestServer({}, async ({ client }) => {
    await setUpIndex(client, 'a', 'A', 30, { filterableAttributes: ['side'] });
    await setUpIndex(client, 'b', 'B', 10, { sortableAttributes: ['id'] });
    await setUpIndex(client, 'c', 'C', 5, { stopWords: ['the'] });
    await setUpIndex(client, 'd', 'D', 7, { distinctAttribute: 'side' });
    const before = Object.fromEntries(await Promise.all(['a', 'b', 'c', 'd'].map(async (uid) =>
      [uid, { index: (await client.get(`/indexes/${uid}`)).body, settings: (await client.get(`/indexes/${uid}/settings`)).body, stats: (await client.get(`/indexes/${uid}/stats`)).body,
        tasks: (await client.get(`/tasks?indexUids=${uid}`)).body.results.map((task: { uid: number }) => task.uid) }] as const)));

    const task = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['a', 'b'] }, { indexes: ['c', 'd'] }] }));
    t.is(task.status, 'succeeded', JSON.stringify(task.error));
    t.deepEqual(task.details, { swaps: [{ indexes: ['a', 'b'], rename: false }, { indexes: ['c', 'd'], rename: false }] });

    for (const [uid, from] of [['a', 'b'], ['b', 'a'], ['c', 'd'], ['d', 'c']] as const) {
      const index = (await client.get(`/indexes/${uid}`)).body;
      t.deepEqual(index, { ...before[from]!.index, uid });
      t.deepEqual((await client.get(`/indexes/${uid}/settings`)).body, before[from]!.settings);
      t.deepEqual((await client.get(`/indexes/${uid}/stats`)).body, before[from]!.stats);
      t.deepEqual(await sides(client, uid), [from.toUpperCase()]);
      t.is((await client.get(`/indexes/${uid}/documents/0`)).body.side, from.toUpperCase());
      t.is((await client.get(`/indexes/${uid}/documents?limit=100`)).body.total, before[from]!.stats.numberOfDocuments);
      // The tasks that built `from` now name `uid`, and the swap task is listed for both.
      const tasks = (await client.get(`/tasks?indexUids=${uid}`)).body.results;
      t.deepEqual(tasks.map((one: { uid: number }) => one.uid), [task.uid, ...before[from]!.tasks]);
      for (const one of tasks.slice(1)) t.is(one.indexUid, uid);
    }
    // Writes after the swap go to the side now named so.
    await client.addDocuments('a', [{ id: 1000, side: 'B', title: 'late document' }]);
    t.is((await client.get('/indexes/a/stats')).body.numberOfDocuments, before.b!.stats.numberOfDocuments + 1);
    t.is((await client.get('/indexes/b/stats')).body.numberOfDocuments, before.a!.stats.numberOfDocuments);
    // A second swap brings everything back, and a previous swap task's details are renamed too.
    const back = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['b', 'a'] }] }));
    t.is(back.status, 'succeeded');
    t.deepEqual((await client.get(`/tasks/${task.uid}`)).body.details.swaps[0], { indexes: ['b', 'a'], rename: false });
    t.deepEqual(await sides(client, 'a'), ['A']);
    t.deepEqual(await sides(client, 'b'), ['B']);
  }));

test('swap survives a restart; writes queued around a swap land on the side they were sent to; a name freed by a swap is reused', (t) =>
  withTempDir(async (dbPath) => {
    await withTestServer({ dbPath }, async ({ client }) => {
      await setUpIndex(client, 'left', 'L', 20, { filterableAttributes: ['side'] });
      await setUpIndex(client, 'right', 'R', 12, {});
      // Enqueued back to back: the first addition goes to `left` before the swap, the second to the new `left`.
      await client.enqueue('POST', '/indexes/left/documents', { body: [{ id: 100, side: 'L', title: 'early document' }] });
      const swapUid = await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['left', 'right'] }] });
      const late = await client.enqueue('POST', '/indexes/left/documents', { body: [{ id: 200, side: 'R', title: 'late document' }] });
      await client.waitForTask(late);
      t.is((await client.get(`/tasks/${swapUid}`)).body.status, 'succeeded');
      t.is((await client.get('/indexes/right/documents/100')).status, 200);
      t.is((await client.get('/indexes/left/documents/200')).status, 200);
      t.is((await client.get('/indexes/left/documents/100')).status, 404);
      // Deleting `right` (which holds the data first stored for `left`) and creating it again.
      const deletion = await client.run('DELETE', '/indexes/right');
      t.deepEqual(deletion.details, { deletedDocuments: 21 });
      await setUpIndex(client, 'right', 'R2', 3, {});
      t.deepEqual(await sides(client, 'right'), ['R2']);
    });
    // Restarted: the shards come back from their snapshots (named by storage key) or from LMDB.
    await withTestServer({ dbPath }, async ({ client }) => {
      t.deepEqual(await sides(client, 'left'), ['R']);
      t.is((await client.get('/indexes/left/stats')).body.numberOfDocuments, 13);
      t.deepEqual(await sides(client, 'right'), ['R2']);
      t.is((await client.get('/indexes/right/stats')).body.numberOfDocuments, 3);
      t.deepEqual((await client.get('/indexes/left/settings')).body.filterableAttributes, []);
      await client.addDocuments('right', [{ id: 9, side: 'R2', title: 'after restart document' }]);
      t.is((await client.get('/indexes/right/stats')).body.numberOfDocuments, 4);
    });
  }));

test('rename: PATCH /indexes/{uid} with uid, and swap with rename: true', (t) =>
  withTestServer({}, async ({ client }) => {
    await setUpIndex(client, 'old', 'O', 15, { filterableAttributes: ['side'] });
    const created = (await client.get('/indexes/old')).body;
    const renamed = await client.waitForTask(await client.enqueue('PATCH', '/indexes/old', { body: { uid: 'new' } }));
    t.is(renamed.status, 'succeeded', JSON.stringify(renamed.error));
    t.is(renamed.type, 'indexUpdate');
    t.is(renamed.indexUid, 'old');
    t.deepEqual(renamed.details, { primaryKey: null, oldIndexUid: 'old', newIndexUid: 'new' });
    t.is((await client.get('/indexes/old')).status, 404);
    const index = (await client.get('/indexes/new')).body;
    t.is(index.uid, 'new');
    t.is(index.createdAt, created.createdAt);
    t.is(index.primaryKey, 'id');
    t.deepEqual(await sides(client, 'new'), ['O']);
    t.deepEqual((await client.get('/indexes/new/settings')).body.filterableAttributes, ['side']);
    const older = (await client.get('/tasks?indexUids=new&types=documentAdditionOrUpdate')).body.results;
    t.is(older.length, 1);
    t.is(older[0].indexUid, 'new');

    // Errors: the target exists, an invalid uid, a missing index.
    await client.createIndex('taken');
    const onto = await client.waitForTask(await client.enqueue('PATCH', '/indexes/new', { body: { uid: 'taken' } }));
    t.deepEqual(onto.error, errorBody('Index `taken` already exists.', 'index_already_exists', 'invalid_request'));
    const invalid = await client.patch('/indexes/new', { uid: 'not valid' });
    t.is(invalid.status, 400);
    t.is(invalid.body.code, 'invalid_index_uid');
    const missing = await client.waitForTask(await client.enqueue('PATCH', '/indexes/ghost', { body: { uid: 'ghost2' } }));
    t.deepEqual(missing.error, errorBody('Index `ghost` not found.', 'index_not_found'));
    // Rename with a primary key on an empty index.
    const both = await client.waitForTask(await client.enqueue('PATCH', '/indexes/taken', { body: { uid: 'taken2', primaryKey: 'sku' } }));
    t.is(both.status, 'succeeded');
    t.deepEqual(both.details, { primaryKey: 'sku', oldIndexUid: 'taken', newIndexUid: 'taken2' });
    t.is((await client.get('/indexes/taken2')).body.primaryKey, 'sku');

    // Swap with rename: true moves `new` to `newest`.
    const swap = await client.waitForTask(await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: ['new', 'newest'], rename: true }] }));
    t.is(swap.status, 'succeeded', JSON.stringify(swap.error));
    t.is((await client.get('/indexes/new')).status, 404);
    t.deepEqual(await sides(client, 'newest'), ['O']);
  }));

test('a key restricted to one index cannot swap it with another', (t) =>
  withTestServer({ masterKey: 'swap-master-key-0123456789' }, async ({ client }) => {
    await client.createIndex('mine');
    await client.createIndex('theirs');
    const key = await client.post('/keys', { actions: ['indexes.swap', 'tasks.get'], indexes: ['mine'], expiresAt: null });
    t.is(key.status, 201);
    const restricted = client.withKey(key.body.key);
    const refused = await restricted.post('/swap-indexes', [{ indexes: ['mine', 'theirs'] }]);
    t.is(refused.status, 403);
    t.deepEqual(refused.body, errorBody('The provided API key is invalid.', 'invalid_api_key', 'auth'));
    const both = await client.post('/keys', { actions: ['indexes.swap'], indexes: ['mine', 'theirs'], expiresAt: null });
    const allowed = await client.withKey(both.body.key).post('/swap-indexes', [{ indexes: ['mine', 'theirs'] }]);
    t.is(allowed.status, 202);
    t.is((await client.waitForTask(allowed.body.taskUid)).status, 'succeeded');
  }));

/**
 * 1,000 swaps while searches run on both indexes. Each side's documents carry its marker and the two
 * sides hold different counts, so an answer mixing them (hits or totals) is caught. SKEIN_SWAP_COUNT
 * overrides the count (figures in the README). Without the catalog's whole-cache drop (index-catalog.ts) a multi-search over both answered "A,A" within 1,000 swaps.
 */
const SWAP_COUNT = Number(process.env['SKEIN_SWAP_COUNT'] ?? 1000);

test('swap under load: every search answer comes wholly from one side', (t) =>
  withTestServer({}, async ({ client }) => {
    const counts: Record<string, number> = { A: 40, B: 25 };
    await setUpIndex(client, 'front_a', 'A', counts.A!, {});
    await setUpIndex(client, 'front_b', 'B', counts.B!, {});
    let stop = false;
    let answers = 0;
    let partial = 0;
    const bad: string[] = [];
    const seen = { front_a: new Set<string>(), front_b: new Set<string>() };
    const searcher = async (uid: 'front_a' | 'front_b') => {
      while (!stop) {
        const response = await client.post(`/indexes/${uid}/search`, { q: 'document', limit: 100 });
        answers++;
        const hitSides = new Set<string>(response.body.hits?.map((hit: { side: string }) => hit.side) ?? []);
        const side = [...hitSides][0];
        // A search past its deadline on a loaded machine answers degraded (fewer hits, still one side):
        // it must never hold more hits or a larger total than the side its hits come from.
        if (response.status !== 200 || hitSides.size !== 1 || response.body.hits.length > counts[side!]
          || response.body.estimatedTotalHits > counts[side!]) {
          bad.push(`${uid}: ${response.status} ${response.text.slice(0, 300)}`);
        } else {
          seen[uid].add(side!);
          if (response.body.hits.length !== counts[side!] || response.body.estimatedTotalHits !== counts[side!]) partial++;
        }
      }
    };
    // One multi-search over both indexes sees both sides, never one side twice (a half-swapped catalog).
    let multiAnswers = 0;
    const multiSearcher = async () => {
      while (!stop) {
        const response = await client.post('/multi-search', { queries: [{ indexUid: 'front_a', q: 'document', limit: 100 }, { indexUid: 'front_b', q: 'document', limit: 100 }] });
        multiAnswers++;
        const pair = (response.body.results ?? []).map((result: { hits: { side: string }[] }) => [...new Set(result.hits.map((hit) => hit.side))].join('')).sort().join(',');
        // (A degraded answer with no hit at all, on a loaded machine, says nothing about sides.)
        if (response.status !== 200 || (pair !== 'A,B' && !pair.split(',').includes(''))) bad.push(`multi-search: ${response.status} sides ${pair}`);
      }
    };
    const searchers = [searcher('front_a'), searcher('front_b'), searcher('front_a'), searcher('front_b'), multiSearcher()];
    const started = Date.now();
    let last = -1;
    try {
      for (let i = 0; i < SWAP_COUNT; i++) {
        last = await client.enqueue('POST', '/swap-indexes', { body: [{ indexes: i % 2 ? ['front_b', 'front_a'] : ['front_a', 'front_b'] }] });
      }
      await client.waitForTask(last, 240_000);
    } finally {
      stop = true;
      await Promise.all(searchers);
    }
    const elapsed = Date.now() - started;
    t.log(`${SWAP_COUNT} swaps in ${elapsed} ms (${(elapsed / SWAP_COUNT).toFixed(1)} ms each) with ${answers} search and ${multiAnswers} multi-search answers meanwhile`);
    t.deepEqual(bad.slice(0, 5), []);
    t.true(answers >= 100);
    t.true(partial <= answers / 10, `${partial} degraded answers of ${answers}`);
    t.deepEqual([...seen.front_a].sort(), ['A', 'B'], 'searches saw both states');
    const swaps = (await client.get('/tasks?types=indexSwap&statuses=succeeded&limit=0')).body.total;
    t.is(swaps, SWAP_COUNT);
    const expected = SWAP_COUNT % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    t.deepEqual([...await sides(client, 'front_a'), ...await sides(client, 'front_b')], expected);
  }));
