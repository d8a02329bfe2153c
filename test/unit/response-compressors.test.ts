// The front's reused zlib contexts (response-compression.ts ResponseCompressors): answer after answer,
// each output decodes to its own body alone (the context is reset between them), at any size up to and
// past the output buffer, for strings and bytes; a context that fails, or a Node without the internals
// it uses, still gives a valid answer (node:zlib's one-shot functions).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { INLINE_COMPRESSION_LIMIT, ResponseCompressors, ReusedZlib, type ResponseEncoding } from '../../src/front/http/response-compression.js';

const decode: Record<ResponseEncoding, (bytes: Buffer) => Buffer> = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function bodyOf(next: () => number): string | Buffer {
  const size = Math.floor(next() ** 3 * (INLINE_COMPRESSION_LIMIT + 8192));
  const kind = next();
  if (kind < 0.3) return randomBytes(size);
  const words = ['react', 'hook', 'Grüße', '東京', '😀', '{"id":', '},'];
  let text = '';
  while (text.length < size) text += words[Math.floor(next() * words.length)]! + (next() < 0.5 ? ' ' : '');
  return kind < 0.6 ? text : Buffer.from(text);
}

test('answer after answer, each decodes to its own body, gzip, deflate and br interleaved', (t) => {
  const compressors = new ResponseCompressors();
  const next = random(46);
  const encodings: ResponseEncoding[] = ['gzip', 'deflate', 'br'];
  let large = 0;
  for (let k = 0; k < 300; k++) {
    const body = bodyOf(next);
    const encoding = encodings[Math.floor(next() * 3)]!;
    const compressed = compressors.compress(body, encoding);
    const expected = typeof body === 'string' ? Buffer.from(body) : body;
    if (!decode[encoding](compressed).equals(expected)) return t.fail(`answer ${k}: ${encoding} of ${expected.length} bytes`);
    if (compressed.length > INLINE_COMPRESSION_LIMIT) large++;
  }
  t.true(large > 0, 'some outputs took more than one output buffer');
  t.pass();
});

test('the output is the caller\'s: a later answer does not change an earlier one', (t) => {
  const compressors = new ResponseCompressors();
  const first = compressors.compress('{"first":true}', 'gzip');
  const copy = Buffer.from(first);
  compressors.compress('{"second":"another answer entirely"}', 'gzip');
  t.deepEqual(first, copy);
  t.is(gunzipSync(first).toString(), '{"first":true}');
});

test('a context whose zlib fails answers null and is replaced; without the internals there is none', (t) => {
  t.is(ReusedZlib.create(() => ({ on() {} })), null);
  let calls = 0;
  const failing = ReusedZlib.create(() => ({
    _handle: { writeSync() { calls++; throw new Error('zlib broke'); }, reset() {} },
    _writeState: new Uint32Array(2),
    on() {},
  }))!;
  t.not(failing, null);
  t.is(failing.compress(Buffer.from('x'), Buffer.alloc(16)), null);
  t.is(failing.compress(Buffer.from('y'), Buffer.alloc(16)), null, 'not used again');
  t.is(calls, 1);

  const compressors = new ResponseCompressors() as unknown as { gzip: ReusedZlib | null; compress: ResponseCompressors['compress'] };
  compressors.gzip = failing;
  t.is(gunzipSync(compressors.compress('{"a":1}', 'gzip')).toString(), '{"a":1}', 'answered by gzipSync');
  t.not(compressors.gzip, failing, 'the failed context was dropped');
  t.is(gunzipSync(compressors.compress('{"b":2}', 'gzip')).toString(), '{"b":2}');

  // Without a context (a Node lacking the internals) every answer is one-shot, none is made again.
  compressors.gzip = null;
  t.is(gunzipSync(compressors.compress('{"c":3}', 'gzip')).toString(), '{"c":3}');
  t.is(compressors.gzip, null);
});
