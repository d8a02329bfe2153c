// Query features as Meilisearch v1.53 has them (issue 22): facet search's typo settings and
// exhaustiveFacetCount, the negative operator, matchingStrategy "frequency".
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ shardsPerIndex: 3 });
});
test.after.always(async () => {
  await server?.close();
});

const GENRES = [
  { id: 1, title: 'dracula', genre: 'Horror', kind: 'Horror' },
  { id: 2, title: 'carrie', genre: 'Horror', kind: 'Horror' },
  { id: 3, title: 'emma', genre: 'Romance', kind: 'Romance' },
  { id: 4, title: 'dune', genre: 'Science Fiction', kind: 'Science Fiction' },
];

async function facetValues(index: string, body: Record<string, unknown>): Promise<string[]> {
  const response = await server.client.post(`/indexes/${index}/facet-search`, body);
  if (response.status !== 200) throw new Error(`facet-search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body.facetHits.map((hit: { value: string }) => hit.value);
}

test('facet search applies typoTolerance: enabled, minWordSizeForTypos, disableOnAttributes, disableOnWords, transpositions', async (t) => {
  const index = 'facet_typos';
  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { filterableAttributes: ['genre', 'kind'] } });
  await server.client.addDocuments(index, GENRES);
  // Defaults: 1 typo from 5 bytes, an adjacent transposition is one typo.
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), ['Horror']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'hroror' }), ['Horror'], 'transposition');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'hor' }), ['Horror']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horo' }), [], '4 bytes: no typo');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { minWordSizeForTypos: { oneTypo: 6, twoTypos: 8 } } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'oneTypo 6: 5 bytes is exact');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horrxr' }), ['Horror']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'scyence fx' }), ['Science Fiction'], 'two typos from 8 bytes');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 }, disableOnAttributes: ['genre'] } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'no typo on a disableOnAttributes facet');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'hor' }), ['Horror'], 'prefixes still match');
  t.deepEqual(await facetValues(index, { facetName: 'kind', facetQuery: 'horor' }), ['Horror'], 'other facets keep typos');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { disableOnAttributes: [], disableOnWords: ['horor', 'Romance'] } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'a disableOnWords query matches exactly');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'ROMANCE' }), ['Romance']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horro' }), ['Horror'], 'other queries keep typos and prefixes');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { enabled: false, disableOnWords: [] } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'typos disabled');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'scien' }), ['Science Fiction']);

  // Hostile: a long query against disabled typos stays a plain prefix test.
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'h'.repeat(500) }), []);
  const disabled = await server.client.patch(`/indexes/${index}/settings`, { facetSearch: false });
  await server.client.waitForTask(disabled.body.taskUid);
  const refused = await server.client.post(`/indexes/${index}/facet-search`, { facetName: 'genre', facetQuery: 'hor' });
  t.is(refused.status, 400);
  t.is(refused.body.code, 'facet_search_disabled');
  t.is(refused.body.type, 'invalid_request');
});
