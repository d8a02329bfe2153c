// Request bodies: Content-Type rules (415), malformed and missing payloads (400), size limit (413), compression.
import test from 'ava';
import { gzipSync } from 'node:zlib';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let small: TestServer;
test.before(async () => {
  [server, small] = await Promise.all([
    startTestServer({ workers: 1, shardsPerIndex: 2 }),
    startTestServer({ workers: 1, shardsPerIndex: 1, httpPayloadSizeLimit: 1000 }),
  ]);
});
test.after.always(async () => {
  await Promise.all([server?.close(), small?.close()]);
});

const DOCUMENT_TYPES = '`application/json`, `application/x-ndjson`, `text/csv`';
const NOT_OBJECTS =
  "The `json` payload provided is malformed. `Couldn't serialize document value: data are neither an object nor a list of objects`.";
const TOO_LARGE = 'The provided payload reached the size limit. The maximum accepted payload size is 1 KB.';

test('JSON route without Content-Type is 415 missing_content_type', async (t) => {
  const response = await server.client.post('/indexes', { uid: 'pl_a' }, { contentType: null });
  t.is(response.status, 415);
  t.deepEqual(
    response.body,
    errorBody('A Content-Type header is missing. Accepted values for the Content-Type header are: `application/json`', 'missing_content_type'),
  );
});

test('JSON route with another Content-Type is 415 invalid_content_type', async (t) => {
  const response = await server.client.post('/indexes', { uid: 'pl_a' }, { contentType: 'text/plain' });
  t.is(response.status, 415);
  t.deepEqual(
    response.body,
    errorBody(
      'The Content-Type `text/plain` is invalid. Accepted values for the Content-Type header are: `application/json`',
      'invalid_content_type',
    ),
  );
});

test('document route without Content-Type lists the three accepted types', async (t) => {
  const response = await server.client.post('/indexes/pl_docs/documents', [{ id: 1 }], { contentType: null });
  t.is(response.status, 415);
  t.deepEqual(
    response.body,
    errorBody(`A Content-Type header is missing. Accepted values for the Content-Type header are: ${DOCUMENT_TYPES}`, 'missing_content_type'),
  );
});

test('document route with text/plain is invalid_content_type', async (t) => {
  const response = await server.client.post('/indexes/pl_docs/documents', [{ id: 1 }], { contentType: 'text/plain' });
  t.is(response.status, 415);
  t.deepEqual(
    response.body,
    errorBody(`The Content-Type \`text/plain\` is invalid. Accepted values for the Content-Type header are: ${DOCUMENT_TYPES}`, 'invalid_content_type'),
  );
});

test('Content-Type parameters such as charset are ignored on document routes', async (t) => {
  const response = await server.client.post('/indexes/pl_charset/documents', [{ id: 1 }], {
    contentType: 'application/json; charset=utf-8',
  });
  t.is(response.status, 202);
  t.is((await server.client.waitForTask(response.body.taskUid)).status, 'succeeded');
});

test('malformed JSON on a JSON route is malformed_payload', async (t) => {
  const response = await server.client.post('/indexes', undefined, { raw: '{"uid":' });
  t.is(response.status, 400);
  t.deepEqual(
    response.body,
    errorBody('The json payload provided is malformed. `EOF while parsing a value at line 1 column 7`.', 'malformed_payload'),
  );
});

test('an empty body on a JSON route is missing_payload', async (t) => {
  const response = await server.client.post('/indexes', undefined, { raw: '' });
  t.is(response.status, 400);
  t.deepEqual(response.body, errorBody('A json payload is missing.', 'missing_payload'));
});

test('malformed document payloads are rejected synchronously, no task is created', async (t) => {
  const { client } = server;
  const syntax = await client.post('/indexes/pl_bad/documents', undefined, { raw: '[{"id": 1' });
  t.is(syntax.status, 400);
  t.deepEqual(
    syntax.body,
    errorBody(
      "The `json` payload provided is malformed. `Couldn't serialize document value: EOF while parsing an object at line 1 column 9`.",
      'malformed_payload',
    ),
  );
  for (const raw of ['[1, 2]', '"documents"', '42', '[{"id": 1}, 2]']) {
    const shape = await client.post('/indexes/pl_bad/documents', undefined, { raw });
    t.is(shape.status, 400, raw);
    t.deepEqual(shape.body, errorBody(NOT_OBJECTS, 'malformed_payload'), raw);
  }
  const ndjson = await client.post('/indexes/pl_bad/documents', undefined, {
    raw: '{"id": 1}\n{"id": 2',
    contentType: 'application/x-ndjson',
  });
  t.is(ndjson.status, 400);
  t.is(ndjson.body.code, 'malformed_payload');
  t.regex(ndjson.body.message, /^The `ndjson` payload provided is malformed\. /);

  const csv = await client.post('/indexes/pl_bad/documents', undefined, {
    raw: 'id,price:number\n1,abc\n',
    contentType: 'text/csv',
  });
  t.is(csv.status, 400);
  t.deepEqual(
    csv.body,
    errorBody('The `csv` payload provided is malformed: `Error parsing number "abc" at line 1: invalid float literal`.', 'malformed_payload'),
  );
  const boolean = await client.post('/indexes/pl_bad/documents', undefined, {
    raw: 'id,ok:boolean\n1,true\n2,yes\n',
    contentType: 'text/csv',
  });
  t.is(boolean.status, 400);
  t.deepEqual(
    boolean.body,
    errorBody(
      'The `csv` payload provided is malformed: `Error parsing boolean "yes" at line 2: provided string was not `true` or `false``.',
      'malformed_payload',
    ),
  );

  const tasks = await client.get('/tasks?indexUids=pl_bad');
  t.is(tasks.status, 200);
  t.is(tasks.body.total, 0);
  t.is((await client.get('/indexes/pl_bad')).status, 404);
});

