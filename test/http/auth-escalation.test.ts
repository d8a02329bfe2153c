// Privilege escalation through index-restricted keys (issue 18, findings 1 and 2). Meilisearch's rule:
// an action on a route WITHOUT an index in its path is granted to a key restricted to some indexes only
// when the route itself filters by the key's indexes (IndexScope::RouteHandlerChecksIndex: search,
// documents.get, indexes.create/get/swap, tasks.get/cancel/delete, settings.get, stats.get,
// chatCompletions); every other action (keys.*, version, dumps, snapshots, ...) needs `indexes: ["*"]`.
// And a key that does not reach every index sees no task that is not tied to exactly one index.
import test from 'ava';
import { generateTenantToken } from 'meilisearch/token';
import type { RouteSpec } from '../../src/front/http/route-spec.js';
import { allRoutes } from '../../src/front/routes.js';
import { Client, sleep, startTestServer, type HttpResponse, type TestServer } from './harness.js';

const MASTER = 'escalation-master-key-0123456789';
const UNKNOWN_KEY_UID = '99999999-9999-4999-8999-999999999999';

let server: TestServer;
let master: Client;
test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 });
  master = server.client;
  await master.addDocuments('pub', [{ id: 1, title: 'public' }]);
  await master.addDocuments('priv', [{ id: 1, title: 'private' }]);
});
test.after.always(async () => {
  await server?.close();
});

interface CreatedKey { key: string; uid: string }

async function createKey(actions: string[], indexes: string[], expiresAt: string | null = null): Promise<CreatedKey> {
  const response = await master.post('/keys', { actions, indexes, expiresAt });
  if (response.status !== 201) throw new Error(`POST /keys ${JSON.stringify({ actions, indexes })}: ${response.status} ${response.text}`);
  return response.body;
}

function isRefused(t: { is(a: unknown, b: unknown, m?: string): void }, response: HttpResponse, label: string): void {
  t.is(response.status, 403, `${label}: ${response.status} ${response.text.slice(0, 200)}`);
  t.is(response.body?.code, 'invalid_api_key', label);
}

// ---------------------------------------------------------------------------------------------------
// The model of Meilisearch's decision, written out independently of src/auth.

/** Does a held action (possibly a wildcard) grant the concrete action a route needs? */
function grants(held: string, action: string): boolean {
  if (held === '*') return true;
  if (held === '*.get') return (action.endsWith('.get') && action !== 'keys.get') || action === 'search' || action === 'version';
  if (held.endsWith('.*')) return action.startsWith(held.slice(0, -1));
  return held === action;
}

/** Actions whose index-less routes filter by the key's indexes themselves (Meilisearch's RouteHandlerChecksIndex). */
const HANDLER_CHECKED = new Set(['search', 'documents.get', 'indexes.create', 'indexes.get', 'indexes.swap',
  'tasks.get', 'tasks.cancel', 'tasks.delete', 'settings.get', 'stats.get', 'chatCompletions']);

/** Actions a key restricted to some indexes may not even be created with (Meilisearch's DenyIndexScope, as held). */
const DENIED_TO_SCOPED_KEYS = new Set(['keys.get', 'keys.create', 'keys.update', 'keys.delete', 'version',
  'dumps.*', 'dumps.create', 'snapshots.*', 'snapshots.create', 'metrics.*', 'metrics.get', 'tasks.compact',
  'experimental.get', 'experimental.update', 'export', 'network.*', 'network.get', 'network.update',
  'chats.*', 'chats.get', 'chats.delete', 'chatsSettings.*', 'chatsSettings.get', 'chatsSettings.update',
  'webhooks.*', 'webhooks.get', 'webhooks.create', 'webhooks.update', 'webhooks.delete',
  'dynamicSearchRules.*', 'dynamicSearchRules.get', 'dynamicSearchRules.create', 'dynamicSearchRules.update', 'dynamicSearchRules.delete']);

function matchesPattern(pattern: string, uid: string): boolean {
  return pattern.endsWith('*') ? uid.startsWith(pattern.slice(0, -1)) : pattern === uid;
}

