// Federated multi-search (POST /multi-search with `federation`) as Meilisearch v1.5x answers it:
// hits merged by _rankingScore × weight with `_federation`, both paginations, facetsByIndex and
// mergeFacets, federation.distinct, every federation error, keys and tenant tokens per query.
import test from 'ava';
import { generateTenantToken } from 'meilisearch/token';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'federation-master-key-0123456789';
let server: TestServer;

const MOVIES = [
  { id: 1, title: 'The little prince', genre: 'fantasy', year: 1974, family: 'a' },
  { id: 2, title: 'Prince of Persia', genre: 'action', year: 2010, family: 'b' },
  { id: 3, title: 'Batman begins', genre: 'action', year: 2005, family: 'c' },
  { id: 4, title: 'Princess bride', genre: 'fantasy', year: 1987, family: 'd' },
];
const BOOKS = [
  { id: 1, title: 'The prince', genre: 'politics', year: 1532, family: 'a' },
  { id: 2, title: 'A prince of the sea', genre: 'fantasy', year: 2001, family: 'e' },
  { id: 3, title: 'Dune', genre: 'scifi', year: 1965, family: 'f' },
];

test.before(async () => {
  server = await startTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 2 });
  const { client } = server;
  for (const [uid, documents, order] of [['movies', MOVIES, 'alpha'], ['books', BOOKS, 'alpha'], ['counted', BOOKS, 'count']] as const) {
    await client.addDocuments(uid, documents);
    await client.run('PATCH', `/indexes/${uid}/settings`, {
      body: { filterableAttributes: ['genre', 'year', 'family'], faceting: { sortFacetValuesBy: { '*': order } } },
    });
  }
});
test.after.always(async () => {
  await server?.close();
});

const post = (body: unknown) => server.client.post('/multi-search', body);
const titles = (hits: any[]) => hits.map((hit) => `${hit._federation.indexUid}:${hit.title}`);

test('hits merged by _rankingScore × weight, ties to the lower query position; _federation after the fields, _rankingScore only if asked', async (t) => {
  const plain = await post({ federation: {}, queries: [{ indexUid: 'movies', q: 'prince' }, { indexUid: 'books', q: 'prince' }] });
  t.is(plain.status, 200, plain.text);
  t.deepEqual(Object.keys(plain.body), ['hits', 'processingTimeMs', 'limit', 'offset', 'estimatedTotalHits']);
  t.is(plain.body.limit, 20);
  t.is(plain.body.offset, 0);
  t.is(plain.body.estimatedTotalHits, 5); // 'prince' is a prefix of 'princess'
  for (const hit of plain.body.hits) {
    t.false('_rankingScore' in hit);
    t.deepEqual(Object.keys(hit._federation), ['indexUid', 'queriesPosition', 'weightedRankingScore']);
    t.is(Object.keys(hit).at(-1), '_federation');
  }
  const scores = plain.body.hits.map((hit: any) => hit._federation.weightedRankingScore);
  t.deepEqual(scores, [...scores].sort((a, b) => b - a));

  // Books weighted 5: every book hit comes before every movie hit, and its score is 5 × _rankingScore.
  const weighted = await post({
    federation: {},
    queries: [{ indexUid: 'movies', q: 'prince', showRankingScore: true }, { indexUid: 'books', q: 'prince', showRankingScore: true, federationOptions: { weight: 5 } }],
  });
  t.is(weighted.status, 200, weighted.text);
  const indexes = weighted.body.hits.map((hit: any) => hit._federation.indexUid);
  t.deepEqual(indexes, ['books', 'books', 'movies', 'movies', 'movies']);
  for (const hit of weighted.body.hits) {
    const weight = hit._federation.indexUid === 'books' ? 5 : 1;
    t.true(Math.abs(hit._federation.weightedRankingScore - weight * hit._rankingScore) < 1e-9);
    t.is(hit._federation.queriesPosition, weight === 5 ? 1 : 0);
    t.deepEqual(Object.keys(hit).slice(-2), ['_federation', '_rankingScore']);
  }
  // Weight 0 on books: movies first. Equal scores (placeholder, score 1): query 0 first.
  const zero = await post({ federation: {}, queries: [{ indexUid: 'movies', q: 'prince' }, { indexUid: 'books', q: 'prince', federationOptions: { weight: 0 } }] });
  t.deepEqual(zero.body.hits.map((hit: any) => hit._federation.indexUid), ['movies', 'movies', 'movies', 'books', 'books']);
  const ties = await post({ federation: { limit: 4 }, queries: [{ indexUid: 'books' }, { indexUid: 'movies' }] });
  t.deepEqual(ties.body.hits.map((hit: any) => hit._federation.indexUid), ['books', 'books', 'books', 'movies']);
});