test('empty document payloads are missing_payload per format', async (t) => {
  for (const [contentType, name] of [
    ['application/json', 'json'],
    ['application/x-ndjson', 'ndjson'],
    ['text/csv', 'csv'],
  ]) {
    const response = await server.client.post('/indexes/pl_empty/documents', undefined, { raw: '', contentType });
    t.is(response.status, 400, contentType);
    t.deepEqual(response.body, errorBody(`A ${name} payload is missing.`, 'missing_payload'), contentType);
  }
});

test('an empty JSON array is a task with zero documents', async (t) => {
  const response = await server.client.post('/indexes/pl_zero/documents', []);
  t.is(response.status, 202);
  // Meilisearch: tests/documents/add_documents.rs `add_no_documents` (no primary key needed when nothing is added).
  const task = await server.client.waitForTask(response.body.taskUid);
  t.is(task.status, 'succeeded', JSON.stringify(task.error));
  t.deepEqual(task.details, { receivedDocuments: 0, indexedDocuments: 0 });
});

test('csvDelimiter with a non-CSV Content-Type is invalid_content_type', async (t) => {
  const response = await server.client.post('/indexes/pl_delim/documents?csvDelimiter=%3B', [{ id: 1 }]);
  t.is(response.status, 415);
  t.deepEqual(
    response.body,
    errorBody(
      'The Content-Type `application/json` does not support the use of a csv delimiter. The csv delimiter can only be used with the Content-Type `text/csv`.',
      'invalid_content_type',
    ),
  );
});

test('gzip-compressed document payloads are accepted', async (t) => {
  const { client } = server;
  const raw = gzipSync(JSON.stringify([{ id: 1, title: 'zipped' }]));
  const response = await client.post('/indexes/pl_gzip/documents', undefined, { raw, headers: { 'content-encoding': 'gzip' } });
  t.is(response.status, 202);
  t.is((await client.waitForTask(response.body.taskUid)).status, 'succeeded');
  t.deepEqual((await client.get('/indexes/pl_gzip/documents/1')).body, { id: 1, title: 'zipped' });
});

test('a corrupt gzip stream is 400 bad_request', async (t) => {
  const response = await server.client.post('/indexes/pl_gzip_bad/documents', undefined, {
    raw: 'definitely not gzip',
    headers: { 'content-encoding': 'gzip' },
  });
  t.is(response.status, 400);
  t.is(response.body.code, 'bad_request');
});

test('document payload over the limit is 413 payload_too_large', async (t) => {
  const documents = [{ id: 1, text: 'x'.repeat(2000) }];
  const response = await small.client.post('/indexes/pl_big/documents', documents);
  t.is(response.status, 413);
  t.deepEqual(response.body, errorBody(TOO_LARGE, 'payload_too_large'));
  t.is((await small.client.get('/tasks?indexUids=pl_big')).body.total, 0);
});

test('JSON route payload over the limit is 413 payload_too_large', async (t) => {
  const response = await small.client.post('/indexes', { uid: 'pl_big_body', primaryKey: 'x'.repeat(2000) });
  t.is(response.status, 413);
  t.deepEqual(response.body, errorBody(TOO_LARGE, 'payload_too_large'));
});

test('the limit counts decompressed bytes', async (t) => {
  const raw = gzipSync(JSON.stringify([{ id: 1, text: 'x'.repeat(5000) }]));
  t.true(raw.byteLength < 1000);
  const response = await small.client.post('/indexes/pl_big_gzip/documents', undefined, {
    raw,
    headers: { 'content-encoding': 'gzip' },
  });
  t.is(response.status, 413);
  t.deepEqual(response.body, errorBody(TOO_LARGE, 'payload_too_large'));
});

test('a payload just under the limit is accepted', async (t) => {
  const response = await small.client.post('/indexes/pl_fits/documents', [{ id: 1, text: 'x'.repeat(900) }]);
  t.is(response.status, 202);
});

test('csvDelimiter must be exactly one ASCII character', async (t) => {
  const response = await server.client.post('/indexes/pl_delim2/documents?csvDelimiter=ab', undefined, {
    raw: 'id\n1\n',
    contentType: 'text/csv',
  });
  t.is(response.status, 400);
  t.is(response.body.code, 'invalid_document_csv_delimiter');
});