/** true: authorization passes (the route then answers what it answers, never 401/403). */
function meilisearchAllows(route: RouteSpec, held: readonly string[], indexes: string[], pathIndex: string | null): boolean {
  if (route.action === null) return true;
  const action = route.action;
  if (!held.some((one) => grants(one, action))) return false;
  if (indexes.includes('*')) return true;
  if (pathIndex !== null) return indexes.some((pattern) => matchesPattern(pattern, pathIndex));
  return HANDLER_CHECKED.has(route.action) && indexes.length > 0;
}

// ---------------------------------------------------------------------------------------------------

test.serial('finding 1: a key with `*` on one index can neither read nor create keys', async (t) => {
  const keys = (await master.get('/keys')).body.results;
  const admin = keys.find((key: any) => key.name === 'Default Admin API Key');
  for (const indexes of [['pub'], ['pu*']]) {
    const scoped = await createKey(['*'], indexes);
    const asScoped = master.withKey(scoped.key);
    const label = `* on ${JSON.stringify(indexes)}`;
    const list = await asScoped.get('/keys');
    isRefused(t, list, `${label} GET /keys`);
    t.is(list.body.message, 'The provided API key is invalid.');
    t.false(list.text.includes(admin.key), `${label}: the admin key value leaked`);
    isRefused(t, await asScoped.get(`/keys/${admin.uid}`), `${label} GET /keys/admin`);
    isRefused(t, await asScoped.get(`/keys/${scoped.uid}`), `${label} GET /keys/itself`);
    const before = (await master.get('/keys?limit=1000')).body.total;
    isRefused(t, await asScoped.post('/keys', { actions: ['*'], indexes: ['*'], expiresAt: null }), `${label} POST /keys`);
    t.is((await master.get('/keys?limit=1000')).body.total, before, `${label}: a key was created`);
    isRefused(t, await asScoped.patch(`/keys/${scoped.uid}`, { name: 'mine' }), `${label} PATCH /keys`);
    isRefused(t, await asScoped.delete(`/keys/${admin.uid}`), `${label} DELETE /keys`);
    t.is((await master.get(`/keys/${admin.uid}`)).status, 200);
    isRefused(t, await asScoped.get('/version'), `${label} GET /version`);
    // What the key does reach: its own index, and the routes that filter by index.
    t.is((await asScoped.post('/indexes/pub/search', { q: '' })).status, 200);
    isRefused(t, await asScoped.post('/indexes/priv/search', { q: '' }), `${label} search priv`);
    const listed = await asScoped.get('/indexes');
    t.deepEqual(listed.body.results.map((index: any) => index.uid), ['pub']);
  }
});

// There is no `keys.*` action (Meilisearch answers invalid_api_key_actions): its row holds the four key actions.
const ALL_KEY_ACTIONS = ['keys.get', 'keys.create', 'keys.update', 'keys.delete'];
const SHAPE_ACTIONS: string[][] = [['*'], ALL_KEY_ACTIONS, ['keys.get'], ['keys.create'], ['tasks.*'], ['stats.get'], ['version'], ['search'],
  ['indexes.*'], ['dumps.create'], ['snapshots.create']];
const SHAPE_INDEXES = [['*'], ['pub'], ['pu*']];

function concretePath(route: RouteSpec, indexUid: string): string {
  const path = route.path
    .replace('{indexUid}', indexUid)
    .replace('{documentId}', '1')
    .replace('{taskUid}', '0')
    .replace('{key}', UNKNOWN_KEY_UID);
  // Harmless filters: the cancel / delete routes match no task.
  return path + (route.path === '/tasks/cancel' || (route.path === '/tasks' && route.method === 'DELETE') ? '?uids=999999' : '');
}

