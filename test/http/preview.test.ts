// The preview page's files over HTTP (no browser): content types, cache headers, the CSP, hashed asset
// names, the size budget; off in production, where `/` answers as Meilisearch without its dashboard.
import test from 'ava';
import { Client, startTestServer, type TestServer } from './harness.js';

const MASTER = 'preview-master-key-0123456789';
/** The page's three files together, uncompressed: no framework, and it must stay that way. */
const SIZE_BUDGET_BYTES = 24 * 1024;

let development: TestServer;
let production: TestServer;
test.before(async () => {
  [development, production] = await Promise.all([
    startTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER }),
    startTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER, env: 'production' }),
  ]);
});
test.after.always(async () => {
  await Promise.all([development?.close(), production?.close()]);
});

function assetPaths(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/preview\/[^"]+)"/g)].map((match) => match[1]!);
}

test('in development GET / is the page, with a strict CSP and no cache without revalidation, and no key needed', async (t) => {
  const page = await new Client(development.client.baseUrl).get('/');
  t.is(page.status, 200);
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  t.is(page.headers.get('cache-control'), 'no-cache');
  t.is(page.headers.get('x-content-type-options'), 'nosniff');
  const csp = page.headers.get('content-security-policy') ?? '';
  t.regex(csp, /default-src 'none'/);
  t.regex(csp, /script-src 'self'(;|$)/);
  t.notRegex(csp, /unsafe-inline|unsafe-eval/);
  // No inline script or style: every script and stylesheet is a file of ours.
  t.notRegex(page.text, /<script(?![^>]*\bsrc=)[^>]*>/);
  t.notRegex(page.text, /<style|style="/);
  t.deepEqual(assetPaths(page.text).map((path) => path.replace(/\.[0-9a-f]{12}\./, '.HASH.')), ['/preview/preview.HASH.css', '/preview/app.HASH.js']);
});

test('the assets are served by hashed name with their content type and a one-year immutable cache; other names are 404', async (t) => {
  const page = await development.client.get('/');
  const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
  let bytes = Buffer.byteLength(page.text);
  for (const path of assetPaths(page.text)) {
    const asset = await new Client(development.client.baseUrl).get(path);
    t.is(asset.status, 200, path);
    t.is(asset.headers.get('content-type'), types[path.split('.').pop()!], path);
    t.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable', path);
    t.is(asset.headers.get('access-control-allow-origin'), '*', path);
    bytes += Buffer.byteLength(asset.text);
  }
  t.true(bytes < SIZE_BUDGET_BYTES, `${bytes} bytes`);
  t.log(`preview page: ${bytes} bytes uncompressed`);
  for (const path of ['/preview/app.js', '/preview/preview.css', '/preview/index.html', '/preview/..%2Fpackage.json', '/preview/app.000000000000.js']) {
    t.is((await development.client.get(path)).status, 404, path);
  }
});

test('the assets are compressed when the client asks', async (t) => {
  const page = await development.client.get('/');
  const script = assetPaths(page.text).find((path) => path.endsWith('.js'))!;
  const response = await fetch(development.client.baseUrl + script, { headers: { 'accept-encoding': 'gzip' } });
  t.is(response.headers.get('content-encoding'), 'gzip');
  t.regex(await response.text(), /highlight/);
});

test('in production GET / answers {"status":"Meilisearch is running"} and the assets are unknown', async (t) => {
  const root = await new Client(production.client.baseUrl).get('/');
  t.is(root.status, 200);
  t.deepEqual(root.body, { status: 'Meilisearch is running' });
  const page = await development.client.get('/');
  for (const path of assetPaths(page.text)) t.is((await production.client.get(path)).status, 404, path);
});
