// Issue 18, findings 6 and 8: document ids and numbers exactly as written (JSON.parse would merge
// 9007199254740993 into 9007199254740992 and rewrite 1.0 as 1), and invalid UTF-8 refused, never
// stored as U+FFFD. Bodies are compared as TEXT: the harness's JSON.parse would round them again.
import test from 'ava';
import { gzipSync } from 'node:zlib';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
});
test.after.always(async () => {
  await server?.close();
});

const INVALID_ID = (shown: string) =>
  `Document identifier \`${shown}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`;

async function addRaw(path: string, raw: string | Uint8Array, contentType = 'application/json', headers: Record<string, string> = {}) {
  const uid = await server.client.enqueue('POST', path, { raw, contentType, headers });
  return server.client.waitForTask(uid);
}

/** The `results` texts of a documents list, split on the top-level objects (no JSON.parse). */
function resultTexts(text: string): string[] {
  const inner = text.slice(text.indexOf('[') + 1, text.lastIndexOf('],"offset"'));
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') {
      if (depth++ === 0) start = i;
    } else if (char === '}' && --depth === 0) out.push(inner.slice(start, i + 1));
  }
  return out;
}

test('two ids beyond 2^53 that round to the same double are two documents, each fetched back exactly', async (t) => {
  const task = await addRaw('/indexes/big_ids/documents', '[{"id":9007199254740993,"n":"odd"},{"id":9007199254740992,"n":"even"}]');
  t.is(task.status, 'succeeded');
  t.deepEqual(task.details, { receivedDocuments: 2, indexedDocuments: 2 });
  const list = await server.client.get('/indexes/big_ids/documents');
  t.deepEqual(resultTexts(list.text).sort(), ['{"id":9007199254740992,"n":"even"}', '{"id":9007199254740993,"n":"odd"}']);
  t.is((await server.client.get('/indexes/big_ids/stats')).body.numberOfDocuments, 2);
  const odd = await server.client.get('/indexes/big_ids/documents/9007199254740993');
  t.is(odd.status, 200);
  t.is(odd.text, '{"id":9007199254740993,"n":"odd"}');
  t.is((await server.client.get('/indexes/big_ids/documents/9007199254740992')).text, '{"id":9007199254740992,"n":"even"}');
});

test('large integer ids work in documents/fetch ids, filters, delete-batch and DELETE /documents/:id', async (t) => {
  const index = '/indexes/big_routes';
  await server.client.run('PATCH', `${index}/settings`, { body: { filterableAttributes: ['id'] } });
  const task = await addRaw(`${index}/documents`,
    '[{"id":18446744073709551615,"n":"max"},{"id":9007199254740993,"n":"odd"},{"id":9007199254740992,"n":"even"},{"id":-9223372036854775808,"n":"min"}]');
  t.is(task.status, 'succeeded');
  t.is(task.details.indexedDocuments, 4);

  const fetched = await server.client.request('POST', `${index}/documents/fetch`, { raw: '{"ids":[9007199254740993,18446744073709551615]}' });
  t.is(fetched.status, 200);
  t.deepEqual(resultTexts(fetched.text), ['{"id":18446744073709551615,"n":"max"}', '{"id":9007199254740993,"n":"odd"}']);

  const listed = await server.client.get(`${index}/documents?ids=9007199254740993,-9223372036854775808`);
  t.deepEqual(resultTexts(listed.text), ['{"id":9007199254740993,"n":"odd"}', '{"id":-9223372036854775808,"n":"min"}']);

  // Filters compare numbers as doubles, as milli's facet number database does: both documents of that double match.
  const filtered = await server.client.post(`${index}/search`, { filter: 'id = 9007199254740993' });
  t.is(filtered.status, 200);
  t.true(filtered.text.includes('{"id":9007199254740993,"n":"odd"}'), filtered.text);
  const byString = await server.client.post(`${index}/documents/fetch`, { filter: 'id = 18446744073709551615' });
  t.deepEqual(resultTexts(byString.text), ['{"id":18446744073709551615,"n":"max"}']);

  await server.client.run('POST', `${index}/documents/delete-batch`, { raw: '[9007199254740993,-9223372036854775808]' });
  const left = await server.client.get(`${index}/documents`);
  t.deepEqual(resultTexts(left.text).sort(), ['{"id":18446744073709551615,"n":"max"}', '{"id":9007199254740992,"n":"even"}']);

  await server.client.run('DELETE', `${index}/documents/18446744073709551615`);
  t.deepEqual(resultTexts((await server.client.get(`${index}/documents`)).text), ['{"id":9007199254740992,"n":"even"}']);
  t.is((await server.client.get(`${index}/documents/18446744073709551615`)).status, 404);
});

