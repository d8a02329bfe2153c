import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import { parseSearchBody, parseSearchQuery, splitSortParameter } from '../../src/front/search/search-params.js';

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof SkeinError) return { code: error.code, message: error.message };
    throw error;
  }
  return null;
};

test('POST body: typed fields and untouched options', (t) => {
  const parsed = parseSearchBody({ q: 'hello', limit: 5, filter: 'a = 1', facets: ['genre'], matchingStrategy: 'all' });
  t.like(parsed, { q: 'hello', offset: 0, limit: 5, page: null, hitsPerPage: null, attributesToRetrieve: null, matchingStrategy: 'all' });
  t.deepEqual(parsed.options, { filter: 'a = 1', facets: ['genre'] });
  t.like(parseSearchBody({}), { q: null, limit: 20, matchingStrategy: 'last' });
  t.like(parseSearchBody({ q: null, page: null }), { q: null, page: null });
});

test('POST body: wrong types give invalid_search_* with deserr wording', (t) => {
  t.deepEqual(errorOf(() => parseSearchBody({ limit: '10' })), {
    code: 'invalid_search_limit', message: 'Invalid value type at `.limit`: expected a positive integer, but found a string: `"10"`',
  });
  t.is(errorOf(() => parseSearchBody({ offset: -1 }))?.message,
    'Invalid value type at `.offset`: expected a positive integer, but found a negative integer: `-1`');
  t.is(errorOf(() => parseSearchBody({ q: 5 }))?.code, 'invalid_search_q');
  t.is(errorOf(() => parseSearchBody({ attributesToRetrieve: 'title' }))?.code, 'invalid_search_attributes_to_retrieve');
  t.is(errorOf(() => parseSearchBody({ attributesToRetrieve: ['a', 1] }))?.message,
    'Invalid value type at `.attributesToRetrieve[1]`: expected a string, but found a positive integer: `1`');
  t.deepEqual(errorOf(() => parseSearchBody({ matchingStrategy: 'most' })), {
    code: 'invalid_search_matching_strategy',
    message: 'Unknown value `most` at `.matchingStrategy`: expected one of `last`, `all`, `frequency`',
  });
  t.is(errorOf(() => parseSearchBody({ showMatchesPosition: 'yes' }))?.code, 'invalid_search_show_matches_position');
  t.is(errorOf(() => parseSearchBody({ filter: 3 }))?.code, 'invalid_search_filter');
  t.is(errorOf(() => parseSearchBody({ rankingScoreThreshold: 2 }))?.code, 'invalid_search_ranking_score_threshold');
});

test('POST body: unknown fields are bad_request', (t) => {
  const error = errorOf(() => parseSearchBody({ nope: 1 }));
  t.is(error?.code, 'bad_request');
  t.true(error!.message.startsWith('Unknown field `nope`: expected one of `q`, `vector`,'));
});

test('GET query: lists, numbers, booleans, filter JSON', (t) => {
  const parsed = parseSearchQuery(new URLSearchParams(
    'q=hi&offset=2&limit=3&attributesToRetrieve=title,id&showMatchesPosition=true&filter=%5B%22a%20%3D%201%22%5D&sort=_geoPoint(1,2):asc,price:desc'));
  t.like(parsed, { q: 'hi', offset: 2, limit: 3, attributesToRetrieve: ['title', 'id'] });
  t.deepEqual(parsed.options, { showMatchesPosition: true, filter: ['a = 1'], sort: ['_geoPoint(1,2):asc', 'price:desc'] });
  t.deepEqual(parseSearchQuery(new URLSearchParams('filter=genre%20%3D%20x')).options, { filter: 'genre = x' });
});

test('GET query: errors', (t) => {
  t.deepEqual(errorOf(() => parseSearchQuery(new URLSearchParams('limit=abc'))), {
    code: 'invalid_search_limit', message: 'Invalid value in parameter `limit`: could not parse `abc` as a positive integer',
  });
  t.is(errorOf(() => parseSearchQuery(new URLSearchParams('matchingStrategy=x')))?.code, 'invalid_search_matching_strategy');
  t.is(errorOf(() => parseSearchQuery(new URLSearchParams('bogus=1')))?.code, 'bad_request');
  t.is(errorOf(() => parseSearchQuery(new URLSearchParams('showRankingScore=maybe')))?.code, 'invalid_search_show_ranking_score');
});

test('splitSortParameter keeps _geoPoint arguments together', (t) => {
  t.deepEqual(splitSortParameter('a:asc, _geoPoint(48.8, 2.3):desc,b:desc'), ['a:asc', '_geoPoint(48.8, 2.3):desc', 'b:desc']);
  t.deepEqual(splitSortParameter(''), []);
});
