// The HTTP edge's compression: request bodies with Content-Encoding gzip/br/deflate on every JSON route,
// responses compressed per Accept-Encoding (spec §4.1), and the size limit counted after decompression.
import { request as httpRequest } from 'node:http';
import test from 'ava';
import { brotliCompressSync, brotliDecompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'compression-master-key-01234';
let server: TestServer;
test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1, httpPayloadSizeLimit: 64 * 1024 });
  const documents = Array.from({ length: 300 }, (_, i) => ({ id: i, title: `document ${i} `.repeat(20) }));
  // Two payloads: together they exceed the 64 KiB body limit of this server.
  await server.client.addDocuments('zipped', documents.slice(0, 150));
  await server.client.addDocuments('zipped', documents.slice(150));
});
test.after.always(async () => {
  await server?.close();
});

const COMPRESSORS = { gzip: gzipSync, br: brotliCompressSync, deflate: deflateSync } as const;
const DECOMPRESSORS: Record<string, (buffer: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync, deflate: inflateSync };

/** A raw request (node:http does not decode), so the compressed bytes can be checked. */
function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers: { authorization: `Bearer ${MASTER}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

for (const [encoding, compress] of Object.entries(COMPRESSORS)) {
  test(`JSON routes accept ${encoding} request bodies`, async (t) => {
    const search = await server.client.post('/indexes/zipped/search', undefined, {
      raw: compress(JSON.stringify({ q: 'document', limit: 2 })), headers: { 'content-encoding': encoding },
    });
    t.is(search.status, 200);
    t.is(search.body.hits.length, 2);
    const key = await server.client.post('/keys', undefined, {
      raw: compress(JSON.stringify({ actions: ['search'], indexes: ['zipped'], expiresAt: null, name: encoding })),
      headers: { 'content-encoding': encoding },
    });
    t.is(key.status, 201);
    t.is(key.body.name, encoding);
  });

  test(`responses are ${encoding}-compressed when asked`, async (t) => {
    for (const path of ['/health', '/indexes/zipped/documents?limit=300']) {
      const response = await raw('GET', path, { 'accept-encoding': encoding });
      t.is(response.status, 200);
      t.is(response.headers['content-encoding'], encoding, path);
      t.is(response.headers['vary'], 'Accept-Encoding');
      const text = DECOMPRESSORS[encoding]!(response.body).toString();
      t.notThrows(() => JSON.parse(text));
    }
  });
}

test('compressed search answers (hits from their stored bytes, non-ASCII too) decode to the uncompressed answer, each its own', async (t) => {
  await server.client.addDocuments('accents', [
    { id: 1, title: 'café crème brûlée' }, { id: 2, title: 'naïve façade — 東京 title' }, { id: 3, title: 'plain ascii title' },
  ]);
  const withoutTime = (body: Buffer) => {
    const answer = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    delete answer['processingTimeMs'];
    return answer;
  };
  for (const q of ['café', 'naïve', 'plain', 'title']) {
    const path = `/indexes/accents/search?q=${encodeURIComponent(q)}`;
    const plain = withoutTime((await raw('GET', path, {})).body);
    t.true((plain['hits'] as unknown[]).length > 0, q);
    // At once: the answers are written through one reused buffer on the front thread.
    const answers = await Promise.all([...Object.keys(COMPRESSORS), 'gzip', 'br'].map(async (encoding) => ({ encoding, response: await raw('GET', path, { 'accept-encoding': encoding }) })));
    for (const { encoding, response } of answers) {
      t.is(response.headers['content-encoding'], encoding);
      t.deepEqual(withoutTime(DECOMPRESSORS[encoding]!(response.body)), plain, `${q} ${encoding}`);
    }
  }
});

test('a search answer over the inline limit is compressed off-thread from its own copy and decodes to the same answer', async (t) => {
  const path = '/indexes/zipped/search?q=document&limit=300';
  const withoutTime = (body: Buffer) => {
    const answer = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    delete answer['processingTimeMs'];
    return answer;
  };
  const plain = await raw('GET', path, {});
  t.true(plain.body.length > 64 * 1024);
  // At once with small uncompressed searches, whose answers go through the reused buffer while the large
  // ones are compressed off the thread (from the buffer itself, they came out corrupt).
  const large = Array.from({ length: 6 }, (_, k) => raw('GET', path, { 'accept-encoding': k % 2 === 0 ? 'gzip' : 'br' }));
  const small = Array.from({ length: 40 }, (_, k) => raw('GET', `/indexes/zipped/search?q=document%20${k}&limit=3`, {}));
  const answers = await Promise.all(large);
  await Promise.all(small);
  for (const [k, answer] of answers.entries()) {
    t.deepEqual(withoutTime(k % 2 === 0 ? gunzipSync(answer.body) : brotliDecompressSync(answer.body)), withoutTime(plain.body));
  }
});

test('the large documents page is compressed off-thread and decodes to the same JSON', async (t) => {
  const plain = await raw('GET', '/indexes/zipped/documents?limit=300', {});
  t.is(plain.headers['content-encoding'], undefined);
  t.true(plain.body.length > 64 * 1024);
  const zipped = await raw('GET', '/indexes/zipped/documents?limit=300', { 'accept-encoding': 'gzip' });
  t.true(zipped.body.length < plain.body.length / 4);
  t.deepEqual(gunzipSync(zipped.body), plain.body);
});

test('Accept-Encoding negotiation: q-values, refusals, identity', async (t) => {
  const encodingFor = async (accept: string) => (await raw('GET', '/health', { 'accept-encoding': accept })).headers['content-encoding'];
  t.is(await encodingFor('gzip, deflate, br'), 'gzip');
  t.is(await encodingFor('gzip;q=0, br'), 'br');
  t.is(await encodingFor('deflate;q=0.5, br;q=0.9'), 'br');
  t.is(await encodingFor('identity'), undefined);
  t.is(await encodingFor('*'), 'gzip');
  t.is(await encodingFor('zstd'), undefined);
  const empty = await raw('DELETE', '/keys/99999999-9999-4999-8999-999999999999', { 'accept-encoding': 'gzip' });
  t.is(empty.status, 404);
});

test('bodies are limited after decompression; corrupt and empty bodies have their codes', async (t) => {
  const bomb = gzipSync(JSON.stringify({ q: 'x'.repeat(100 * 1024) }));
  t.true(bomb.length < 64 * 1024);
  const tooLarge = await server.client.post('/indexes/zipped/search', undefined, { raw: bomb, headers: { 'content-encoding': 'gzip' } });
  t.is(tooLarge.status, 413);
  t.is(tooLarge.body.code, 'payload_too_large');
  const corrupt = await server.client.post('/indexes/zipped/search', undefined, { raw: 'not gzip at all', headers: { 'content-encoding': 'gzip' } });
  t.is(corrupt.status, 400);
  t.is(corrupt.body.code, 'bad_request');
  const empty = await server.client.post('/keys', undefined, { raw: '', contentType: 'application/json' });
  t.is(empty.body.code, 'missing_payload');
  const malformed = await server.client.post('/keys', undefined, { raw: '{"actions": [', contentType: 'application/json' });
  t.is(malformed.body.code, 'malformed_payload');
  const noType = await server.client.post('/keys', undefined, { raw: '{}', contentType: null });
  t.is(noType.body.code, 'missing_content_type');
});
