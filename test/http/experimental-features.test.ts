// GET / PATCH /experimental-features with Meilisearch v1.53's shape (openapi RuntimeTogglableFeatures):
// every flag reported, PATCH partial (absent or null keeps the stored value), unknown fields and
// non-booleans refused with deserr's bad_request, flags stored durably by the scheduler (restart),
// key actions experimental.get / experimental.update on indexes ["*"].
import test from 'ava';
import { withTempDir, withTestServer } from './harness.js';

const MASTER = 'features-master-key-0123456789';

const ALL_OFF = {
  metrics: false, logsRoute: false, tasksStreamingRoute: false, editDocumentsByFunction: false,
  containsFilter: false, dynamicSearchRules: false, network: false, getTaskDocumentsRoute: false,
  taskQueueCompactionRoute: false, compositeEmbedders: false, chatCompletions: false, multimodal: false,
  foreignKeys: false, disableDocumentsFetchQueue: false, legacySearch: false, renderRoute: false,
};

test('GET reports every flag off at first; PATCH updates only the fields sent, and the change survives a restart', (t) =>
  withTempDir(async (dbPath) => {
    await withTestServer({ dbPath, masterKey: MASTER, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
      const first = await client.get('/experimental-features');
      t.is(first.status, 200);
      t.deepEqual(first.body, ALL_OFF);
      t.deepEqual(Object.keys(first.body), Object.keys(ALL_OFF), 'Meilisearch field order');

      const patched = await client.patch('/experimental-features', { metrics: true, containsFilter: true });
      t.is(patched.status, 200);
      t.deepEqual(patched.body, { ...ALL_OFF, metrics: true, containsFilter: true });

      // null and absent keep the stored value; false turns a flag off.
      const second = await client.patch('/experimental-features', { metrics: null, containsFilter: false, network: true });
      t.is(second.status, 200);
      t.deepEqual(second.body, { ...ALL_OFF, metrics: true, network: true });
      const empty = await client.patch('/experimental-features', {});
      t.deepEqual(empty.body, second.body);
      t.deepEqual((await client.get('/experimental-features')).body, second.body);
    });
    await withTestServer({ dbPath, masterKey: MASTER, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
      const after = await client.get('/experimental-features');
      t.is(after.status, 200);
      t.deepEqual(after.body, { ...ALL_OFF, metrics: true, network: true });
    });
  }));

test('PATCH refuses unknown fields, non-boolean values and non-object bodies with bad_request, changing nothing', (t) =>
  withTestServer({ workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    const unknown = await client.patch('/experimental-features', { metrics: true, vectorStoreSetting: true });
    t.is(unknown.status, 400);
    t.is(unknown.body.code, 'bad_request');
    t.is(unknown.body.type, 'invalid_request');
    t.is(unknown.body.link, 'https://docs.meilisearch.com/errors#bad_request');
    t.true(unknown.body.message.startsWith('Unknown field `vectorStoreSetting`: expected one of `metrics`, `logsRoute`, '), unknown.body.message);

    const wrongType = await client.patch('/experimental-features', { logsRoute: 'yes' });
    t.is(wrongType.status, 400);
    t.is(wrongType.body.code, 'bad_request');
    t.is(wrongType.body.message, 'Invalid value type at `.logsRoute`: expected a boolean, but found a string: `"yes"`');

    const notObject = await client.patch('/experimental-features', [true]);
    t.is(notObject.status, 400);
    t.is(notObject.body.code, 'bad_request');
    t.is(notObject.body.message, 'Invalid value type: expected an object, but found an array: `[true]`');

    const badJson = await client.patch('/experimental-features', undefined, { raw: '{"metrics":' });
    t.is(badJson.status, 400);
    t.is(badJson.body.code, 'malformed_payload');

    t.deepEqual((await client.get('/experimental-features')).body, ALL_OFF, 'nothing was stored');
  }));

test('the routes need experimental.get / experimental.update on every index', (t) =>
  withTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    const anonymous = client.withKey('');
    const noHeader = await fetch(`${client.baseUrl}/experimental-features`);
    t.is(noHeader.status, 401);
    t.is(((await noHeader.json()) as { code: string }).code, 'missing_authorization_header');
    t.is((await anonymous.get('/experimental-features')).status, 403);

    const makeKey = async (actions: string[], indexes: string[]) => {
      const created = await client.post('/keys', { actions, indexes, expiresAt: null });
      t.is(created.status, 201, created.text);
      return client.withKey(created.body.key as string);
    };
    const reader = await makeKey(['experimental.get'], ['*']);
    const writer = await makeKey(['experimental.update'], ['*']);
    const readAll = await makeKey(['*.get'], ['*']);
    const search = await makeKey(['search'], ['*']);

    t.is((await reader.get('/experimental-features')).status, 200);
    t.is((await readAll.get('/experimental-features')).status, 200);
    t.is((await reader.patch('/experimental-features', { metrics: true })).body.code, 'invalid_api_key');
    t.is((await search.get('/experimental-features')).status, 403);
    t.is((await writer.get('/experimental-features')).status, 403);
    const patched = await writer.patch('/experimental-features', { metrics: true });
    t.is(patched.status, 200);
    t.true(patched.body.metrics);
    // Global actions: a key restricted to some indexes may not hold them (Meilisearch's DenyIndexScope).
    const restricted = await client.post('/keys', { actions: ['experimental.get'], indexes: ['films'], expiresAt: null });
    t.is(restricted.status, 400);
  }));

test('the official client reads and updates the flags', (t) =>
  withTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    const { Meilisearch } = await import('meilisearch');
    const meili = new Meilisearch({ host: client.baseUrl, apiKey: MASTER });
    const updated = await meili.updateExperimentalFeatures({ editDocumentsByFunction: true });
    t.true(updated.editDocumentsByFunction);
    t.deepEqual(await meili.getExperimentalFeatures(), { ...ALL_OFF, editDocumentsByFunction: true });
  }));
