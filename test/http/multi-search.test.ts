// POST /multi-search: results in query order, per-query errors with the "Inside `.queries[i]`" prefix
// (index_not_found as 400), and one QueryBatch per worker for the whole request.
import test from 'ava';
import { FULL_ACCESS } from '../../src/front/http/http-types.js';
import { multiSearchRoutes } from '../../src/front/search/multi-search-routes.js';
import type { FrontContext } from '../../src/front/http/route-spec.js';
import { SearchDispatcher } from '../../src/front/search/search-dispatcher.js';
import { decodeQueryBatch, encodeQueryBatchResult } from '../../src/protocol/query-codec.js';
import { defaultSettings } from '../../src/settings/index-settings.js';
import { Client, errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  await Promise.all([
    server.client.addDocuments('ms_books', [{ id: 1, title: 'The Hobbit' }, { id: 2, title: 'Dune' }]),
    server.client.addDocuments('ms_films', [{ id: 10, title: 'Dune' }, { id: 11, title: 'Alien' }]),
  ]);
});
test.after.always(async () => {
  await server?.close();
});

const multi = (body: unknown) => server.client.post('/multi-search', body);

test('results come back in query order, each with its indexUid and its own shaping', async (t) => {
  const response = await multi({
    queries: [
      { indexUid: 'ms_films', q: 'dune' },
      { indexUid: 'ms_books', q: 'hobbit', attributesToHighlight: ['title'] },
      { indexUid: 'ms_books', hitsPerPage: 1 },
    ],
  });
  t.is(response.status, 200);
  const [films, books, paged] = response.body.results;
  t.deepEqual(Object.keys(response.body), ['results']);
  t.is(films.indexUid, 'ms_films');
  t.deepEqual(Object.keys(films).slice(0, 2), ['indexUid', 'hits']);
  t.deepEqual(films.hits, [{ id: 10, title: 'Dune' }]);
  t.is(films.query, 'dune');
  t.deepEqual(books.hits[0]._formatted, { id: '1', title: 'The <em>Hobbit</em>' });
  t.like(paged, { indexUid: 'ms_books', hitsPerPage: 1, page: 1, totalHits: 2, totalPages: 2 });
});

test('an empty queries list answers an empty results list', async (t) => {
  const response = await multi({ queries: [] });
  t.is(response.status, 200);
  t.deepEqual(response.body, { results: [] });
});

test('a missing index fails the request with 400 and the query position', async (t) => {
  const response = await multi({ queries: [{ indexUid: 'ms_books' }, { indexUid: 'ms_nope', q: 'x' }] });
  t.is(response.status, 400);
  t.deepEqual(response.body, errorBody('Inside `.queries[1]`: Index `ms_nope` not found.', 'index_not_found'));
});

test('invalid queries name their position', async (t) => {
  const badLimit = await multi({ queries: [{ indexUid: 'ms_books', limit: 'x' }] });
  t.is(badLimit.status, 400);
  t.is(badLimit.body.code, 'invalid_search_limit');
  t.is(badLimit.body.message, 'Invalid value type at `.queries[0].limit`: expected a positive integer, but found a string: `"x"`');
  const missingUid = await multi({ queries: [{ q: 'x' }] });
  t.is(missingUid.body.code, 'missing_index_uid');
  t.is(missingUid.body.message, 'Missing field `indexUid` inside `.queries[0]`');
  const badUid = await multi({ queries: [{ indexUid: 'a b' }] });
  t.is(badUid.body.code, 'invalid_index_uid');
  const noQueries = await multi({});
  t.is(noQueries.status, 400);
  t.is(noQueries.body.code, 'bad_request');
  const federated = await multi({ queries: [{ indexUid: 'ms_books', federationOptions: { weight: 2 } }] });
  t.is(federated.body.code, 'invalid_multi_search_federation_options');
  t.true(federated.body.message.startsWith('Inside `.queries[0]`: Using `federationOptions` is not allowed'));
  const badFilter = await multi({ queries: [{ indexUid: 'ms_books' }, { indexUid: 'ms_books', sort: ['title:asc'] }] });
  t.is(badFilter.status, 400);
  t.true(badFilter.body.message.startsWith('Inside `.queries[1]`: '));
});

test('all queries of one request travel in ONE batch per worker', async (t) => {
  const batches: number[][] = [];
  const runner = async (batch: ArrayBuffer) => {
    const queries = decodeQueryBatch(batch);
    batches.push(queries.map((query) => query.requestId));
    return encodeQueryBatchResult(queries.map((query) => ({ requestId: query.requestId, error: null, candidates: 0, hits: [], extras: null })));
  };
  const context = {
    indexes: { require: (uid: string) => ({ uid, settings: defaultSettings(), shardCount: 4 }), resolveTogether: () => new Map() },
    search: new SearchDispatcher([runner, runner], 1000),
    storage: { documents: new Map() },
  } as unknown as FrontContext;
  const request = { json: { queries: [{ indexUid: 'a', q: 'x' }, { indexUid: 'b' }, { indexUid: 'a', q: 'y' }] }, access: FULL_ACCESS };
  const reply = await multiSearchRoutes[0]!.handle(request as never, context);
  t.is(reply.status, 200);
  t.is(JSON.parse(reply.body as string).results.length, 3);
  // Two workers: two batches, each carrying the three queries.
  t.is(batches.length, 2);
  t.true(batches.every((ids) => ids.length === 3));
});

test('each query is authorized for its own index', async (t) => {
  const secured = await startTestServer({ masterKey: 'a-master-key-of-16-bytes-or-more' });
  try {
    const admin = secured.client;
    await admin.addDocuments('books', [{ id: 1, title: 'Dune' }]);
    await admin.addDocuments('films', [{ id: 1, title: 'Dune' }]);
    const created = await admin.post('/keys', { actions: ['search'], indexes: ['books'], expiresAt: null });
    t.is(created.status, 201, created.text);
    const searcher = new Client(admin.baseUrl, { authorization: `Bearer ${created.body.key}` });
    const allowed = await searcher.post('/multi-search', { queries: [{ indexUid: 'books', q: 'dune' }] });
    t.is(allowed.status, 200, allowed.text);
    t.is(allowed.body.results[0].hits.length, 1);
    const denied = await searcher.post('/multi-search', { queries: [{ indexUid: 'books' }, { indexUid: 'films' }] });
    t.is(denied.status, 403);
    t.deepEqual(denied.body, errorBody('Inside `.queries[1]`: The provided API key is invalid.', 'invalid_api_key', 'auth'));
  } finally {
    await secured.close();
  }
});