test('pagination: offset/limit and page/hitsPerPage over the merged list; one document met by two queries of an index is one hit', async (t) => {
  const queries = [{ indexUid: 'movies' }, { indexUid: 'books', federationOptions: { weight: 0.5 } }];
  const all = await post({ federation: { limit: 100 }, queries });
  t.is(all.body.hits.length, 7);
  t.deepEqual(titles(all.body.hits).slice(0, 4), MOVIES.map((movie) => `movies:${movie.title}`));
  const window = await post({ federation: { offset: 3, limit: 2 }, queries });
  t.deepEqual(titles(window.body.hits), titles(all.body.hits.slice(3, 5)));
  t.is(window.body.estimatedTotalHits, 7);
  const page = await post({ federation: { page: 2, hitsPerPage: 3 }, queries });
  t.deepEqual(Object.keys(page.body), ['hits', 'processingTimeMs', 'hitsPerPage', 'page', 'totalPages', 'totalHits']);
  t.deepEqual([page.body.hitsPerPage, page.body.page, page.body.totalPages, page.body.totalHits], [3, 2, 3, 7]);
  t.deepEqual(titles(page.body.hits), titles(all.body.hits.slice(3, 6)));
  // Hostile: a window far past anything stored asks each index for at most its maxTotalHits.
  const huge = await post({ federation: { offset: 1e12, limit: 1e12 }, queries });
  t.is(huge.status, 200, huge.text);
  t.deepEqual(huge.body.hits, []);
  const zero = await post({ federation: { page: 0 }, queries });
  t.deepEqual(zero.body.hits, []);
  t.is(zero.body.totalHits, 7);
  const twice = await post({ federation: {}, queries: [{ indexUid: 'movies', q: 'prince' }, { indexUid: 'movies', q: 'persia' }] });
  const ids = twice.body.hits.map((hit: any) => hit.id);
  t.deepEqual(ids.length, new Set(ids).size);
  t.true(ids.includes(2));
});

