import test from 'ava';
import { defaultLimit, parseSearchRequest, shapeSearchResponse } from '../../bench/peers/response-shape.js';

test('search bodies: q and limit read, defaults applied, bad bodies refused', (t) => {
  t.deepEqual(parseSearchRequest('{"q":"dune","limit":5,"filter":"x"}'), { q: 'dune', limit: 5 });
  t.deepEqual(parseSearchRequest('{}'), { q: '', limit: defaultLimit });
  t.deepEqual(parseSearchRequest(''), { q: '', limit: defaultLimit });
  t.deepEqual(parseSearchRequest('{"q":null}'), { q: '', limit: defaultLimit });
  t.is(parseSearchRequest('{"q":'), null);
  t.is(parseSearchRequest('[1]'), null);
  t.is(parseSearchRequest('{"q":3}'), null);
  t.is(parseSearchRequest('{"limit":-1}'), null);
  t.is(parseSearchRequest('{"limit":2.5}'), null);
});

test('responses have the Meilisearch search shape with the pre-serialized hits', (t) => {
  const hits = [JSON.stringify({ id: 1, title: 'A "quoted" title' }), JSON.stringify({ id: 2, title: 'B' })];
  const body = JSON.parse(shapeSearchResponse('a "b"', 20, hits, 57, 1.6));
  t.deepEqual(body, {
    hits: [{ id: 1, title: 'A "quoted" title' }, { id: 2, title: 'B' }],
    query: 'a "b"',
    processingTimeMs: 2,
    limit: 20,
    offset: 0,
    estimatedTotalHits: 57,
  });
  t.deepEqual(JSON.parse(shapeSearchResponse('', 0, [], 0, 0)).hits, []);
});
