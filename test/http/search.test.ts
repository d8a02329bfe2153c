// GET and POST /indexes/{uid}/search: pagination math, retrieval, prefix, typos, normalization, ranking, limits.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  const { client } = server;
  await Promise.all([
    client.addDocuments('search_books', [5, 3, 1, 4, 2].map((id) => ({ id, title: `book number ${id}`, kind: 'book' }))),
    client.addDocuments('search_capped', [1, 2, 3, 4, 5].map((id) => ({ id, kind: 'capped' }))),
    client.addDocuments('search_typo', [
      { id: 1, word: 'lamp' },
      { id: 2, word: 'house' },
      { id: 3, word: 'beautiful' },
      { id: 4, word: 'elephant' },
    ]),
    client.addDocuments('search_accents', [
      { id: 1, title: 'Crème Brûlée' },
      { id: 2, title: 'Ökonomie' },
    ]),
    client.addDocuments('search_prefix', [
      { id: 1, title: 'american history' },
      { id: 2, title: 'the amazing world' },
    ]),
    client.addDocuments('search_words', [
      { id: 1, text: 'alpha bravo charlie delta echo foxtrot golf hotel india juliet' },
      { id: 2, text: 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo' },
    ]),
    client.addDocuments('search_rank', [
      { id: 1, title: 'house garden' },
      { id: 2, title: 'house' },
      { id: 3, title: 'hoise garden' },
      { id: 4, title: 'hoise gardem' },
    ]),
    client.addDocuments('search_nested', [
      { id: 1, title: 'The Hobbit', author: { name: 'Tolkien', born: 1892 } },
      { id: 2, title: 'Dune', author: { name: 'Herbert' } },
    ]),
  ]);
  await client.run('PATCH', '/indexes/search_capped/settings', { body: { pagination: { maxTotalHits: 2 } } });
});
test.after.always(async () => {
  await server?.close();
});

type Hit = { id: number | string };
const ids = (body: { hits: Hit[] }) => body.hits.map((hit) => hit.id);
const keysWithoutRequestUid = (body: object) => Object.keys(body).filter((key) => key !== 'requestUid');

