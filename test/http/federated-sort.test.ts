// Federated multi-search with a sort: hits are merged rule by rule as Meilisearch does (its federated
// weighted_scores compare): runs of ranking rules by local score × weight, sort criteria by value (numbers
// before strings, missing last), geo sorts by distance; not by `_rankingScore × weight` alone.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

// Prices interleave across the two indexes; b has a string price and a missing one.
const SHOPS_A = [
  { id: 1, name: 'anvil shoe', price: 1, _geo: { lat: 0, lng: 0.01 } },
  { id: 2, name: 'copper shoe', price: 5, _geo: { lat: 0, lng: 0.05 } },
  { id: 3, name: 'emerald shoe', price: 9, _geo: { lat: 0, lng: 0.09 } },
];
const SHOPS_B = [
  { id: 1, name: 'bronze shoe', price: 3, _geo: { lat: 0, lng: 0.03 } },
  { id: 2, name: 'diamond shoe', price: 7, _geo: { lat: 0, lng: 0.07 } },
  { id: 3, name: 'felt shoe', price: 'cheap' },
  { id: 4, name: 'glass shoe' },
];
// The same, where the sort rule comes first: relevance must not beat price.
const RANKED_A = [
  { id: 1, name: 'sneaker', price: 8 },
  { id: 2, name: 'sneaker', price: 2 },
  { id: 3, name: 'red leather running sneaker', price: 4 },
];
const RANKED_B = [
  { id: 1, name: 'sneaker', price: 6 },
  { id: 2, name: 'old worn sneakr', price: 1 },
  { id: 3, name: 'sneaker', price: 10 },
];

test.before(async () => {
  server = await startTestServer({ workers: 1, shardsPerIndex: 2 });
  const { client } = server;
  for (const [uid, documents] of [['shops_a', SHOPS_A], ['shops_b', SHOPS_B], ['ranked_a', RANKED_A], ['ranked_b', RANKED_B]] as const) {
    await client.addDocuments(uid, documents);
    const rankingRules = uid.startsWith('ranked') ? ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness'] : undefined;
    await client.run('PATCH', `/indexes/${uid}/settings`, { body: { sortableAttributes: ['price', 'name', '_geo'], ...(rankingRules ? { rankingRules } : {}) } });
  }
});
test.after.always(async () => {
  await server?.close();
});

const post = (body: unknown) => server.client.post('/multi-search', body);
const names = (hits: any[]) => hits.map((hit) => `${hit._federation.indexUid.slice(-1)}:${hit.name}`);
const both = (sort: string[], extra: Record<string, unknown> = {}, uids = ['shops_a', 'shops_b']) =>
  ({ federation: {}, queries: uids.map((indexUid) => ({ indexUid, q: '', sort, ...extra })) });

test('sort by a shared numeric field interleaves the indexes by value, asc and desc; numbers before strings, missing last', async (t) => {
  const asc = await post(both(['price:asc']));
  t.is(asc.status, 200, asc.text);
  t.deepEqual(names(asc.body.hits), ['a:anvil shoe', 'b:bronze shoe', 'a:copper shoe', 'b:diamond shoe', 'a:emerald shoe', 'b:felt shoe', 'b:glass shoe']);
  const desc = await post(both(['price:desc']));
  t.is(desc.status, 200, desc.text);
  t.deepEqual(names(desc.body.hits), ['a:emerald shoe', 'b:diamond shoe', 'a:copper shoe', 'b:bronze shoe', 'a:anvil shoe', 'b:felt shoe', 'b:glass shoe']);
  // The merge's score values never reach the answer; asked-for scores and details still do.
  for (const hit of [...asc.body.hits, ...desc.body.hits]) {
    t.false('_rankingScoreValues' in hit);
    t.false('_rankingScore' in hit);
    t.is(Object.keys(hit).at(-1), '_federation');
  }
  const shown = await post(both(['price:asc'], { showRankingScore: true, showRankingScoreDetails: true }));
  t.is(shown.status, 200, shown.text);
  t.deepEqual(Object.keys(shown.body.hits[0]).slice(-3), ['_federation', '_rankingScore', '_rankingScoreDetails']);
  t.deepEqual(shown.body.hits[0]._rankingScoreDetails['price:asc'], { order: 0, value: 1 });
  // Pagination walks the same merged order.
  const page = await post({ ...both(['price:asc']), federation: { offset: 2, limit: 3 } });
  t.deepEqual(names(page.body.hits), ['a:copper shoe', 'b:diamond shoe', 'a:emerald shoe']);
});