test('ids beyond u64 or i64, -0 and floats (1.0 too) are refused with invalid_document_id, nothing of the task stored', async (t) => {
  for (const [literal, shown] of [
    // Shown as serde_json read them: f64s.
    ['18446744073709551616', '1.8446744073709552e+19'],
    ['-9223372036854775809', '-9.223372036854776e+18'],
    ['-0', '-0.0'],
    ['1.0', '1.0'],
    ['1e3', '1000.0'],
    ['1.5', '1.5'],
  ] as const) {
    const task = await addRaw('/indexes/bad_ids/documents', `[{"id":1,"n":"fine"},{"id":${literal},"n":"bad"}]`);
    t.is(task.status, 'failed', literal);
    t.deepEqual(task.error, errorBody(INVALID_ID(shown), 'invalid_document_id'), literal);
  }
  t.is((await server.client.get('/indexes/bad_ids/documents/1')).status, 404);
  // Negative integers within i64 are ids, as serde reads them as i64 (milli's DocumentIdVisitor takes i64).
  const task = await addRaw('/indexes/bad_ids/documents', '[{"id":-5,"n":"negative"}]');
  t.is(task.status, 'succeeded');
  t.is((await server.client.get('/indexes/bad_ids/documents/-5')).text, '{"id":-5,"n":"negative"}');
});

test('integral floats and integers beyond 2^53 round-trip unchanged through GET /documents, fields, PUT, NDJSON, CSV and search', async (t) => {
  const index = '/indexes/floats';
  const numbers = '"a":1.0,"b":1e300,"c":-0.0,"d":12345678901234567890,"e":{"f":9007199254740993,"g":[0.5,2.0]}';
  // Compact (copied as is) and spaced (re-serialized): both keep the numbers.
  const task = await addRaw(`${index}/documents`, `[{"id":1,"title":"float one",${numbers}},\n { "id" : 2, "title": "float two", ${numbers.replaceAll(',', ', ')} }]`);
  t.is(task.status, 'succeeded');
  const expected = (id: number, title: string) => `{"id":${id},"title":"${title}",${numbers}}`;
  t.is((await server.client.get(`${index}/documents/1`)).text, expected(1, 'float one'));
  t.is((await server.client.get(`${index}/documents/2`)).text, expected(2, 'float two'));
  t.is((await server.client.get(`${index}/documents/1?fields=a,b,c,d,e.f`)).text, '{"a":1.0,"b":1e300,"c":-0.0,"d":12345678901234567890,"e":{"f":9007199254740993}}');
  t.deepEqual(resultTexts((await server.client.get(`${index}/documents?fields=id,a`)).text), ['{"id":1,"a":1.0}', '{"id":2,"a":1.0}']);

  const search = await server.client.post(`${index}/search`, { q: 'float one' });
  t.true(search.text.includes(expected(1, 'float one')), search.text);
  const retrieved = await server.client.post(`${index}/search`, { q: 'float one', attributesToRetrieve: ['id', 'a', 'd', 'e'] });
  t.true(retrieved.text.includes('{"id":1,"a":1.0,"d":12345678901234567890,"e":{"f":9007199254740993,"g":[0.5,2.0]}}'), retrieved.text);
  const highlighted = await server.client.post(`${index}/search`, { q: 'float one', attributesToHighlight: ['title', 'a'] });
  t.true(highlighted.text.includes('"a":1.0,"b":1e300'), highlighted.text);
  t.true(highlighted.text.includes('"_formatted":{"id":"1","title":"<em>float</em> <em>one</em>","a":"1.0"'), highlighted.text);

  // A partial update keeps the other fields' numbers.
  await server.client.run('PUT', `${index}/documents`, { raw: '[{"id":1,"h":3.0}]' });
  t.is((await server.client.get(`${index}/documents/1`)).text, `{"id":1,"title":"float one",${numbers},"h":3.0}`);

  await server.client.run('POST', `${index}/documents`, { raw: `{"id":3,"title":"ndjson",${numbers}}\n`, contentType: 'application/x-ndjson' });
  t.is((await server.client.get(`${index}/documents/3`)).text, expected(3, 'ndjson'));
  // CSV numbers are i64 or f64 to Meilisearch: serde_json writes the f64 1 as 1.0.
  await server.client.run('POST', `${index}/documents`, { raw: 'id,title,price:number,big:number\n4,csv,1.0,9007199254740993\n', contentType: 'text/csv' });
  t.is((await server.client.get(`${index}/documents/4`)).text, '{"id":"4","title":"csv","price":1.0,"big":9007199254740993}');
});