async function post(index: string, body: Record<string, unknown>) {
  const response = await server.client.post(`/indexes/${index}/search`, body);
  if (response.status !== 200) throw new Error(`search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body;
}

async function get(index: string, query: string) {
  const response = await server.client.get(`/indexes/${index}/search?${query}`);
  if (response.status !== 200) throw new Error(`search ?${query}: ${response.status} ${response.text}`);
  return response.body;
}

async function searchIds(index: string, q: string, extra: Record<string, unknown> = {}) {
  return ids(await post(index, { q, ...extra }));
}

// ---- placeholder search, offset/limit mode ----

test('placeholder search returns documents in insertion order with offset/limit fields', async (t) => {
  const body = await post('search_books', {});
  t.deepEqual(ids(body), [5, 3, 1, 4, 2]);
  t.deepEqual(keysWithoutRequestUid(body), ['hits', 'query', 'processingTimeMs', 'limit', 'offset', 'estimatedTotalHits']);
  t.like(body, { query: '', limit: 20, offset: 0, estimatedTotalHits: 5 });
  t.is(typeof body.processingTimeMs, 'number');
  t.deepEqual(body.hits[0], { id: 5, title: 'book number 5', kind: 'book' });
});

test('offset and limit slice the hits', async (t) => {
  const body = await post('search_books', { offset: 1, limit: 2 });
  t.deepEqual(ids(body), [3, 1]);
  t.like(body, { offset: 1, limit: 2, estimatedTotalHits: 5 });
  t.deepEqual(ids(await post('search_books', { offset: 4 })), [2]);
  t.deepEqual(ids(await post('search_books', { offset: 10 })), []);
  t.deepEqual(ids(await post('search_books', { limit: 0 })), []);
});

test('GET search takes the same parameters as query string', async (t) => {
  const body = await get('search_books', 'offset=1&limit=2');
  t.deepEqual(ids(body), [3, 1]);
  t.like(body, { offset: 1, limit: 2, estimatedTotalHits: 5, query: '' });
  const q = await get('search_books', 'q=number%203&matchingStrategy=all');
  t.is(q.query, 'number 3');
  t.deepEqual(ids(q), [3]);
  const paged = await get('search_books', 'page=2&hitsPerPage=2');
  t.deepEqual(ids(paged), [1, 4]);
  t.like(paged, { page: 2, hitsPerPage: 2, totalPages: 3, totalHits: 5 });
  t.deepEqual(await get('search_books', 'attributesToRetrieve=id&limit=2').then((b) => b.hits), [{ id: 5 }, { id: 3 }]);
});

// ---- page mode ----

test('page and hitsPerPage switch to exhaustive pagination', async (t) => {
  const body = await post('search_books', { page: 2, hitsPerPage: 2 });
  t.deepEqual(ids(body), [1, 4]);
  t.deepEqual(keysWithoutRequestUid(body), ['hits', 'query', 'processingTimeMs', 'hitsPerPage', 'page', 'totalPages', 'totalHits']);
  t.like(body, { hitsPerPage: 2, page: 2, totalPages: 3, totalHits: 5 });
  t.deepEqual(ids(await post('search_books', { page: 3, hitsPerPage: 2 })), [2]);
  t.deepEqual(ids(await post('search_books', { page: 4, hitsPerPage: 2 })), []);
});

test('page alone uses hitsPerPage 20; hitsPerPage alone uses page 1', async (t) => {
  t.like(await post('search_books', { page: 1 }), { page: 1, hitsPerPage: 20, totalPages: 1, totalHits: 5 });
  const perPage = await post('search_books', { hitsPerPage: 3 });
  t.deepEqual(ids(perPage), [5, 3, 1]);
  t.like(perPage, { page: 1, hitsPerPage: 3, totalPages: 2, totalHits: 5 });
});

test('page 0 returns no hits but exhaustive counts', async (t) => {
  const body = await post('search_books', { page: 0 });
  t.deepEqual(body.hits, []);
  t.like(body, { page: 0, hitsPerPage: 20, totalPages: 1, totalHits: 5 });
});

test('hitsPerPage 0 returns no hits and totalPages 0', async (t) => {
  const body = await post('search_books', { hitsPerPage: 0 });
  t.deepEqual(body.hits, []);
  t.like(body, { page: 1, hitsPerPage: 0, totalPages: 0, totalHits: 5 });
});

test('offset and limit are ignored in page mode', async (t) => {
  const body = await post('search_books', { page: 1, hitsPerPage: 2, offset: 3, limit: 1 });
  t.deepEqual(ids(body), [5, 3]);
  t.false('offset' in body);
  t.false('limit' in body);
  t.false('estimatedTotalHits' in body);
});

// ---- maxTotalHits ----

test('maxTotalHits caps hits, counts and the echoed offset/limit', async (t) => {
  const capped = await post('search_capped', {});
  t.deepEqual(ids(capped), [1, 2]);
  t.like(capped, { limit: 2, offset: 0, estimatedTotalHits: 2 });
  const shifted = await post('search_capped', { offset: 1 });
  t.deepEqual(ids(shifted), [2]);
  t.like(shifted, { offset: 1, limit: 1, estimatedTotalHits: 2 });
  const beyond = await post('search_capped', { offset: 5, limit: 10 });
  t.deepEqual(ids(beyond), []);
  t.like(beyond, { offset: 2, limit: 0, estimatedTotalHits: 2 });
  const paged = await post('search_capped', { hitsPerPage: 1 });
  t.like(paged, { totalHits: 2, totalPages: 2 });
  t.deepEqual(ids(await post('search_capped', { page: 3, hitsPerPage: 1 })), []);
});

// ---- attributesToRetrieve ----

test('attributesToRetrieve selects fields; unknown fields are ignored', async (t) => {
  const body = await post('search_books', { attributesToRetrieve: ['title'], limit: 2 });
  t.deepEqual(body.hits, [{ title: 'book number 5' }, { title: 'book number 3' }]);
  const star = await post('search_books', { attributesToRetrieve: ['*'], limit: 1 });
  t.deepEqual(star.hits, [{ id: 5, title: 'book number 5', kind: 'book' }]);
  const unknown = await post('search_books', { attributesToRetrieve: ['nope'], limit: 1 });
  t.deepEqual(unknown.hits, [{}]);
  const nested = await post('search_nested', { q: 'tolkien', attributesToRetrieve: ['author.name'] });
  t.deepEqual(nested.hits, [{ author: { name: 'Tolkien' } }]);
});

// ---- query semantics ----

test('the last word is a prefix, other words are not', async (t) => {
  t.deepEqual(await searchIds('search_prefix', 'ameri'), [1]);
  t.deepEqual(await searchIds('search_prefix', 'ameri '), [], 'a trailing space ends the prefix');
  t.deepEqual((await searchIds('search_prefix', 'am')).sort(), [1, 2]);
  t.deepEqual(await searchIds('search_prefix', 'history amer'), [1]);
  t.deepEqual(await searchIds('search_prefix', 'amer history'), [], 'amer is not the last word, so not a prefix');
});

test('typo tolerance: under 5 chars no typo, 5-8 one typo, 9+ two typos', async (t) => {
  t.deepEqual(await searchIds('search_typo', 'lamp'), [1]);
  t.deepEqual(await searchIds('search_typo', 'lamb'), [], '4 letters: no typo allowed');
  t.deepEqual(await searchIds('search_typo', 'hoise'), [2], '5 letters: one typo');
  t.deepEqual(await searchIds('search_typo', 'hoisr'), [], '5 letters: not two typos');
  t.deepEqual(await searchIds('search_typo', 'elephamt'), [4], '8 letters: one typo');
  t.deepEqual(await searchIds('search_typo', 'elepjanf'), [], '8 letters: not two typos');
  t.deepEqual(await searchIds('search_typo', 'beautyfol'), [3], '9 letters: two typos');
  t.deepEqual(await searchIds('search_typo', 'hosue'), [2], 'a transposition is one typo');
});

test('a typo on the first letter costs two typos', async (t) => {
  t.deepEqual(await searchIds('search_typo', 'mouse'), []);
  t.deepEqual(await searchIds('search_typo', 'mouse '), []);
});

test('search is case and accent insensitive', async (t) => {
  t.deepEqual(await searchIds('search_accents', 'creme brulee'), [1]);
  t.deepEqual(await searchIds('search_accents', 'CRÈME'), [1]);
  t.deepEqual(await searchIds('search_accents', 'okonomie'), [2]);
  t.deepEqual(await searchIds('search_accents', 'ÖKONOMIE'), [2]);
});

test('only the first 10 query words are used', async (t) => {
  const tenWords = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet';
  t.deepEqual((await searchIds('search_words', `${tenWords} kilo`, { matchingStrategy: 'all' })).sort(), [1, 2]);
  t.deepEqual(
    await searchIds('search_words', 'alpha bravo charlie delta echo foxtrot golf hotel india kilo', { matchingStrategy: 'all' }),
    [2],
    'control: kilo as 10th word counts',
  );
});

test('matchingStrategy last drops words from the end; all requires every word', async (t) => {
  const last = await searchIds('search_rank', 'house zzzz');
  // Exact matches of `house` first (their order is up to exactness), then the typo matches.
  t.deepEqual(last.slice(0, 2).sort(), [1, 2]);
  t.deepEqual(last.slice(2).sort(), [3, 4]);
  t.deepEqual(await searchIds('search_rank', 'house zzzz', { matchingStrategy: 'all' }), []);
  t.deepEqual(await searchIds('search_rank', 'zzzz house'), []);
});

test('default ranking: matched words first, then fewer typos', async (t) => {
  t.deepEqual(await searchIds('search_rank', 'house garden'), [1, 3, 4, 2]);
});

test('nested fields are searchable by default', async (t) => {
  t.deepEqual(await searchIds('search_nested', 'tolkien'), [1]);
  t.deepEqual(await searchIds('search_nested', '1892'), [1]);
});

test('GET and POST give the same hits', async (t) => {
  const viaPost = await post('search_rank', { q: 'house garden', limit: 3 });
  const viaGet = await get('search_rank', 'q=house%20garden&limit=3');
  t.deepEqual(viaGet.hits, viaPost.hits);
  t.is(viaGet.estimatedTotalHits, viaPost.estimatedTotalHits);
});

// ---- errors ----

test('search on a missing index is index_not_found', async (t) => {
  const response = await server.client.post('/indexes/search_missing/search', { q: 'x' });
  t.is(response.status, 404);
  t.deepEqual(response.body, errorBody('Index `search_missing` not found.', 'index_not_found'));
  const viaGet = await server.client.get('/indexes/search_missing/search?q=x');
  t.is(viaGet.status, 404);
});

test('invalid search parameters', async (t) => {
  const { client } = server;
  const limit = await client.post('/indexes/search_books/search', { limit: 'x' });
  t.is(limit.status, 400);
  t.deepEqual(
    limit.body,
    errorBody('Invalid value type at `.limit`: expected a positive integer, but found a string: `"x"`', 'invalid_search_limit'),
  );
  const getLimit = await client.get('/indexes/search_books/search?limit=x');
  t.is(getLimit.status, 400);
  t.deepEqual(
    getLimit.body,
    errorBody('Invalid value in parameter `limit`: could not parse `x` as a positive integer', 'invalid_search_limit'),
  );
  const q = await client.post('/indexes/search_books/search', { q: 1 });
  t.is(q.status, 400);
  t.is(q.body.code, 'invalid_search_q');
  for (const [field, value, code] of [
    ['offset', -1, 'invalid_search_offset'],
    ['page', 'a', 'invalid_search_page'],
    ['hitsPerPage', -2, 'invalid_search_hits_per_page'],
    ['attributesToRetrieve', 'title', 'invalid_search_attributes_to_retrieve'],
    ['matchingStrategy', 'some', 'invalid_search_matching_strategy'],
  ] as const) {
    const response = await client.post('/indexes/search_books/search', { [field]: value });
    t.is(response.status, 400, field);
    t.is(response.body.code, code, field);
  }
  const unknown = await client.post('/indexes/search_books/search', { qq: 'x' });
  t.is(unknown.status, 400);
  t.is(unknown.body.code, 'bad_request');
  t.regex(unknown.body.message, /^Unknown field `qq`: expected one of /);
});

test('search without a JSON body content type is 415', async (t) => {
  const response = await server.client.post('/indexes/search_books/search', { q: 'x' }, { contentType: 'text/plain' });
  t.is(response.status, 415);
  t.is(response.body.code, 'invalid_content_type');
});