test('sort by a shared string field interleaves by value', async (t) => {
  const asc = await post(both(['name:asc']));
  t.is(asc.status, 200, asc.text);
  t.deepEqual(names(asc.body.hits), ['a:anvil shoe', 'b:bronze shoe', 'a:copper shoe', 'b:diamond shoe', 'a:emerald shoe', 'b:felt shoe', 'b:glass shoe']);
  const desc = await post(both(['name:desc']));
  t.deepEqual(names(desc.body.hits), ['b:glass shoe', 'b:felt shoe', 'a:emerald shoe', 'b:diamond shoe', 'a:copper shoe', 'b:bronze shoe', 'a:anvil shoe']);
});

test('a geo sort merges by distance, the farther first in both directions (Meilisearch\'s WeightedScoreValue::GeoSort ignores `asc`); a document without _geo last', async (t) => {
  // Each query's own hits come nearest first; the merge takes the farther head of the two lists.
  const asc = await post(both(['_geoPoint(0, 0):asc']));
  t.is(asc.status, 200, asc.text);
  t.deepEqual(names(asc.body.hits).slice(0, 5), ['b:bronze shoe', 'b:diamond shoe', 'a:anvil shoe', 'a:copper shoe', 'a:emerald shoe']);
  t.deepEqual(names(asc.body.hits).slice(5).sort(), ['b:felt shoe', 'b:glass shoe']);
  const single = await server.client.post('/indexes/shops_a/search', { q: '', sort: ['_geoPoint(0, 0):asc'] });
  t.deepEqual(single.body.hits.map((hit: any) => hit.name), ['anvil shoe', 'copper shoe', 'emerald shoe'], 'one index: nearest first');
  const desc = await post(both(['_geoPoint(0, 0):desc']));
  t.is(desc.status, 200, desc.text);
  t.deepEqual(names(desc.body.hits).slice(0, 5), ['a:emerald shoe', 'b:diamond shoe', 'a:copper shoe', 'b:bronze shoe', 'a:anvil shoe']);
});

test('sort before the relevance rules: price beats relevance and any weight', async (t) => {
  const ranked = (weightB: number, sort = ['price:asc']) => post({
    federation: {},
    queries: [
      { indexUid: 'ranked_a', q: 'sneaker', sort, showRankingScore: true },
      { indexUid: 'ranked_b', q: 'sneaker', sort, showRankingScore: true, federationOptions: { weight: weightB } },
    ],
  });
  for (const weight of [1, 10, 0.1]) {
    const answer = await ranked(weight);
    t.is(answer.status, 200, answer.text);
    t.deepEqual(answer.body.hits.map((hit: any) => `${hit._federation.indexUid.slice(-1)}:${hit.id}`), ['b:2', 'a:2', 'a:3', 'b:1', 'a:1', 'b:3'], `weight ${weight}`);
    // The typo'd hit comes first although its weighted score is not the highest.
    const first = answer.body.hits[0]._federation.weightedRankingScore;
    t.true(answer.body.hits.some((hit: any) => hit._federation.weightedRankingScore > first), `weight ${weight}`);
  }
  const desc = await ranked(1, ['price:desc']);
  t.deepEqual(desc.body.hits.map((hit: any) => `${hit._federation.indexUid.slice(-1)}:${hit.id}`), ['b:3', 'a:1', 'b:1', 'a:3', 'a:2', 'b:2']);
});

test('relevance rules before the sort: the weighted run of rules decides first, then the sort value', async (t) => {
  // Default ranking rules (sort after attribute): every hit of `shoe` matches alike, so the first run
  // of rules ties without weights and the price decides; a weight on one query then puts its hits first.
  const plain = await post({ federation: {}, queries: [{ indexUid: 'shops_a', q: 'shoe', sort: ['price:asc'] }, { indexUid: 'shops_b', q: 'shoe', sort: ['price:asc'] }] });
  t.is(plain.status, 200, plain.text);
  t.deepEqual(names(plain.body.hits), ['a:anvil shoe', 'b:bronze shoe', 'a:copper shoe', 'b:diamond shoe', 'a:emerald shoe', 'b:felt shoe', 'b:glass shoe']);
  const weighted = await post({
    federation: {},
    queries: [{ indexUid: 'shops_a', q: 'shoe', sort: ['price:asc'] }, { indexUid: 'shops_b', q: 'shoe', sort: ['price:asc'], federationOptions: { weight: 2 } }],
  });
  t.is(weighted.status, 200, weighted.text);
  t.deepEqual(names(weighted.body.hits), ['b:bronze shoe', 'b:diamond shoe', 'b:felt shoe', 'b:glass shoe', 'a:anvil shoe', 'a:copper shoe', 'a:emerald shoe']);
});

