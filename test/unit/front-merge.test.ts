import test from 'ava';
import { mergeFacetExtras, shapeFacetDistribution } from '../../src/front/search/facet-merge.js';
import { compareRankedHits as compareHits } from '../../src/ranking/bucket-sort.js';
import { mergeRankedHits as mergeHits } from '../../src/ranking/scores/merge-ranked-hits.js';
import { effectiveAttributesToRetrieve } from '../../src/front/search/search-routes.js';
import { searchResponseJson } from '../../src/front/search/search-response.js';
import { searchWindow } from '../../src/front/http/pagination.js';
import type { HitMessage } from '../../src/protocol/messages.js';

const hit = (docId: number, ...score: number[]): HitMessage => ({ docId, score, document: `{"id":${docId}}` });

test('compareHits: lexicographic scores, lower first, then docId', (t) => {
  t.true(compareHits(hit(5, 0, 1), hit(1, 0, 2)) < 0);
  t.true(compareHits(hit(5, 1), hit(1, 0, 9)) > 0);
  t.true(compareHits(hit(1, 0, 0), hit(2, 0, 0)) < 0);
  t.true(compareHits(hit(1), hit(2)) < 0);
});

test('mergeHits k-way merges sorted lists and slices the window', (t) => {
  const a = [hit(0, 0), hit(3, 1), hit(6, 3)];
  const b = [hit(1, 0), hit(4, 2)];
  const c = [hit(2, 1), hit(5, 1)];
  const ids = (hits: HitMessage[]) => hits.map((h) => h.docId);
  t.deepEqual(ids(mergeHits([a, b, c], 0, 10)), [0, 1, 2, 3, 5, 4, 6]);
  t.deepEqual(ids(mergeHits([a, b, c], 2, 3)), [2, 3, 5]);
  t.deepEqual(ids(mergeHits([a, [], c], 0, 2)), [0, 2]);
  t.deepEqual(ids(mergeHits([], 0, 5)), []);
});

test('facet partials sum counts and keep min/max', (t) => {
  const merged = mergeFacetExtras([
    { facetDistribution: { genre: { drama: 2, action: 1 } }, facetStats: { price: { min: 3, max: 9 } } },
    null,
    { facetDistribution: { genre: { drama: 1, comedy: 4 } }, facetStats: { price: { min: 1, max: 5 } } },
  ]);
  t.deepEqual(merged, {
    facetDistribution: { genre: { drama: 3, action: 1, comedy: 4 } },
    facetStats: { price: { min: 1, max: 9 } },
  });
  const faceting = { maxValuesPerFacet: 2, sortFacetValuesBy: { '*': 'alpha' as const, genre: 'count' as const } };
  t.deepEqual(Object.keys(shapeFacetDistribution(merged!.facetDistribution!, faceting).genre!), ['comedy', 'drama']);
  t.deepEqual(Object.keys(shapeFacetDistribution(merged!.facetDistribution!, { ...faceting, sortFacetValuesBy: { '*': 'alpha' } }).genre!),
    ['action', 'comedy']);
});

test('effective attributesToRetrieve intersects with displayedAttributes', (t) => {
  t.is(effectiveAttributesToRetrieve(null, ['*']), null);
  t.is(effectiveAttributesToRetrieve(['*'], ['*']), null);
  t.deepEqual(effectiveAttributesToRetrieve(['title'], ['*']), ['title']);
  t.deepEqual(effectiveAttributesToRetrieve(null, ['title', 'id']), ['title', 'id']);
  t.deepEqual(effectiveAttributesToRetrieve(['title', 'secret'], ['title', 'id']), ['title']);
  t.deepEqual(effectiveAttributesToRetrieve(['a.b'], ['a']), ['a.b']);
  t.deepEqual(effectiveAttributesToRetrieve(['a'], ['a.b', 'c']), ['a.b']);
});

test('search response JSON keeps Meilisearch key order and raw documents', (t) => {
  const answer = {
    hitDocuments: ['{"id":1}', '{"id":2}'], query: 'q"x', processingTimeMs: 3,
    window: searchWindow({ offset: 0, limit: 2, page: null, hitsPerPage: null }, 1000), candidates: 5, facets: null,
  };
  const body = searchResponseJson(answer);
  t.is(body, '{"hits":[{"id":1},{"id":2}],"query":"q\\"x","processingTimeMs":3,"limit":2,"offset":0,"estimatedTotalHits":5}');
  const parsed = JSON.parse(searchResponseJson({
    hitDocuments: [], query: '', processingTimeMs: 0, window: searchWindow({ offset: 0, limit: 20, page: 1, hitsPerPage: 10 }, 1000),
    candidates: 0, facets: { facetDistribution: { genre: {} } },
  }));
  t.deepEqual(Object.keys(parsed), ['hits', 'query', 'processingTimeMs', 'hitsPerPage', 'page', 'totalPages', 'totalHits', 'facetDistribution']);
});

test('mergeShardResults sums the workers candidates and merges their hit lists into the window', async (t) => {
  const { mergeShardResults } = await import('../../src/front/search/shard-results.js');
  const result = (candidates: number, hits: HitMessage[]) => ({ requestId: 1, error: null, candidates, hits, extras: null });
  const merged = mergeShardResults([result(3, [hit(0, 1), hit(2, 3), hit(4, 5)]), result(2, [hit(1, 2), hit(3, 4)])], 1, 3);
  t.is(merged.candidates, 5);
  t.deepEqual(merged.hits.map((h) => h.docId), [1, 2, 3]);
});
