// Issue 22: Meilisearch's `_rankingScore` (score_details.rs: each rule's Rank folded by Rank::merge),
// `_rankingScoreDetails` and `rankingScoreThreshold`. The documents and expected figures are those of
// Meilisearch's own tests (crates/meilisearch/tests/search/mod.rs: test_score, test_score_details),
// so a threshold means what it means there.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

const SCORE_DOCUMENTS = [
  { title: 'Batman the dark knight returns: Part 1', id: 'A' },
  { title: 'Batman the dark knight returns: Part 2', id: 'B' },
  { title: 'Batman Returns', id: 'C' },
  { title: 'Batman', id: 'D' },
  { title: 'Badman', id: 'E' },
];

const DOCUMENTS = [
  { title: 'Shazam!', id: '287947', color: ['green', 'blue'] },
  { title: 'Captain Marvel', id: '299537', color: ['yellow', 'blue'] },
  { title: 'Escape Room', id: '522681', color: ['yellow', 'red'] },
  { title: 'How to Train Your Dragon: The Hidden World', id: '166428', color: ['green', 'red'] },
  { title: 'Gläss', id: '450465', color: ['blue', 'red'] },
];

// Serial: two searches arriving together right after a load lose hits on main too (reported, not this
// issue's: the first search answers the second nested in its yield point, both with the same reused rules).
test.before(async () => {
  server = await startTestServer();
  const { client } = server;
  await client.addDocuments('score_docs', SCORE_DOCUMENTS);
  await client.addDocuments('score_movies', DOCUMENTS);
  const settings = { filterableAttributes: ['id', 'title'], sortableAttributes: ['id', 'title'] };
  await client.run('PATCH', '/indexes/score_docs/settings', { body: settings });
  await client.run('PATCH', '/indexes/score_movies/settings', { body: settings });
});
test.after.always(async () => {
  await server?.close();
});

const QUERY = 'Badman the dark knight returns 1';

test.serial('_rankingScore is Meilisearch\'s global score (test_score\'s figures)', async (t) => {
  const response = await server.client.post('/indexes/score_docs/search', { q: QUERY, showRankingScore: true });
  t.is(response.status, 200);
  t.deepEqual(response.body.hits.map((hit: any) => [hit.id, hit._rankingScore]), [
    ['A', 0.9746605609456898],
    ['B', 0.8055252965383685],
    ['E', 0.16666666666666666],
    ['C', 0.07702020202020202],
    ['D', 0.07702020202020202],
  ]);
  // A placeholder search has no ranking rule that scores: 1 for every hit.
  const placeholder = await server.client.post('/indexes/score_docs/search', { showRankingScore: true, limit: 2 });
  t.deepEqual(placeholder.body.hits.map((hit: any) => hit._rankingScore), [1, 1]);
});

test.serial('showRankingScoreDetails: one entry per rule with Meilisearch\'s fields and order (test_score_details)', async (t) => {
  const response = await server.client.post('/indexes/score_movies/search', { q: 'train dragon', showRankingScoreDetails: true });
  t.is(response.status, 200);
  t.deepEqual(response.body.hits, [{
    title: 'How to Train Your Dragon: The Hidden World',
    id: '166428',
    color: ['green', 'red'],
    _rankingScoreDetails: {
      words: { order: 0, matchingWords: 2, maxMatchingWords: 2, score: 1.0 },
      typo: { order: 1, typoCount: 0, maxTypoCount: 2, score: 1.0 },
      proximity: { order: 2, score: 0.75 },
      attributeRank: { order: 3, score: 1.0 },
      wordPosition: { order: 4, score: 0.8095238095238095 },
      exactness: { order: 5, matchType: 'noExactMatch', matchingWords: 2, maxMatchingWords: 2, score: 0.3333333333333333 },
    },
  }]);
  // Both flags: the score, then its details; a sort criterion shows the document's value; matchingStrategy
  // all has no words rule (milli adds none).
  const sorted = await server.client.post('/indexes/score_movies/search', {
    q: 'train dragon', showRankingScore: true, showRankingScoreDetails: true, sort: ['id:asc'], matchingStrategy: 'all', attributesToRetrieve: ['id'],
  });
  t.is(sorted.status, 200);
  const [hit] = sorted.body.hits;
  t.deepEqual(Object.keys(hit), ['id', '_rankingScore', '_rankingScoreDetails']);
  t.deepEqual(Object.keys(hit._rankingScoreDetails), ['typo', 'proximity', 'attributeRank', 'id:asc', 'wordPosition', 'exactness']);
  t.deepEqual(hit._rankingScoreDetails['id:asc'], { order: 3, value: '166428' });
  t.is(hit._rankingScoreDetails.exactness.order, 5);
  // Without words and sort: typo 3/3, proximity 3/4, attributeRank 1/1, wordPosition 17/21, exactness 1/3 then 3/3.
  t.is(hit._rankingScore, fold([[3, 3], [3, 4], [1, 1], [17, 21], [1, 3], [3, 3]]));
  const wrong = await server.client.post('/indexes/score_movies/search', { q: 'train', showRankingScoreDetails: 'yes' });
  t.is(wrong.status, 400);
  t.is(wrong.body.code, 'invalid_search_show_ranking_score_details');
});