test('without a sort the merge is by weighted score as before', async (t) => {
  const answer = await post({ federation: {}, queries: [{ indexUid: 'ranked_a', q: 'sneaker' }, { indexUid: 'ranked_b', q: 'sneaker' }] });
  t.is(answer.status, 200, answer.text);
  const scores = answer.body.hits.map((hit: any) => hit._federation.weightedRankingScore);
  t.deepEqual(scores, [...scores].sort((a: number, b: number) => b - a));
  for (const hit of answer.body.hits) t.false('_rankingScoreValues' in hit);
});

test('a query with a sort against one without: the hit with values left goes first (Meilisearch), whatever the query order', async (t) => {
  // Placeholder searches: the unsorted query's hits have no score values at all, the sorted one's a sort value.
  const answer = await post({ federation: {}, queries: [{ indexUid: 'shops_b', q: '' }, { indexUid: 'shops_a', q: '', sort: ['price:desc'] }] });
  t.is(answer.status, 200, answer.text);
  t.deepEqual(names(answer.body.hits).slice(0, 3), ['a:emerald shoe', 'a:copper shoe', 'a:anvil shoe']);
  t.deepEqual(names(answer.body.hits).slice(3).sort(), ['b:bronze shoe', 'b:diamond shoe', 'b:felt shoe', 'b:glass shoe']);
  // Opposite directions on one field cannot be merged (refused before any search).
  const opposite = await post({ federation: {}, queries: [{ indexUid: 'shops_a', q: '', sort: ['price:asc'] }, { indexUid: 'shops_b', q: '', sort: ['price:desc'] }] });
  t.is(opposite.status, 400, opposite.text);
  t.is(opposite.body.code, 'invalid_multi_search_query_ranking_rules');
});

test('useNetwork queries of a federated search with a sort: every group\'s hits carry their sort values', async (t) => {
  const there = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  try {
    const here = server.client;
    const settings = { sortableAttributes: ['n'] };
    // Each node keeps the documents its group owns (rendezvous placement): here even n, there odd n.
    await here.addDocuments('net_books', Array.from({ length: 8 }, (_, i) => ({ id: i + 1, n: 2 * (i + 1) })));
    await here.run('PATCH', '/indexes/net_books/settings', { body: settings });
    await there.client.addDocuments('net_books', Array.from({ length: 8 }, (_, i) => ({ id: i + 101, n: 2 * (i + 1) - 1 })));
    await there.client.run('PATCH', '/indexes/net_books/settings', { body: settings });
    await here.addDocuments('net_mags', [{ id: 1, n: 4.5 }, { id: 2, n: 10.5 }]);
    await here.run('PATCH', '/indexes/net_mags/settings', { body: settings });
    for (const client of [here, there.client]) t.is((await client.patch('/experimental-features', { network: true })).status, 200);
    const remotes = { here: { url: `http://127.0.0.1:${server.port}` }, there: { url: `http://127.0.0.1:${there.port}` } };
    const shards = { a: { remotes: ['here'] }, b: { remotes: ['there'] } };
    for (const [client, self] of [[here, 'here'], [there.client, 'there']] as const) {
      const set = await client.patch('/network', { self, remotes, shards });
      t.is(set.status, 200, set.text);
    }
    const answer = await post({ federation: {}, queries: [
      { indexUid: 'net_mags', q: '', sort: ['n:asc'] },
      { indexUid: 'net_books', q: '', sort: ['n:asc'], useNetwork: true },
    ] });
    t.is(answer.status, 200, answer.text);
    t.is(answer.body.remoteErrors, undefined, answer.text);
    const values = answer.body.hits.map((hit: any) => hit.n as number);
    t.deepEqual(values, [...values].sort((a, b) => a - b), JSON.stringify(values));
    t.true(values.includes(4.5) && values.includes(10.5), JSON.stringify(values));
    t.true(values.some((n: number) => n % 2 === 1) && values.some((n: number) => n % 2 === 0), JSON.stringify(values));
    for (const hit of answer.body.hits) t.false('_rankingScoreValues' in hit);
  } finally {
    await server.client.patch('/network', { self: null, remotes: {}, shards: {} }).catch(() => undefined);
    await there.close();
  }
});