test.serial('every route × key shapes (actions × indexes `*`, `pub`, `pu*`)', async (t) => {
  const routes = allRoutes();
  let checked = 0;
  for (const held of SHAPE_ACTIONS) {
    for (const indexes of SHAPE_INDEXES) {
      const label = `${held} on ${JSON.stringify(indexes)}`;
      const creation = await master.post('/keys', { actions: held, indexes, expiresAt: null });
      if (!indexes.includes('*') && held.some((one) => DENIED_TO_SCOPED_KEYS.has(one))) {
        t.is(creation.status, 400, `${label}: ${creation.text}`);
        t.is(creation.body.code, 'index_scoped_api_key_with_global_action', label);
        continue;
      }
      t.is(creation.status, 201, `${label}: ${creation.text}`);
      const client = master.withKey(creation.body.key);
      for (const route of routes) {
        const pathIndexes = route.path.includes('{indexUid}') ? ['pub', 'priv'] : [null];
        for (const pathIndex of pathIndexes) {
          // Bodies that fail validation or do nothing: authorization is decided before the body is read.
          const body = route.body === 'none' ? undefined : route.path.endsWith('/documents') ? [] : {};
          // Never delete the index the rows rely on (its existence does not change authorization anyway).
          const target = route.method === 'DELETE' && route.path === '/indexes/{indexUid}' ? `${pathIndex}_none` : pathIndex ?? '';
          const allowedTarget = route.method === 'DELETE' && route.path === '/indexes/{indexUid}' ? target : pathIndex;
          const response = await client.request(route.method, concretePath(route, target), { body });
          const rowLabel = `${route.method} ${route.path} [${pathIndex ?? '-'}] with ${label}`;
          if (meilisearchAllows(route, held, indexes, allowedTarget)) {
            t.false(response.status === 401 || response.status === 403, `${rowLabel}: ${response.status} ${response.text.slice(0, 200)}`);
          } else {
            isRefused(t, response, rowLabel);
          }
          checked++;
        }
      }
    }
  }
  t.true(checked > 500, String(checked));
});

test.serial('what a key may create: keys.create on `*` only; nothing widens a key afterwards', async (t) => {
  // A key holding keys.create (or `*`) on every index may create any key, an unrestricted one included (as Meilisearch).
  for (const indexes of [['*'], ['pub']]) {
    const response = await master.post('/keys', { actions: ['keys.*'], indexes, expiresAt: null });
    t.is(response.status, 400);
    t.is(response.body.code, 'invalid_api_key_actions');
  }
  for (const held of [['keys.create'], ['*'], ALL_KEY_ACTIONS]) {
    const creator = master.withKey((await createKey(held, ['*'])).key);
    const created = await creator.post('/keys', { actions: ['*'], indexes: ['*'], expiresAt: null });
    t.is(created.status, 201, `${held}: ${created.text}`);
  }
  // keys.create and every other global-only action are refused on a restricted key, alone or among others.
  for (const indexes of [['pub'], ['pu*'], ['pub', 'priv']]) {
    for (const actions of [['keys.create'], ['search', 'keys.get'], ['dumps.*'], ['snapshots.*'], ['version'], ['tasks.compact'],
      ['metrics.get'], ['chats.*'], ['chatsSettings.get'], ['dynamicSearchRules.*'], ['webhooks.create'], ['network.update'], ['export']]) {
      const response = await master.post('/keys', { actions, indexes, expiresAt: null });
      t.is(response.status, 400, `${actions} on ${indexes}: ${response.text}`);
      t.is(response.body.code, 'index_scoped_api_key_with_global_action');
    }
    // Wildcards spanning index actions are accepted; their global parts are simply never usable.
    for (const actions of [['*'], ['*.get'], ['tasks.*'], ['indexes.*'], ['documents.*'], ['settings.*'], ['stats.*'], ['search', 'chatCompletions']]) {
      t.is((await master.post('/keys', { actions, indexes, expiresAt: null })).status, 201, `${actions} on ${indexes}`);
    }
  }
  // An empty `indexes` passes the creation check (as Meilisearch), and such a key reaches nothing at all.
  const noIndex = await master.post('/keys', { actions: ['*'], indexes: [], expiresAt: null });
  t.is(noIndex.status, 201, noIndex.text);
  const asNoIndex = master.withKey(noIndex.body.key);
  for (const [method, path, body] of [['GET', '/keys'], ['POST', '/keys', { actions: ['*'], indexes: ['*'], expiresAt: null }],
    ['GET', '/version'], ['GET', '/stats'], ['GET', '/tasks'], ['GET', '/indexes'], ['POST', '/multi-search', { queries: [] }],
    ['POST', '/indexes/pub/search', { q: '' }]] as const) {
    isRefused(t, await asNoIndex.request(method, path, body === undefined ? {} : { body }), `* on [] ${method} ${path}`);
  }

  const readOnlyGlobal = master.withKey((await createKey(['*.get'], ['pub'])).key);
  isRefused(t, await readOnlyGlobal.get('/version'), '*.get on pub, GET /version');
  t.is((await readOnlyGlobal.get('/stats')).status, 200);

  // PATCH changes name and description only: a keys.update key cannot widen a key.
  const updater = master.withKey((await createKey(['keys.update', 'keys.get'], ['*'])).key);
  const narrow = await createKey(['search'], ['pub']);
  for (const [field, value, code] of [['actions', ['*'], 'immutable_api_key_actions'], ['indexes', ['*'], 'immutable_api_key_indexes'],
    ['expiresAt', null, 'immutable_api_key_expires_at']] as const) {
    const response = await updater.patch(`/keys/${narrow.uid}`, { [field]: value });
    t.is(response.status, 400, field);
    t.is(response.body.code, code);
  }
  t.like((await updater.get(`/keys/${narrow.uid}`)).body, { actions: ['search'], indexes: ['pub'] });

  // An expired key with every key action: refused everywhere.
  const expiring = await createKey([...ALL_KEY_ACTIONS, '*'], ['*'], new Date(Date.now() + 1200).toISOString());
  const expiresAt = Date.parse((await master.get(`/keys/${expiring.uid}`)).body.expiresAt);
  await sleep(Math.max(0, expiresAt - Date.now() + 50));
  const expired = master.withKey(expiring.key);
  isRefused(t, await expired.get('/keys'), 'expired GET /keys');
  isRefused(t, await expired.post('/keys', { actions: ['*'], indexes: ['*'], expiresAt: null }), 'expired POST /keys');
  isRefused(t, await expired.patch(`/keys/${expiring.uid}`, { name: 'x' }), 'expired PATCH /keys');
  isRefused(t, await expired.get('/tasks'), 'expired GET /tasks');
});