/** Rank::merge folded from {1, 1}. */
function fold(ranks: [number, number][]): number {
  let rank = 1;
  let max = 1;
  for (const [inner, innerMax] of ranks) {
    rank = (rank - 1) * innerMax + inner;
    max *= innerMax;
  }
  return rank / max;
}

test.serial('rankingScoreThreshold drops hits under it and from the counts, on search, page mode and facet search', async (t) => {
  const offsetLimit = await server.client.post('/indexes/score_docs/search', { q: QUERY, showRankingScore: true, rankingScoreThreshold: 0.5 });
  t.is(offsetLimit.status, 200);
  t.deepEqual(offsetLimit.body.hits.map((hit: any) => hit.id), ['A', 'B']);
  t.is(offsetLimit.body.estimatedTotalHits, 2);
  const page = await server.client.post('/indexes/score_docs/search', { q: QUERY, rankingScoreThreshold: 0.1, hitsPerPage: 1 });
  t.deepEqual(page.body.hits.map((hit: any) => hit.id), ['A']);
  t.is(page.body.totalHits, 3);
  t.is(page.body.totalPages, 3);
  const get = await server.client.get(`/indexes/score_docs/search?q=${encodeURIComponent(QUERY)}&rankingScoreThreshold=0.9`);
  t.deepEqual(get.body.hits.map((hit: any) => hit.id), ['A']);
  // Threshold 0: everything; 1: only perfect hits (none here); a placeholder search scores 1.
  t.is((await server.client.post('/indexes/score_docs/search', { q: QUERY, rankingScoreThreshold: 0 })).body.estimatedTotalHits, 5);
  t.is((await server.client.post('/indexes/score_docs/search', { q: QUERY, rankingScoreThreshold: 1 })).body.estimatedTotalHits, 0);
  t.is((await server.client.post('/indexes/score_docs/search', { rankingScoreThreshold: 1 })).body.estimatedTotalHits, 5);
  const facets = await server.client.post('/indexes/score_docs/search', { q: QUERY, rankingScoreThreshold: 0.5, facets: ['id'] });
  t.deepEqual(facets.body.facetDistribution, { id: { A: 1, B: 1 } });
  const facetSearch = await server.client.post('/indexes/score_docs/facet-search', { facetName: 'id', q: QUERY, rankingScoreThreshold: 0.5 });
  t.is(facetSearch.status, 200);
  t.deepEqual(facetSearch.body.facetHits, [{ value: 'A', count: 1 }, { value: 'B', count: 1 }]);
  for (const bad of [1.5, -0.1, 'x']) {
    const response = await server.client.post('/indexes/score_docs/search', { q: QUERY, rankingScoreThreshold: bad });
    t.is(response.status, 400);
    t.is(response.body.code, 'invalid_search_ranking_score_threshold');
  }
  const badFacet = await server.client.post('/indexes/score_docs/facet-search', { facetName: 'id', rankingScoreThreshold: 2 });
  t.is(badFacet.status, 400);
  t.is(badFacet.body.code, 'invalid_search_ranking_score_threshold');
});

