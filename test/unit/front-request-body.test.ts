import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import { bearerToken, createAuthorizer } from '../../src/front/keys/authorization.js';
import { checkJsonContentType, documentContentType, parseJsonBody } from '../../src/front/http/request-body.js';
import { validateSetting, validateSettingsBody } from '../../src/front/indexes/settings-validation.js';

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (error) {
    if (error instanceof SkeinError) return error.code;
    throw error;
  }
};

test('JSON routes take application/json (parameters tolerated) and */*+json', (t) => {
  t.notThrows(() => checkJsonContentType('application/json'));
  t.notThrows(() => checkJsonContentType('application/json; charset=utf-8'));
  t.notThrows(() => checkJsonContentType('application/merge-patch+json'));
  const missing = t.throws(() => checkJsonContentType(null), { instanceOf: SkeinError });
  t.is(missing?.message, 'A Content-Type header is missing. Accepted values for the Content-Type header are: `application/json`');
  const invalid = t.throws(() => checkJsonContentType('text/plain'), { instanceOf: SkeinError });
  t.is(invalid?.code, 'invalid_content_type');
  t.is(invalid?.status, 415);
});

test('document routes take JSON, NDJSON and CSV', (t) => {
  t.is(documentContentType('text/csv; charset=utf-8'), 'text/csv');
  t.is(documentContentType('application/x-ndjson'), 'application/x-ndjson');
  const invalid = t.throws(() => documentContentType('text/plain'), { instanceOf: SkeinError });
  t.is(invalid?.message,
    'The Content-Type `text/plain` is invalid. Accepted values for the Content-Type header are: `application/json`, `application/x-ndjson`, `text/csv`');
  t.is(codeOf(() => documentContentType(null)), 'missing_content_type');
});

test('JSON bodies: empty is missing_payload, bad syntax malformed_payload', (t) => {
  t.deepEqual(parseJsonBody(Buffer.from('{"a":1}')), { a: 1 });
  t.is(codeOf(() => parseJsonBody(Buffer.alloc(0))), 'missing_payload');
  const malformed = t.throws(() => parseJsonBody(Buffer.from('{"a":')), { instanceOf: SkeinError });
  t.is(malformed?.code, 'malformed_payload');
  t.regex(malformed!.message, /^The json payload provided is malformed\. `.* at line 1 column \d+`\.$/);
});

test('authorization seam: open without master key, master key required otherwise', (t) => {
  const open = createAuthorizer(null);
  t.notThrows(() => open({ action: 'search', authorization: null, indexUid: 'movies' }));
  t.notThrows(() => open({ action: 'search', authorization: 'Bearer anything', indexUid: null }));
  t.is(codeOf(() => open({ action: 'search', authorization: 'Basic abc', indexUid: null })), 'missing_authorization_header');
  t.is(codeOf(() => open({ action: 'keys.get', authorization: null, indexUid: null })), 'missing_master_key');
  const locked = createAuthorizer('a-master-key-of-16+bytes');
  t.notThrows(() => locked({ action: null, authorization: null, indexUid: null }));
  t.notThrows(() => locked({ action: 'search', authorization: 'Bearer a-master-key-of-16+bytes', indexUid: null }));
  t.is(codeOf(() => locked({ action: 'search', authorization: null, indexUid: null })), 'missing_authorization_header');
  t.is(codeOf(() => locked({ action: 'search', authorization: 'Bearer nope', indexUid: null })), 'invalid_api_key');
  t.is(codeOf(() => bearerToken('Bearer')), 'invalid_api_key');
});

test('settings bodies are type-checked with invalid_settings_* codes', (t) => {
  t.notThrows(() => validateSettingsBody({ rankingRules: ['words', 'price:asc'], displayedAttributes: null, pagination: { maxTotalHits: 5 } }));
  t.is(codeOf(() => validateSettingsBody({ nope: 1 })), 'bad_request');
  t.is(codeOf(() => validateSettingsBody({ searchableAttributes: 'title' })), 'invalid_settings_searchable_attributes');
  t.is(codeOf(() => validateSettingsBody({ rankingRules: ['bogus'] })), 'invalid_settings_ranking_rules');
  t.is(codeOf(() => validateSettingsBody({ rankingRules: ['attribute', 'wordPosition'] })), 'invalid_settings_ranking_rules');
  t.is(codeOf(() => validateSettingsBody({ pagination: { maxTotalHits: 0 } })), 'invalid_settings_pagination');
  t.is(codeOf(() => validateSettingsBody({ typoTolerance: { minWordSizeForTypos: { oneTypo: 9, twoTypos: 5 } } })), 'invalid_settings_typo_tolerance');
  t.is(codeOf(() => validateSettingsBody({ synonyms: { a: 'b' } })), 'invalid_settings_synonyms');
  t.is(codeOf(() => validateSettingsBody({ proximityPrecision: 'near' })), 'invalid_settings_proximity_precision');
  t.is(codeOf(() => validateSetting('distinctAttribute', 3)), 'invalid_settings_distinct_attribute');
  t.notThrows(() => validateSetting('distinctAttribute', null));
});