const INVALID = Buffer.from([0xff]);
const withInvalid = (before: string, after: string) => Buffer.concat([Buffer.from(before), INVALID, Buffer.from(after)]);
const malformed = (type: string, detail: string) => errorBody(`The \`${type}\` payload provided is malformed. \`Couldn't serialize document value: ${detail}\`.`, 'malformed_payload');

test('invalid UTF-8 in JSON, NDJSON, CSV and gzip-compressed JSON payloads is refused with 400 and nothing stored', async (t) => {
  const json = withInvalid('[{"id":1,"t":"ok"},{"id":2,"t":"a', 'b"}]');
  // serde_json checks each array element's bytes once it ends: the column is just after the second element.
  const jsonError = malformed('json', 'invalid unicode code point at line 1 column 37');
  let response = await server.client.request('POST', '/indexes/utf/documents', { raw: json });
  t.is(response.status, 400);
  t.deepEqual(response.body, jsonError);

  response = await server.client.request('POST', '/indexes/utf/documents', { raw: gzipSync(json), headers: { 'content-encoding': 'gzip' } });
  t.is(response.status, 400);
  t.deepEqual(response.body, jsonError);

  response = await server.client.request('POST', '/indexes/utf/documents', { raw: withInvalid('{"id":1,"t":"ok"}\n{"id":2,"t":"a', 'b"}\n'), contentType: 'application/x-ndjson' });
  t.is(response.status, 400);
  t.deepEqual(response.body, malformed('ndjson', 'invalid unicode code point at line 2 column 18'));

  response = await server.client.request('POST', '/indexes/utf/documents', { raw: withInvalid('id,t\n1,ok\n2,a', 'b\n'), contentType: 'text/csv' });
  t.is(response.status, 400);
  t.deepEqual(response.body, errorBody(
    'The `csv` payload provided is malformed: `CSV parse error: record 2 (line 3, field: 1, byte: 10): invalid utf-8: invalid UTF-8 in field 1 near byte index 1`.',
    'malformed_payload'));

  t.is((await server.client.get('/tasks?indexUids=utf')).body.total, 0);
  t.is((await server.client.get('/indexes/utf')).status, 404);
});

test('invalid UTF-8 in other JSON bodies (search, settings) is malformed_payload', async (t) => {
  await server.client.run('POST', '/indexes', { body: { uid: 'utf_body' } });
  let response = await server.client.request('POST', '/indexes/utf_body/search', { raw: withInvalid('{"q":"a', 'b"}') });
  t.is(response.status, 400);
  t.deepEqual(response.body, errorBody('The json payload provided is malformed. `invalid unicode code point at line 1 column 10`.', 'malformed_payload'));
  response = await server.client.request('PATCH', '/indexes/utf_body/settings', { raw: withInvalid('{"stopWords":["a', '"]}') });
  t.is(response.status, 400);
  t.deepEqual(response.body, errorBody('The json payload provided is malformed. `invalid unicode code point at line 1 column 18`.', 'malformed_payload'));
  t.deepEqual((await server.client.get('/indexes/utf_body/settings/stop-words')).body, []);
});