test('facetsByIndex: each index its distribution and stats; mergeFacets: one merged facetDistribution/facetStats, maxValuesPerFacet', async (t) => {
  const queries = [{ indexUid: 'movies' }, { indexUid: 'books' }];
  const byIndex = await post({ federation: { facetsByIndex: { movies: ['genre', 'year'], books: ['genre'] } }, queries });
  t.is(byIndex.status, 200, byIndex.text);
  t.deepEqual(Object.keys(byIndex.body).slice(-1), ['facetsByIndex']);
  t.deepEqual(byIndex.body.facetsByIndex, {
    books: { distribution: { genre: { fantasy: 1, politics: 1, scifi: 1 } }, stats: {} },
    movies: {
      distribution: { genre: { action: 2, fantasy: 2 }, year: { 1974: 1, 1987: 1, 2005: 1, 2010: 1 } },
      stats: { year: { min: 1974, max: 2010 } },
    },
  });
  const merged = await post({ federation: { facetsByIndex: { movies: ['genre', 'year'], books: ['genre', 'year'] }, mergeFacets: {} }, queries });
  t.is(merged.status, 200, merged.text);
  t.false('facetsByIndex' in merged.body);
  t.deepEqual(Object.keys(merged.body).slice(-2), ['facetDistribution', 'facetStats']);
  t.deepEqual(merged.body.facetDistribution.genre, { action: 2, fantasy: 3, politics: 1, scifi: 1 });
  t.deepEqual(merged.body.facetStats, { year: { min: 1532, max: 2010 } });
  const cut = await post({ federation: { facetsByIndex: { movies: ['genre'], books: ['genre'] }, mergeFacets: { maxValuesPerFacet: 2 } }, queries });
  t.deepEqual(Object.keys(cut.body.facetDistribution.genre), ['action', 'fantasy']);
  // Inconsistent sortFacetValuesBy across indexes is refused only when merging.
  const inconsistent = await post({ federation: { facetsByIndex: { movies: ['genre'], counted: ['genre'] }, mergeFacets: {} }, queries: [{ indexUid: 'movies' }, { indexUid: 'counted' }] });
  t.is(inconsistent.status, 400);
  t.is(inconsistent.body.code, 'invalid_multi_search_facet_order');
  t.is(inconsistent.body.message, 'Inside `.queries[1]`: Inside `.federation.facetsByIndex.movies`: Inconsistent order for values in facet `genre`: index `counted` orders by count, but index `movies` orders alphabetically.\n - Hint: Remove `federation.mergeFacets` or change `faceting.sortFacetValuesBy` to be consistent in settings.'.replace('queries[1]', 'queries[0]'));
  const separate = await post({ federation: { facetsByIndex: { movies: ['genre'], counted: ['genre'] } }, queries: [{ indexUid: 'movies' }, { indexUid: 'counted' }] });
  t.is(separate.status, 200, separate.text);
  const notFilterable = await post({ federation: { facetsByIndex: { movies: ['title'] } }, queries });
  t.is(notFilterable.body.code, 'invalid_search_facets');
  t.regex(notFilterable.body.message, /^Inside `\.queries\[0\]`: Inside `\.federation\.facetsByIndex\.movies`: /);
  const unused = await post({ federation: { facetsByIndex: { zorglub: ['genre'] } }, queries });
  t.is(unused.status, 400);
  t.is(unused.body.code, 'index_not_found');
  t.is(unused.body.message, 'Inside `.federation.facetsByIndex.zorglub`: Index `zorglub` not found.\n - Note: index `zorglub` is not used in queries');
});

test('federation.distinct: one hit per value across indexes; showPerformanceDetails at the top level', async (t) => {
  const response = await post({ federation: { distinct: 'family', limit: 50, showPerformanceDetails: true }, queries: [{ indexUid: 'movies' }, { indexUid: 'books' }] });
  t.is(response.status, 200, response.text);
  const families = response.body.hits.map((hit: any) => hit.family);
  t.deepEqual(families.length, new Set(families).size);
  t.is(families.length, 6);
  t.is(response.body.estimatedTotalHits, 6);
  // A window shorter than the list: the hits rejected after it still leave the total.
  const short = await post({ federation: { distinct: 'family', limit: 1 }, queries: [{ indexUid: 'movies' }, { indexUid: 'books' }] });
  t.is(short.body.estimatedTotalHits, 6);
  t.is(Object.keys(response.body).at(-1), 'performanceDetails');
  t.false('performanceDetails' in response.body.hits[0]);
});

