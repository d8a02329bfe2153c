// src/auth: key derivation, actions and their wildcards, index patterns, tenant tokens, the access decision.
import { createHmac } from 'node:crypto';
import test from 'ava';
import { generateTenantToken } from 'meilisearch/token';
import {
  canSeeIndex, decideAccess, defaultKeyRecords, FULL_ACCESS, deriveKeyValue, expandActions, fuseFilters, isValidIndexPattern, KeyRing,
  mostSpecificPattern, tenantFilter, type KeyRecord,
} from '../../src/auth/index.js';
import { SkeinError } from '../../src/errors/index.js';

const MASTER = 'a-master-key-of-16+bytes';
const NOW = Date.parse('2030-01-01T00:00:00Z');

function record(uid: string, actions: string[], indexes: string[], expiresAt: string | null = null): KeyRecord {
  return { uid, name: null, description: null, actions, indexes, expiresAt, createdAt: '2029-01-01T00:00:00Z', updatedAt: '2029-01-01T00:00:00Z' };
}

const SEARCH_UID = '11111111-1111-4111-8111-111111111111';
const ADMIN_UID = '22222222-2222-4222-8222-222222222222';
const MOVIES_UID = '33333333-3333-4333-8333-333333333333';
const EXPIRED_UID = '44444444-4444-4444-8444-444444444444';
const RING = new KeyRing(MASTER, [
  record(SEARCH_UID, ['search'], ['*']),
  record(ADMIN_UID, ['*'], ['*']),
  record(MOVIES_UID, ['documents.*', 'search'], ['movies', 'books_*']),
  record(EXPIRED_UID, ['*'], ['*'], '2029-06-01T00:00:00Z'),
]);
const keyOf = (uid: string) => deriveKeyValue(MASTER, uid);

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return (error as SkeinError).code;
  }
}

const decide = (action: string | null, token: string | null, indexUid: string | null = null) =>
  decideAccess({ action, token, indexUid }, MASTER, RING, NOW);

test('key value = hex HMAC-SHA256(master key, lowercase uid)', (t) => {
  const uid = '01B4BC42-EB33-4041-B481-254D00CCE834';
  t.is(deriveKeyValue(MASTER, uid), createHmac('sha256', MASTER).update(uid.toLowerCase()).digest('hex'));
  t.regex(deriveKeyValue(MASTER, uid), /^[0-9a-f]{64}$/);
});

test('four default keys, with the reference names and actions', (t) => {
  const keys = defaultKeyRecords('2030-01-01T00:00:00.000000Z');
  t.deepEqual(keys.map((key) => key.name), ['Default Search API Key', 'Default Admin API Key', 'Default Read-Only Admin API Key', 'Default Chat API Key']);
  t.deepEqual(keys[2]!.actions, ['*.get', 'keys.get']);
  t.true(keys.every((key) => key.expiresAt === null && key.indexes[0] === '*'));
});

test('action wildcards: *, x.*, *.get', (t) => {
  t.deepEqual([...expandActions(['documents.*'])].sort(), ['documents.add', 'documents.delete', 'documents.get']);
  const all = expandActions(['*']);
  t.true(all.has('keys.create') && all.has('search') && all.has('version'));
  const reads = expandActions(['*.get']);
  t.true(reads.has('search') && reads.has('documents.get') && reads.has('tasks.get') && reads.has('version'));
  t.false(reads.has('keys.get'));
  t.false(reads.has('documents.add'));
});

test('index patterns: exact, trailing *, most specific', (t) => {
  t.true(isValidIndexPattern('*'));
  t.true(isValidIndexPattern('movies_*'));
  t.false(isValidIndexPattern('mo*vies'));
  t.false(isValidIndexPattern(''));
  t.is(mostSpecificPattern(['*', 'mov*', 'movies'], 'movies'), 'movies');
  t.is(mostSpecificPattern(['*', 'mov*'], 'movies'), 'mov*');
  t.is(mostSpecificPattern(['books'], 'movies'), undefined);
});

