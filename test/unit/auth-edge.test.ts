// Pure parts of the HTTP edge's auth and compression: /keys body validation, expiresAt formats,
// search access for body-named indexes, Accept-Encoding negotiation.
import test from 'ava';
import { checkSearchAccess, FULL_ACCESS, parseSearchRules, type Access } from '../../src/auth/index.js';
import { SkeinError } from '../../src/errors/index.js';
import { parseCreateKeyBody, parseExpiresAt, parsePatchKeyBody } from '../../src/front/keys/key-body.js';
import { EncodingNegotiation, negotiateEncoding } from '../../src/front/http/response-compression.js';
import { handWrittenNegotiateEncoding } from '../../bench/hand-written-negotiation.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (error) {
    return (error as SkeinError).code;
  }
};

test('expiresAt: four formats, UTC, strictly in the future', (t) => {
  t.is(parseExpiresAt('2042-04-02T00:42:42Z', NOW), '2042-04-02T00:42:42Z');
  t.is(parseExpiresAt('2042-04-02T00:42:42+02:00', NOW), '2042-04-01T22:42:42Z');
  t.is(parseExpiresAt('2042-04-02T00:42:42', NOW), '2042-04-02T00:42:42Z');
  t.is(parseExpiresAt('2042-04-02 00:42:42', NOW), '2042-04-02T00:42:42Z');
  t.is(parseExpiresAt('2042-04-02', NOW), '2042-04-02T00:00:00Z');
  t.is(parseExpiresAt(null, NOW), null);
  t.is(codeOf(() => parseExpiresAt('2030-01-01T00:00:00Z', NOW)), 'invalid_api_key_expires_at');
  t.is(codeOf(() => parseExpiresAt('2042-13-01', NOW)), 'invalid_api_key_expires_at');
  t.is(codeOf(() => parseExpiresAt(42, NOW)), 'invalid_api_key_expires_at');
});

test('create body: defaults, generated uid, lowercase uid, field checks in body order', (t) => {
  const key = parseCreateKeyBody({ actions: ['*'], indexes: ['*'], expiresAt: null }, 'now', NOW);
  t.like(key, { name: null, description: null, createdAt: 'now', updatedAt: 'now' });
  t.regex(key.uid, /^[0-9a-f-]{36}$/);
  t.is(parseCreateKeyBody({ uid: 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA', actions: [], indexes: [], expiresAt: null }, 'now', NOW).uid,
    'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
  t.is(codeOf(() => parseCreateKeyBody([], 'now', NOW)), 'bad_request');
  t.is(codeOf(() => parseCreateKeyBody({ actions: ['nope'], indexes: 'x' }, 'now', NOW)), 'invalid_api_key_actions');
  t.is(codeOf(() => parseCreateKeyBody({ indexes: 'x', actions: ['nope'] }, 'now', NOW)), 'invalid_api_key_indexes');
  t.is(codeOf(() => parseCreateKeyBody({ actions: ['dumps.create'], indexes: ['a'], expiresAt: null }, 'now', NOW)), 'index_scoped_api_key_with_global_action');
});

test('patch body: name and description only', (t) => {
  t.deepEqual(parsePatchKeyBody({ name: 'a', description: null }), { name: 'a', description: null });
  t.deepEqual(parsePatchKeyBody({}), {});
  t.is(codeOf(() => parsePatchKeyBody({ indexes: [] })), 'immutable_api_key_indexes');
  t.is(codeOf(() => parsePatchKeyBody({ name: 1 })), 'invalid_api_key_name');
  t.is(codeOf(() => parsePatchKeyBody({ other: 1 })), 'bad_request');
});

test('search access for body-named indexes (multi-search): key patterns and tenant rules', (t) => {
  t.notThrows(() => checkSearchAccess(FULL_ACCESS, 'anything'));
  const key: Access = { indexes: ['movies_*'], searchRules: null, allowIndexCreation: false };
  t.notThrows(() => checkSearchAccess(key, 'movies_1'));
  t.is(t.throws(() => checkSearchAccess(key, 'books'))?.message, 'The API key cannot acces the index `books`, authorized indexes are ["movies_*"].');
  const tenant: Access = { indexes: ['movies_*'], searchRules: parseSearchRules({ '*': null }), allowIndexCreation: false };
  t.is(t.throws(() => checkSearchAccess(tenant, 'books'))?.message, 'The API key used to generate this tenant token cannot acces the index `books`.');
  const narrow: Access = { indexes: null, searchRules: parseSearchRules(['movies_1']), allowIndexCreation: false };
  t.is(codeOf(() => checkSearchAccess(narrow, 'movies_2')), 'invalid_api_key');
});

test('Accept-Encoding negotiation', (t) => {
  t.is(negotiateEncoding(null), null);
  t.is(negotiateEncoding('br, gzip, deflate'), 'gzip');
  t.is(negotiateEncoding('br'), 'br');
  t.is(negotiateEncoding('deflate'), 'deflate');
  t.is(negotiateEncoding('gzip;q=0.1, br;q=0.8'), 'br');
  t.is(negotiateEncoding('gzip;q=0, *'), 'br');
  t.is(negotiateEncoding('*;q=0'), null);
  t.is(negotiateEncoding('identity, compress'), null);
  t.is(negotiateEncoding('GZIP'), 'gzip');
});

test('negotiator answers every Accept-Encoding as the hand-written negotiation did; the remembered one too', (t) => {
  const remembered = new EncodingNegotiation();
  const headers = ['', 'gzip', 'br', 'deflate', 'identity', '*', '*;q=0', 'gzip;q=0', 'gzip;q=0, *', 'br, gzip, deflate', 'deflate, br',
    'gzip;q=0.1, br;q=0.8', 'br;q=1.0, gzip;q=0.8, *;q=0.1', 'GZIP', 'Br', 'gzip;q=abc', 'gzip ; q=0.5 , br ; q=0.5', 'gzip;q=-1', 'gzip;Q=0', 'gzip;q=0 , br;q=0',
    'compress, identity;q=0', 'x-gzip', 'gzip, deflate, br, zstd', 'zstd', 'identity;q=0, deflate;q=0.2', ',,gzip,,', 'gzip;level=1;q=0.3, br;q=0.2',
    'br;q=0.5, deflate;q=0.5, gzip;q=0.4', '*;q=0.5, gzip;q=0.5', 'deflate;q=1, *;q=1'];
  for (const header of headers) {
    const before = handWrittenNegotiateEncoding(header || null);
    t.is(negotiateEncoding(header || null), before, JSON.stringify(header));
    t.is(remembered.negotiate(header), before, `remembered ${JSON.stringify(header)}`);
    t.is(remembered.negotiate(header), before, `remembered twice ${JSON.stringify(header)}`);
  }
  // The two malformed q-values where they part: negotiator reads an empty q as 1 and the first of two q.
  t.is(handWrittenNegotiateEncoding('gzip;q='), null);
  t.is(negotiateEncoding('gzip;q='), 'gzip');
  t.is(handWrittenNegotiateEncoding('gzip;q=0.5;q=0'), null);
  t.is(negotiateEncoding('gzip;q=0.5;q=0'), 'gzip');
});