test.serial('attributesToSearchOn: an attribute not searchable is Meilisearch\'s error on search, multi-search and facet search', async (t) => {
  const { client } = server;
  await client.addDocuments('score_restricted', [{ id: 1, title: 'dragon', overview: 'a dragon', author: { name: 'tolkien' }, secret: 'dragon' }]);
  await client.run('PATCH', '/indexes/score_restricted/settings', {
    body: { searchableAttributes: ['title', 'overview', 'author', 'secret'], displayedAttributes: ['id', 'title', 'overview', 'author'], filterableAttributes: ['id'] },
  });
  // Meilisearch names the index in a search's error (search-errors-index.test.ts), not in a facet search's.
  const message = 'Index `score_restricted`: Attribute `year` is not searchable. Available searchable attributes are: `author, overview, title, <..hidden-attributes>`.';
  const search = await client.post('/indexes/score_restricted/search', { q: 'dragon', attributesToSearchOn: ['title', 'year'] });
  t.is(search.status, 400);
  t.is(search.body.code, 'invalid_search_attributes_to_search_on');
  t.is(search.body.message, message);
  t.is(search.body.type, 'invalid_request');
  const multi = await client.post('/multi-search', { queries: [{ indexUid: 'score_restricted', q: 'dragon', attributesToSearchOn: ['year'] }] });
  t.is(multi.status, 400);
  t.is(multi.body.code, 'invalid_search_attributes_to_search_on');
  const facet = await client.post('/indexes/score_restricted/facet-search', { facetName: 'id', q: 'dragon', attributesToSearchOn: ['year'] });
  t.is(facet.status, 400);
  t.is(facet.body.code, 'invalid_search_attributes_to_search_on');
  // Searchable attributes, paths inside them, `*` and patterns matching one are accepted.
  for (const list of [['title'], ['author.name'], ['*'], ['over*'], []]) {
    const ok = await client.post('/indexes/score_restricted/search', { q: 'dragon', attributesToSearchOn: list });
    t.is(ok.status, 200, JSON.stringify(list));
  }
  // With searchableAttributes `*`, Meilisearch ignores names it does not know.
  const star = await client.post('/indexes/score_docs/search', { q: 'batman', attributesToSearchOn: ['nothing'] });
  t.is(star.status, 200);
  const wrongType = await client.post('/indexes/score_restricted/search', { q: 'dragon', attributesToSearchOn: 'title' });
  t.is(wrongType.status, 400);
  t.is(wrongType.body.code, 'invalid_search_attributes_to_search_on');
});

test.serial('the legacy attribute rule is one `attribute` entry (attributeRankingOrderScore, queryWordDistanceScore); a searchable order weighs fields', async (t) => {
  const { client } = server;
  await client.addDocuments('score_legacy', DOCUMENTS);
  await client.run('PATCH', '/indexes/score_legacy/settings', {
    body: { rankingRules: ['words', 'typo', 'proximity', 'attribute', 'exactness'], searchableAttributes: ['color', 'title'] },
  });
  const response = await client.post('/indexes/score_legacy/search', { q: 'train dragon', showRankingScoreDetails: true, showRankingScore: true, attributesToRetrieve: ['id'] });
  t.is(response.status, 200);
  const [hit] = response.body.hits;
  // Two terms in title, the second searchable attribute: weight 1 each of at most 1, so 1 of 3.
  t.deepEqual(hit._rankingScoreDetails.attribute, { order: 3, attributeRankingOrderScore: 1 / 3, queryWordDistanceScore: 17 / 21, score: fold([[1, 3], [17, 21]]) });
  t.deepEqual(Object.keys(hit._rankingScoreDetails), ['words', 'typo', 'proximity', 'attribute', 'exactness']);
  t.is(hit._rankingScore, fold([[2, 2], [3, 3], [3, 4], [1, 3], [17, 21], [1, 3], [3, 3]]));
});