const cases: Array<[string, unknown, string, string | RegExp]> = [
  ['weight < 0', { federation: {}, queries: [{ indexUid: 'movies' }, { indexUid: 'books', federationOptions: { weight: -1 } }] },
    'invalid_multi_search_weight', 'Invalid value at `.queries[1].federationOptions.weight`: the value of `weight` is invalid, expected a positive float (>= 0.0).'],
  ['query pagination', { federation: {}, queries: [{ indexUid: 'movies' }, { indexUid: 'books', limit: 3 }] },
    'invalid_multi_search_query_pagination', 'Inside `.queries[1]`: Using pagination options is not allowed in federated queries.\n - Hint: remove `limit` from the query or remove `federation` from the request\n - Hint: pass `federation.limit` and `federation.offset` for pagination in federated search'],
  ['query hitsPerPage', { federation: {}, queries: [{ indexUid: 'movies', hitsPerPage: 3 }] }, 'invalid_multi_search_query_pagination', /remove `hitsPerPage` from the query/],
  ['query facets', { federation: {}, queries: [{ indexUid: 'movies' }, { indexUid: 'books', facets: ['genre'] }] },
    'invalid_multi_search_query_facets', 'Inside `.queries[1]`: Using facet options is not allowed in federated queries.\n - Hint: remove `facets` from the query or remove `federation` from the request\n - Hint: pass `federation.facetsByIndex.books: ["genre"]` for facets in federated search'],
  ['query showPerformanceDetails', { federation: {}, queries: [{ indexUid: 'movies', showPerformanceDetails: false }] },
    'invalid_multi_search_query_show_performance_details', /^Inside `\.queries\[0\]`: Using `\.showPerformanceDetails` is not allowed in federated queries/],
  ['query personalize', { federation: {}, queries: [{ indexUid: 'movies', personalize: { userContext: 'likes sci-fi' } }] },
    'invalid_multi_search_query_personalization', 'Inside `.queries[0]`: Using `.personalize` is not allowed in federated queries.\n - Hint: remove `personalize` from the query or remove `federation` from the request\n - Hint: pass `federation.personalize` for personalization in federated search'],
  ['distinct twice', { federation: { distinct: 'family' }, queries: [{ indexUid: 'movies' }, { indexUid: 'books', distinct: 'genre' }] },
    'invalid_multi_search_distinct', /^Inside `\.queries\[1\]`: Using `distinct` options is not allowed in federated queries when it also appears in `\.federation\.distinct`/],
  ['federationOptions without federation', { queries: [{ indexUid: 'movies' }, { indexUid: 'books', federationOptions: { weight: 2 } }] },
    'invalid_multi_search_federation_options', 'Inside `.queries[1]`: Using `federationOptions` is not allowed in a non-federated search.\n - Hint: remove `federationOptions` from the query or add `federation` to the request.'],
  ['federationOptions unknown field', { federation: {}, queries: [{ indexUid: 'movies', federationOptions: { wieght: 2 } }] },
    'invalid_multi_search_federation_options', /^Unknown field `wieght` inside `\.queries\[0\]\.federationOptions`/],
  ['remote without network', { federation: {}, queries: [{ indexUid: 'movies', federationOptions: { remote: 'ms1' } }] },
    'feature_not_enabled', 'Inside `.queries[0]`: Performing a remote federated search requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805'],
  ['queryPosition without network', { federation: {}, queries: [{ indexUid: 'movies', federationOptions: { queryPosition: 1 } }] },
    'feature_not_enabled', /^Inside `\.queries\[0\]`: Using `federationOptions\.queryPosition` requires enabling the `network` experimental feature/],
  ['queryPosition type', { federation: {}, queries: [{ indexUid: 'movies', federationOptions: { queryPosition: -1 } }] },
    'invalid_multi_search_query_position', /^Invalid value type at `\.queries\[0\]\.federationOptions\.queryPosition`/],
  ['remote type', { federation: {}, queries: [{ indexUid: 'movies', federationOptions: { remote: 3 } }] },
    'invalid_multi_search_remote', /^Invalid value type at `\.queries\[0\]\.federationOptions\.remote`/],
  ['facetsByIndex type', { federation: { facetsByIndex: ['movies'] }, queries: [{ indexUid: 'movies' }] }, 'invalid_multi_search_facets_by_index', /`\.federation\.facetsByIndex`/],
  ['mergeFacets type', { federation: { mergeFacets: true }, queries: [{ indexUid: 'movies' }] }, 'invalid_multi_search_merge_facets', /`\.federation\.mergeFacets`/],
  ['maxValuesPerFacet type', { federation: { mergeFacets: { maxValuesPerFacet: 'ten' } }, queries: [{ indexUid: 'movies' }] }, 'invalid_multi_search_max_values_per_facet', /`\.federation\.mergeFacets\.maxValuesPerFacet`/],
  ['federation limit type', { federation: { limit: -2 }, queries: [{ indexUid: 'movies' }] }, 'invalid_search_limit', /`\.federation\.limit`/],
  ['federation unknown field', { federation: { lmit: 2 }, queries: [{ indexUid: 'movies' }] }, 'bad_request', /^Unknown field `lmit` inside `\.federation`/],
  ['missing index', { federation: {}, queries: [{ indexUid: 'movies' }, { indexUid: 'nope' }] }, 'index_not_found', 'Inside `.queries[1]`: Index `nope` not found.'],
];
for (const [name, body, code, message] of cases) {
  test(`error: ${name} -> ${code}`, async (t) => {
    const response = await post(body);
    t.is(response.status, 400, response.text);
    t.is(response.body.code, code);
    if (typeof message === 'string') t.is(response.body.message, message);
    else t.regex(response.body.message, message);
  });
}

