// CORS as Meilisearch does it (actix-cors: send_wildcard, any origin, any header, any method, max age
// 24 h): a preflight OPTIONS on any path is answered by the edge itself, without an API key; every
// actual answer (successes and errors, compressed or not, list bodies included) carries
// `Access-Control-Allow-Origin: *`.
import { request as httpRequest } from 'node:http';
import test from 'ava';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'cors-master-key-0123456789';
const ORIGIN = 'http://127.0.0.1:9';
let secured: TestServer;
let open: TestServer;

test.before(async () => {
  [secured, open] = await Promise.all([
    startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 }),
    startTestServer({ workers: 1, shardsPerIndex: 1 }),
  ]);
  const documents = Array.from({ length: 400 }, (_, i) => ({ id: i, title: `film number ${i} `.repeat(20), genre: i % 2 ? 'drama' : 'comedy' }));
  await Promise.all([secured.client.addDocuments('films', documents), open.client.addDocuments('films', documents)]);
});
test.after.always(async () => {
  await Promise.all([secured?.close(), open?.close()]);
});

interface RawResponse { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** A raw request (node:http: no CORS logic, no decoding), so the exact headers can be checked. */
function raw(server: TestServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const PREFLIGHT_PATHS: Array<[string, string]> = [
  ['POST', '/indexes/films/search'],
  ['GET', '/indexes/films/search'],
  ['POST', '/multi-search'],
  ['POST', '/indexes/films/documents'],
  ['DELETE', '/indexes/films/documents/3'],
  ['GET', '/keys'],
  ['PATCH', '/keys/some-key'],
  ['GET', '/no/such/route'],
];

for (const [name, server] of [['with a master key', () => secured], ['without a master key', () => open]] as const) {
  test(`preflight OPTIONS is answered on every route, ${name}, without an API key`, async (t) => {
    for (const [method, path] of PREFLIGHT_PATHS) {
      const response = await raw(server(), 'OPTIONS', path, {
        origin: ORIGIN,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type, x-meilisearch-client',
      });
      t.true(response.status === 200 || response.status === 204, `${method} ${path}: ${response.status} ${response.body}`);
      t.is(response.headers['access-control-allow-origin'], '*', path);
      const methods = String(response.headers['access-control-allow-methods']).split(',').map((one) => one.trim());
      for (const one of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) t.true(methods.includes(one), `${path} allows ${one}: ${methods}`);
      t.is(response.headers['access-control-allow-headers'], 'authorization, content-type, x-meilisearch-client', path);
      t.is(response.headers['access-control-max-age'], '86400', path);
      t.regex(String(response.headers['vary']), /Origin/, path);
    }
  });
}

test('a preflight that asks for no header gets no Access-Control-Allow-Headers; one without a requested method is a 400 as in actix-cors', async (t) => {
  const plain = await raw(secured, 'OPTIONS', '/indexes/films/search', { origin: ORIGIN, 'access-control-request-method': 'GET' });
  t.is(plain.status, 200);
  t.is(plain.headers['access-control-allow-headers'], undefined);
  t.is(plain.headers['access-control-allow-origin'], '*');
  const bare = await raw(secured, 'OPTIONS', '/indexes/films/search', { origin: ORIGIN });
  t.is(bare.status, 400);
  t.is(bare.headers['access-control-allow-origin'], '*');
  t.regex(bare.body.toString(), /Access-Control-Request-Method/);
  const unknownMethod = await raw(secured, 'OPTIONS', '/health', { origin: ORIGIN, 'access-control-request-method': 'BREW' });
  t.is(unknownMethod.status, 400);
});

test('actual answers carry Access-Control-Allow-Origin: *, successes and errors alike', async (t) => {
  const auth = { authorization: `Bearer ${MASTER}`, origin: ORIGIN };
  const cases: Array<[string, string, Record<string, string>, string | undefined, number]> = [
    ['GET', '/health', { origin: ORIGIN }, undefined, 200],
    ['POST', '/indexes/films/search', { ...auth, 'content-type': 'application/json' }, '{"q":"film","limit":3}', 200],
    ['GET', '/indexes/films/search?q=film&limit=2', auth, undefined, 200],
    ['POST', '/multi-search', { ...auth, 'content-type': 'application/json' }, '{"queries":[{"indexUid":"films","q":"film"}]}', 200],
    ['GET', '/indexes/films/documents?limit=2', auth, undefined, 200],
    ['POST', '/indexes/films/documents', { ...auth, 'content-type': 'application/json' }, '[{"id":9999,"title":"late"}]', 202],
    ['GET', '/keys', auth, undefined, 200],
    ['GET', '/indexes/films/search?q=film', { origin: ORIGIN }, undefined, 401],
    ['GET', '/indexes/films/search?q=film', { origin: ORIGIN, authorization: 'Bearer wrong-key' }, undefined, 403],
    ['GET', '/indexes/nope/search?q=film', auth, undefined, 404],
    ['GET', '/no/such/route', auth, undefined, 404],
    ['PUT', '/health', auth, undefined, 405],
    ['POST', '/indexes/films/search', { ...auth, 'content-type': 'application/json' }, '{"q":', 400],
    ['POST', '/indexes/films/search', { ...auth, 'content-type': 'application/json' }, '{"limit":"x"}', 400],
    ['POST', '/indexes/films/search', { ...auth, 'content-type': 'text/plain' }, '{}', 415],
  ];
  for (const [method, path, headers, body, status] of cases) {
    const response = await raw(secured, method, path, headers, body);
    t.is(response.status, status, `${method} ${path}: ${response.body}`);
    t.is(response.headers['access-control-allow-origin'], '*', `${method} ${path} (${status})`);
    if (response.body.length > 0) t.is(response.headers['content-type'], 'application/json', `${method} ${path}`);
  }
});

test('compressed answers carry the header too: inline and off-thread compression, list bodies, errors', async (t) => {
  const headers = { authorization: `Bearer ${MASTER}`, origin: ORIGIN, 'accept-encoding': 'gzip' };
  const small = await raw(secured, 'POST', '/indexes/films/search', { ...headers, 'content-type': 'application/json' }, '{"q":"film","limit":2}');
  t.is(small.status, 200);
  t.is(small.headers['content-encoding'], 'gzip');
  t.is(small.headers['access-control-allow-origin'], '*');
  t.is(JSON.parse(gunzipSync(small.body).toString()).hits.length, 2);
  // Over 64 KiB: compressed on libuv's pool, written from a later turn.
  const large = await raw(secured, 'POST', '/indexes/films/search', { ...headers, 'content-type': 'application/json' }, '{"q":"film","limit":400}');
  t.is(large.status, 200);
  t.is(large.headers['content-encoding'], 'gzip');
  t.true(gunzipSync(large.body).length > 64 * 1024);
  t.is(large.headers['access-control-allow-origin'], '*');
  const error = await raw(secured, 'GET', '/indexes/nope/search?q=x', headers);
  t.is(error.status, 404);
  t.is(error.headers['content-encoding'], 'gzip');
  t.is(error.headers['access-control-allow-origin'], '*');
});

test('a browser-like cross-origin exchange passes the fetch CORS checks: preflight, then the search', async (t) => {
  const url = `http://127.0.0.1:${secured.port}/indexes/films/search`;
  const requested = ['authorization', 'content-type', 'x-meilisearch-client'];
  // What a browser sends before a cross-origin POST with non-safelisted headers.
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': requested.join(',') },
  });
  t.true(preflight.ok);
  const allowOrigin = preflight.headers.get('access-control-allow-origin');
  t.true(allowOrigin === '*' || allowOrigin === ORIGIN);
  const allowedMethods = (preflight.headers.get('access-control-allow-methods') ?? '').split(',').map((one) => one.trim());
  t.true(allowedMethods.includes('POST') || allowedMethods.includes('*'));
  const allowedHeaders = (preflight.headers.get('access-control-allow-headers') ?? '').split(',').map((one) => one.trim().toLowerCase());
  for (const name of requested) t.true(allowedHeaders.includes(name) || allowedHeaders.includes('*'), name);
  // The actual request, without credentials (a wildcard origin forbids them, as in Meilisearch).
  const search = await fetch(url, {
    method: 'POST',
    headers: { origin: ORIGIN, authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'x-meilisearch-client': 'test' },
    body: JSON.stringify({ q: 'film', limit: 1 }),
  });
  t.is(search.status, 200);
  t.is(search.headers.get('access-control-allow-origin'), '*');
  t.is(search.headers.get('access-control-allow-credentials'), null);
  t.is((await search.json() as { hits: unknown[] }).hits.length, 1);
});