test('master key, API keys, actions, indexes, expiry', (t) => {
  t.is(decide(null, null), decide(null, null)); // public routes need nothing
  t.is(codeOf(() => decide('search', null)), 'missing_authorization_header');
  t.is(decide('keys.get', MASTER), FULL_ACCESS);
  t.is(codeOf(() => decide('search', 'nope')), 'invalid_api_key');
  t.notThrows(() => decide('search', keyOf(SEARCH_UID), 'movies'));
  t.is(codeOf(() => decide('documents.add', keyOf(SEARCH_UID), 'movies')), 'invalid_api_key');
  t.notThrows(() => decide('keys.create', keyOf(ADMIN_UID)));
  t.notThrows(() => decide('documents.add', keyOf(MOVIES_UID), 'books_2024'));
  const other = t.throws(() => decide('documents.add', keyOf(MOVIES_UID), 'songs'), { instanceOf: SkeinError });
  t.is(other?.message, 'The API key cannot acces the index `songs`, authorized indexes are ["movies", "books_*"].');
  t.deepEqual(decide('search', keyOf(MOVIES_UID)).indexes, ['movies', 'books_*']);
  t.is(codeOf(() => decide('search', keyOf(EXPIRED_UID))), 'invalid_api_key');
});

test('without a master key everything is open but /keys', (t) => {
  t.notThrows(() => decideAccess({ action: 'documents.add', token: 'whatever', indexUid: 'x' }, null, new KeyRing(null, []), NOW));
  t.is(codeOf(() => decideAccess({ action: 'keys.get', token: null, indexUid: null }, null, new KeyRing(null, []), NOW)), 'missing_master_key');
});

test('tenant tokens from the official client: rules, filters, signature, expiry, parent key', async (t) => {
  const token = await generateTenantToken({
    apiKey: keyOf(SEARCH_UID), apiKeyUid: SEARCH_UID, algorithm: 'HS384',
    searchRules: { movies: { filter: 'user = 1' }, 'books_*': null }, expiresAt: new Date(NOW + 3_600_000), force: true,
  });
  const access = decide('search', token, 'movies');
  t.is(tenantFilter(access, 'movies'), 'user = 1');
  t.is(tenantFilter(decide('search', token, 'books_x'), 'books_x'), null);
  t.true(canSeeIndex(access, 'movies'));
  t.false(canSeeIndex(access, 'songs'));
  const denied = t.throws(() => decide('search', token, 'songs'), { instanceOf: SkeinError });
  t.is(denied?.message, 'The provided tenant token cannot acces the index `songs`, allowed indexes are ["movies", "books_*"].');
  // Only search routes accept tokens.
  t.is(codeOf(() => decide('documents.get', token, 'movies')), 'invalid_api_key');
  // A token signed with another key's value is just an unknown key.
  const forged = await generateTenantToken({ apiKey: keyOf(ADMIN_UID), apiKeyUid: SEARCH_UID, searchRules: ['*'], force: true });
  t.is(codeOf(() => decide('search', forged, 'movies')), 'invalid_api_key');
  const expired = await generateTenantToken({ apiKey: keyOf(SEARCH_UID), apiKeyUid: SEARCH_UID, searchRules: ['*'], expiresAt: Math.floor(NOW / 1000) - 10, force: true });
  const error = t.throws(() => decide('search', expired, 'movies'), { instanceOf: SkeinError });
  t.regex(error!.message, /^Tenant token expired\. Was valid up to `\d+` and we're now `\d+`\.$/);
  // The parent key restricts too.
  const narrow = await generateTenantToken({ apiKey: keyOf(MOVIES_UID), apiKeyUid: MOVIES_UID, searchRules: ['*'], force: true });
  t.notThrows(() => decide('search', narrow, 'movies'));
  t.is(t.throws(() => decide('search', narrow, 'songs'))?.message, 'The API key used to generate this tenant token cannot acces the index `songs`.');
});

test('fuseFilters: array-form AND that keeps nested OR arrays intact', (t) => {
  t.is(fuseFilters(null, 'a = 1'), 'a = 1');
  t.is(fuseFilters('b = 2', null), 'b = 2');
  t.deepEqual(fuseFilters('b = 2', 'a = 1'), ['b = 2', 'a = 1']);
  t.deepEqual(fuseFilters(['x = 1', ['y = 2', 'z = 3']], 'a = 1'), ['x = 1', ['y = 2', 'z = 3'], 'a = 1']);
});