test('remote of an unknown node with the network feature on: invalid_multi_search_remote', async (t) => {
  await server.client.patch('/experimental-features', { network: true });
  try {
    const response = await post({ federation: {}, queries: [{ indexUid: 'movies', federationOptions: { remote: 'ms1' } }] });
    t.is(response.status, 400, response.text);
    t.is(response.body.code, 'invalid_multi_search_remote');
    t.is(response.body.message, 'Inside `.queries[0]`: Invalid `.federation_options.remote`: remote `ms1` is not registered');
    const positioned = await post({ federation: {}, queries: [{ indexUid: 'movies', q: 'prince' }, { indexUid: 'books', q: 'prince', federationOptions: { queryPosition: 7 } }] });
    t.is(positioned.status, 200, positioned.text);
    t.true(positioned.body.hits.some((hit: any) => hit._federation.queriesPosition === 7));
  } finally {
    await server.client.patch('/experimental-features', { network: false });
  }
});

test('keys and tenant tokens: every query is authorized for its index; token filters still apply', async (t) => {
  const created = await server.client.post('/keys', { actions: ['search'], indexes: ['movies'], expiresAt: null });
  t.is(created.status, 201, created.text);
  const moviesOnly = server.client.withKey(created.body.key);
  const denied = await moviesOnly.post('/multi-search', { federation: {}, queries: [{ indexUid: 'movies' }, { indexUid: 'books' }] });
  t.is(denied.status, 403, denied.text);
  t.is(denied.body.code, 'invalid_api_key');
  t.is(denied.body.message, 'Inside `.queries[1]`: The provided API key is invalid.');
  const allowed = await moviesOnly.post('/multi-search', { federation: {}, queries: [{ indexUid: 'movies', q: 'prince' }] });
  t.is(allowed.status, 200, allowed.text);

  const token = await generateTenantToken({
    apiKey: created.body.key, apiKeyUid: created.body.uid, searchRules: { movies: { filter: 'genre = fantasy' } },
  });
  const tenant = server.client.withKey(token);
  const filtered = await tenant.post('/multi-search', { federation: {}, queries: [{ indexUid: 'movies' }, { indexUid: 'movies', q: 'persia' }] });
  t.is(filtered.status, 200, filtered.text);
  t.deepEqual(filtered.body.hits.map((hit: any) => hit.genre), ['fantasy', 'fantasy']);
});
