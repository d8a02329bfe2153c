// The security matrix: every route of the router × every kind of credential, with the expected
// status and code. "Allowed" means authorization passed: the route then answers whatever it answers
// for these requests (2xx or a validation / not-found error), never 401/403.
import test from 'ava';
import { generateTenantToken } from 'meilisearch/token';
import type { RouteSpec } from '../../src/front/http/route-spec.js';
import { allRoutes } from '../../src/front/routes.js';
import { Client, sleep, startTestServer, type TestServer } from './harness.js';

const MASTER = 'matrix-master-key-0123456789';
const ROUTES: RouteSpec[] = allRoutes();
const UNKNOWN_KEY_UID = '99999999-9999-4999-8999-999999999999';

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 2 });
  await server.client.addDocuments('movies', [{ id: 1, title: 'Carol' }, { id: 2, title: 'Heat' }]);
  await server.client.addDocuments('other', [{ id: 1, title: 'Elsewhere' }]);
});
test.after.always(async () => {
  await server?.close();
});

/** Actions of index-less routes that filter by the key's indexes (Meilisearch's RouteHandlerChecksIndex). */
const FILTERING_ROUTE_ACTIONS = new Set(['search', 'indexes.get', 'indexes.create', 'indexes.swap', 'tasks.get', 'tasks.cancel', 'tasks.delete', 'stats.get']);

type Credential = 'none' | 'malformed' | 'unknownKey' | 'withoutAction' | 'otherIndex' | 'expired' | 'master' | 'defaultSearch' | 'tenantToken';
type Expectation = 'allowed' | [number, string];

function expected(credential: Credential, route: RouteSpec): Expectation {
  if (route.action === null) return 'allowed';
  const indexScoped = route.path.includes('{indexUid}');
  switch (credential) {
    case 'none': case 'malformed': return [401, 'missing_authorization_header'];
    case 'unknownKey': case 'withoutAction': case 'expired': return [403, 'invalid_api_key'];
    // A key restricted to some indexes (here `*` on `other`) reaches an index-less route only when the
    // route filters by the key's indexes itself; global routes (/keys, /version) need `indexes: ["*"]`.
    case 'otherIndex': return indexScoped || !FILTERING_ROUTE_ACTIONS.has(route.action) ? [403, 'invalid_api_key'] : 'allowed';
    case 'master': return 'allowed';
    case 'defaultSearch': case 'tenantToken': return route.action === 'search' ? 'allowed' : [403, 'invalid_api_key'];
  }
}

function concretePath(route: RouteSpec): string {
  return route.path
    .replace('{indexUid}', 'movies')
    .replace('{documentId}', '1')
    .replace('{taskUid}', '0')
    .replace('{key}', UNKNOWN_KEY_UID)
    // Harmless filters for the task routes; every other parameter-less route takes none.
    + (route.path === '/tasks' && route.method !== 'GET' ? '?uids=999999' : route.path === '/tasks/cancel' ? '?uids=999999' : '');
}

async function send(client: Client, route: RouteSpec, headers: Record<string, string>) {
  // Bodies that do nothing ([] documents) or fail validation ({} elsewhere): the matrix must not change
  // the data its later rows rely on. DELETE /indexes/{uid} runs last.
  const body = route.body === 'none' ? undefined : route.path.endsWith('/documents') ? [] : {};
  return client.request(route.method, concretePath(route), { body, headers });
}

test.serial('every route × every credential', async (t) => {
  const master = server.client;
  const create = async (actions: string[], indexes: string[], expiresAt: string | null = null) => {
    const response = await master.post('/keys', { actions, indexes, expiresAt });
    if (response.status !== 201) throw new Error(response.text);
    return response.body as { key: string; uid: string };
  };
  const keys = (await master.get('/keys')).body.results;
  const defaultSearch = keys.find((key: any) => key.name === 'Default Search API Key');
  const versionOnly = await create(['version'], ['*']);
  const statsOnly = await create(['stats.get'], ['*']);
  const otherIndex = await create(['*'], ['other']);
  const expiring = await create(['*'], ['*'], new Date(Date.now() + 1500).toISOString());
  const token = await generateTenantToken({ apiKey: defaultSearch.key, apiKeyUid: defaultSearch.uid, searchRules: ['movies'], force: true });
  await sleep(Math.max(0, Date.parse((await master.get(`/keys/${expiring.uid}`)).body.expiresAt) - Date.now() + 50));

  const headersFor = (credential: Credential, route: RouteSpec): Record<string, string> => {
    switch (credential) {
      case 'none': return { authorization: '' };
      case 'malformed': return { authorization: `Basic ${MASTER}` };
      case 'unknownKey': return { authorization: `Bearer ${'0'.repeat(64)}` };
      case 'withoutAction': return { authorization: `Bearer ${route.action === 'version' ? statsOnly.key : versionOnly.key}` };
      case 'otherIndex': return { authorization: `Bearer ${otherIndex.key}` };
      case 'expired': return { authorization: `Bearer ${expiring.key}` };
      case 'master': return { authorization: `Bearer ${MASTER}` };
      case 'defaultSearch': return { authorization: `Bearer ${defaultSearch.key}` };
      case 'tenantToken': return { authorization: `Bearer ${token}` };
    }
  };
  const credentials: Credential[] = ['none', 'malformed', 'unknownKey', 'withoutAction', 'otherIndex', 'expired', 'defaultSearch', 'tenantToken', 'master'];
  // Deleting the index goes last: the other rows need it.
  const routes = [...ROUTES].sort((a, b) => Number(a.method === 'DELETE' && a.path === '/indexes/{indexUid}') - Number(b.method === 'DELETE' && b.path === '/indexes/{indexUid}'));
  let checked = 0;
  for (const route of routes) {
    for (const credential of credentials) {
      const response = await send(new Client(master.baseUrl), route, headersFor(credential, route));
      const want = expected(credential, route);
      const label = `${route.method} ${route.path} with ${credential}: ${response.status} ${response.text.slice(0, 160)}`;
      if (want === 'allowed') {
        t.false(response.status === 401 || response.status === 403, label);
      } else {
        t.is(response.status, want[0], label);
        t.is(response.body?.code, want[1], label);
      }
      checked++;
    }
  }
  t.true(checked >= ROUTES.length * credentials.length);
});