test.serial('tenant tokens: only search routes, never beyond the signing key\'s indexes', async (t) => {
  // A token signed by a key of no index reaches no search either, not even an empty multi-search.
  const noIndexParent = await createKey(['search'], []);
  const noIndexToken = await generateTenantToken({ apiKey: noIndexParent.key, apiKeyUid: noIndexParent.uid, searchRules: ['*'], expiresAt: new Date(Date.now() + 60_000) });
  isRefused(t, await master.withKey(noIndexToken).post('/multi-search', { queries: [] }), 'token of a [] key, empty multi-search');
  isRefused(t, await master.withKey(noIndexToken).post('/indexes/pub/search', { q: '' }), 'token of a [] key, search pub');

  const scopedParent = await createKey(['*'], ['pub']);
  const globalParent = await createKey(['*'], ['*']);
  for (const parent of [scopedParent, globalParent]) {
    const token = await generateTenantToken({ apiKey: parent.key, apiKeyUid: parent.uid, searchRules: ['*'], expiresAt: new Date(Date.now() + 60_000) });
    const tenant = master.withKey(token);
    const label = parent === scopedParent ? 'token of a pub key' : 'token of a * key';
    for (const [method, path, body] of [['GET', '/keys'], ['POST', '/keys', { actions: ['*'], indexes: ['*'], expiresAt: null }],
      ['GET', '/version'], ['GET', '/stats'], ['GET', '/tasks'], ['GET', '/indexes'], ['GET', '/indexes/pub/documents'],
      ['DELETE', '/tasks?uids=0'], ['POST', '/indexes', { uid: 'pub2' }]] as const) {
      isRefused(t, await tenant.request(method, path, body === undefined ? {} : { body }), `${label} ${method} ${path}`);
    }
    t.is((await tenant.post('/indexes/pub/search', { q: '' })).status, 200, label);
    t.is((await tenant.post('/multi-search', { queries: [{ indexUid: 'pub', q: '' }] })).status, 200, label);
    const other = await tenant.post('/indexes/priv/search', { q: '' });
    const otherMulti = await tenant.post('/multi-search', { queries: [{ indexUid: 'pub', q: '' }, { indexUid: 'priv', q: '' }] });
    if (parent === scopedParent) {
      isRefused(t, other, `${label} search priv`);
      isRefused(t, otherMulti, `${label} multi-search priv`);
    } else {
      t.is(other.status, 200);
      t.is(otherMulti.status, 200);
    }
  }
});

// ---------------------------------------------------------------------------------------------------
// Finding 2: tasks that are not tied to exactly one index.

