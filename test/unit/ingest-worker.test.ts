import test from 'ava';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import decodePayload from '../../src/ingest/worker.js';
import type { DecodePayloadInput } from '../../src/ingest/payload-types.js';

const directory = mkdtempSync(join(tmpdir(), 'skein-ingest-'));
test.after.always(() => rmSync(directory, { recursive: true, force: true }));

function input(body: string | Buffer, overrides: Partial<DecodePayloadInput> = {}): DecodePayloadInput {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return {
    bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    contentType: 'json',
    csvDelimiter: null,
    contentEncoding: null,
    updateFilesDir: directory,
    sizeLimit: 100_000_000,
    ...overrides,
  };
}

function lines(updateFile: string): unknown[] {
  return readFileSync(join(directory, updateFile), 'utf8').trimEnd().split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

test('json array becomes an ndjson update file', async (t) => {
  const result = await decodePayload(input('[{"id": 1, "a": {"b": [1, 2]}}, {"id": "x"}]'));
  if (!('updateFile' in result)) return t.fail(JSON.stringify(result));
  t.regex(result.updateFile, /^[0-9a-f-]{36}\.ndjson$/);
  t.is(result.documentCount, 2);
  t.deepEqual(lines(result.updateFile), [{ id: 1, a: { b: [1, 2] } }, { id: 'x' }]);
});

test('an empty json array is accepted with no document', async (t) => {
  const result = await decodePayload(input('[]'));
  t.like(result, { documentCount: 0 });
});

test('ndjson and csv payloads', async (t) => {
  const ndjson = await decodePayload(input('{"id":1}\n{"id":2}\n', { contentType: 'ndjson' }));
  t.like(ndjson, { documentCount: 2 });
  const csv = await decodePayload(input('id,n:number\n1,2\n', { contentType: 'csv' }));
  if (!('updateFile' in csv)) return t.fail(JSON.stringify(csv));
  t.deepEqual(lines(csv.updateFile), [{ id: '1', n: 2 }]);
});

test('empty bodies are missing_payload with the content type in the message', async (t) => {
  for (const contentType of ['json', 'ndjson', 'csv'] as const) {
    const result = await decodePayload(input('', { contentType }));
    t.deepEqual(result, {
      error: {
        message: `A ${contentType} payload is missing.`,
        code: 'missing_payload',
        type: 'invalid_request',
        link: 'https://docs.meilisearch.com/errors#missing_payload',
      },
    });
  }
});

test('gzip, deflate and br bodies are decoded', async (t) => {
  const body = '[{"id": 1}]';
  for (const [contentEncoding, bytes] of [
    ['gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
    ['br', brotliCompressSync(body)],
  ] as const) {
    t.like(await decodePayload(input(bytes, { contentEncoding })), { documentCount: 1 }, contentEncoding);
  }
});

test('a corrupt compressed stream is bad_request', async (t) => {
  const result = await decodePayload(input('not gzip at all', { contentEncoding: 'gzip' }));
  t.like(result, { error: { code: 'bad_request', type: 'invalid_request' } });
});

test('the size limit counts decoded bytes', async (t) => {
  const body = JSON.stringify([{ id: 1, text: 'a'.repeat(5000) }]);
  const result = await decodePayload(input(gzipSync(body), { contentEncoding: 'gzip', sizeLimit: 1000 }));
  t.deepEqual(result, {
    error: {
      message: 'The provided payload reached the size limit. The maximum accepted payload size is 1 KB.',
      code: 'payload_too_large',
      type: 'invalid_request',
      link: 'https://docs.meilisearch.com/errors#payload_too_large',
    },
  });
});

// Serial: the other tests write update files into the same directory at the same time.
test.serial('a failed decode leaves no update file behind', async (t) => {
  const before = readdirSync(directory).length;
  const result = await decodePayload(input('id,n:number\n1,2\n2,x\n', { contentType: 'csv' }));
  t.like(result, { error: { code: 'malformed_payload' } });
  t.is(readdirSync(directory).length, before);
});

test('update file lines keep numbers as written; only the lines that need parseExactJson start with a space', async (t) => {
  const raw = (updateFile: string) => readFileSync(join(directory, updateFile), 'utf8').split('\n').filter(Boolean);
  const json = await decodePayload(input('[{"id":1,"a":1.5},{"id":9007199254740993},{ "id": 3, "b": 1.0 },{ "id": 4 }]'));
  if (!('updateFile' in json)) return t.fail(JSON.stringify(json));
  t.deepEqual(raw(json.updateFile), ['{"id":1,"a":1.5}', ' {"id":9007199254740993}', ' {"id":3,"b":1.0}', '{"id":4}']);
  const ndjson = await decodePayload(input('{"id":1e300}\n{"id":2}\n{ "x": -0.0 }\n', { contentType: 'ndjson' }));
  if (!('updateFile' in ndjson)) return t.fail(JSON.stringify(ndjson));
  t.deepEqual(raw(ndjson.updateFile), [' {"id":1e300}', '{"id":2}', ' {"x":-0.0}']);
  const csv = await decodePayload(input('id,p:number\n1,2.0\n2,2.5\n', { contentType: 'csv' }));
  if (!('updateFile' in csv)) return t.fail(JSON.stringify(csv));
  t.deepEqual(raw(csv.updateFile), [' {"id":"1","p":2.0}', '{"id":"2","p":2.5}']);
});