async function indexLessTasks(): Promise<{ cancelation: any; deletion: any; uids: number[] }> {
  const privTask = (await master.post('/indexes/priv/documents', [{ id: 2, title: 'secret' }])).body.taskUid;
  await master.waitForTask(privTask);
  const cancelation = await master.waitForTask((await master.post('/tasks/cancel?indexUids=priv&statuses=enqueued')).body.taskUid);
  const deletion = await master.waitForTask((await master.delete('/tasks?indexUids=priv&types=settingsUpdate')).body.taskUid);
  return { cancelation, deletion, uids: [cancelation.uid, deletion.uid] };
}

const RESTRICTED = [['pub'], ['pu*'], ['pub', 'priv']];

test.serial('finding 2: a restricted key does not see tasks that are not tied to one index', async (t) => {
  const { cancelation, deletion, uids: indexLess } = await indexLessTasks();
  t.is(cancelation.type, 'taskCancelation');
  t.is(deletion.type, 'taskDeletion');
  t.is(cancelation.details.originalFilter, '?indexUids=priv&statuses=enqueued');
  for (const indexes of RESTRICTED) {
    const label = `tasks.* on ${JSON.stringify(indexes)}`;
    const scoped = master.withKey((await createKey(['tasks.*'], indexes)).key);
    const all = (await scoped.get('/tasks?limit=1000')).body;
    t.true(all.results.length > 0, label);
    for (const task of all.results) {
      t.not(task.indexUid, null, `${label}: task ${task.uid} (${task.type}) listed`);
      t.true(indexes.some((pattern) => matchesPattern(pattern, task.indexUid)), `${label}: task ${task.uid} of ${task.indexUid}`);
    }
    t.is(all.total, all.results.length, label);
    t.like((await scoped.get('/tasks?types=taskCancelation,taskDeletion')).body, { results: [], total: 0 }, label);
    for (const uid of indexLess) {
      const one = await scoped.get(`/tasks/${uid}`);
      t.is(one.status, 404, `${label} GET /tasks/${uid}: ${one.text}`);
      t.is(one.body.code, 'task_not_found');
      t.is(one.body.message, `Task \`${uid}\` not found.`);
      t.like((await scoped.get(`/tasks?uids=${uid}`)).body, { results: [], total: 0 }, label);
    }
  }
  // A key reaching every index sees them.
  const global = master.withKey((await createKey(['tasks.get'], ['*'])).key);
  t.is((await global.get(`/tasks/${cancelation.uid}`)).status, 200);
  t.true((await global.get('/tasks?types=taskCancelation,taskDeletion')).body.total >= 2);
});

test.serial('finding 2: a restricted key\'s cancel and delete do not match tasks that are not tied to one index', async (t) => {
  const { uids: indexLess } = await indexLessTasks();
  for (const indexes of RESTRICTED) {
    const label = `tasks.* on ${JSON.stringify(indexes)}`;
    const scoped = master.withKey((await createKey(['tasks.*'], indexes)).key);
    // matchedTasks counts matches of every status, so a finished task shows whether it was matched.
    const cancel = await master.waitForTask((await scoped.post(`/tasks/cancel?uids=${indexLess.join(',')}`)).body.taskUid);
    t.like(cancel, { status: 'succeeded', details: { matchedTasks: 0, canceledTasks: 0 } }, label);
    const remove = await master.waitForTask((await scoped.delete('/tasks?types=taskCancelation,taskDeletion')).body.taskUid);
    t.like(remove, { status: 'succeeded', details: { matchedTasks: 0, deletedTasks: 0 } }, label);
    for (const uid of indexLess) t.is((await master.get(`/tasks/${uid}`)).status, 200, `${label}: task ${uid} deleted`);
  }
  // A key reaching every index matches them.
  const global = master.withKey((await createKey(['tasks.*'], ['*'])).key);
  const cancel = await master.waitForTask((await global.post(`/tasks/cancel?uids=${indexLess.join(',')}`)).body.taskUid);
  t.is(cancel.details.matchedTasks, 2);
  const remove = await master.waitForTask((await global.delete(`/tasks?uids=${indexLess.join(',')}`)).body.taskUid);
  t.like(remove.details, { matchedTasks: 2, deletedTasks: 2 });
});
