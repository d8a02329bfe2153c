// Issue 22's audit: error paths of items whose HTTP tests covered the success path only, each as
// Meilisearch v1.53 answers it (codes from meilisearch-types' error.rs, deserr's messages).
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  await server.client.addDocuments('paths', [{ id: 1, title: 'hello world', tags: ['a'] }, { id: 2, title: 'second world', tags: ['b'] }]);
});

test.after.always(async () => {
  await server?.close();
});

test('settings routes on a missing index: a reset fails the task with index_not_found and creates nothing; an update creates it', async (t) => {
  const { client } = server;
  for (const path of ['/indexes/ghost/settings', '/indexes/ghost/settings/ranking-rules', '/indexes/ghost/settings/search-cutoff-ms']) {
    const task = await client.waitForTask(await client.enqueue('DELETE', path));
    t.is(task.status, 'failed', path);
    t.is(task.type, 'settingsUpdate', path);
    t.deepEqual(task.error, {
      message: 'Index `ghost` not found.', code: 'index_not_found', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#index_not_found',
    }, path);
  }
  t.is((await client.get('/indexes/ghost')).status, 404, 'a failed reset leaves no index behind');
  await client.run('PATCH', '/indexes/ghost/settings', { body: { searchCutoffMs: 40 } });
  t.is((await client.get('/indexes/ghost/settings/search-cutoff-ms')).body, 40);
});

test('retrieveVectors and cropLength of the wrong type: their own codes, on search and documents routes', async (t) => {
  const { client } = server;
  const search = await client.post('/indexes/paths/search', { retrieveVectors: 'yes' });
  t.is(search.status, 400);
  t.deepEqual(search.body, {
    message: 'Invalid value type at `.retrieveVectors`: expected a boolean, but found a string: `"yes"`',
    code: 'invalid_search_retrieve_vectors', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_search_retrieve_vectors',
  });
  const searchGet = await client.get('/indexes/paths/search?retrieveVectors=yes');
  t.is(searchGet.status, 400);
  t.is(searchGet.body.code, 'invalid_search_retrieve_vectors');
  const fetch = await client.post('/indexes/paths/documents/fetch', { retrieveVectors: 1 });
  t.is(fetch.status, 400);
  t.is(fetch.body.code, 'invalid_document_retrieve_vectors');
  t.is(fetch.body.message, 'Invalid value type at `.retrieveVectors`: expected a boolean, but found a positive integer: `1`');
  for (const path of ['/indexes/paths/documents?retrieveVectors=maybe', '/indexes/paths/documents/1?retrieveVectors=maybe']) {
    const response = await client.get(path);
    t.is(response.status, 400, path);
    t.is(response.body.code, 'invalid_document_retrieve_vectors', path);
  }
  const crop = await client.post('/indexes/paths/search', { q: 'world', attributesToCrop: ['title'], cropLength: -1 });
  t.is(crop.status, 400);
  t.deepEqual(crop.body, {
    message: 'Invalid value type at `.cropLength`: expected a positive integer, but found a negative integer: `-1`',
    code: 'invalid_search_crop_length', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_search_crop_length',
  });
  const cropGet = await client.get('/indexes/paths/search?q=world&attributesToCrop=title&cropLength=ten');
  t.is(cropGet.status, 400);
  t.is(cropGet.body.code, 'invalid_search_crop_length');
  // cropLength 0 is valid: an empty crop window is the crop marker alone, as Meilisearch.
  const zero = await client.post('/indexes/paths/search', { q: 'world', attributesToCrop: ['title'], cropLength: 0 });
  t.is(zero.status, 200);
});

test('CONTAINS needs the containsFilter feature on every filter route (feature_not_enabled at the keyword); STARTS WITH does not; then it filters', async (t) => {
  const { client } = server;
  await client.run('PATCH', '/indexes/contains/settings', { body: { filterableAttributes: ['title'] } });
  await client.addDocuments('contains', [{ id: 1, title: 'hello world' }, { id: 2, title: 'goodbye moon' }, { id: 3, title: 'worldly' }]);
  const message = 'Using `CONTAINS` in a filter requires enabling the `contains filter` experimental feature. See https://github.com/orgs/meilisearch/discussions/763\n7:15 title CONTAINS world';
  const expected = { message, code: 'feature_not_enabled', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#feature_not_enabled' };
  t.deepEqual((await client.post('/indexes/contains/search', { filter: 'title CONTAINS world' })).body, expected);
  t.deepEqual((await client.get('/indexes/contains/search?filter=title%20CONTAINS%20world')).body, expected);
  t.deepEqual((await client.post('/indexes/contains/documents/fetch', { filter: 'title CONTAINS world' })).body, expected);
  t.deepEqual((await client.post('/indexes/contains/facet-search', { facetName: 'title', filter: 'title CONTAINS world' })).body, expected);
  t.deepEqual((await client.post('/indexes/contains/documents/delete', { filter: 'title CONTAINS world' })).body, expected);
  const multi = await client.post('/multi-search', { queries: [{ indexUid: 'contains' }, { indexUid: 'contains', filter: [['id = 1', 'title NOT CONTAINS moon']] }] });
  t.is(multi.status, 400);
  t.is(multi.body.code, 'feature_not_enabled');
  t.true(multi.body.message.startsWith('Inside `.queries[1]`: Using `CONTAINS` in a filter'), multi.body.message);
  t.true(multi.body.message.endsWith('\n11:19 title NOT CONTAINS moon'), multi.body.message);
  // A filter that does not parse is its syntax error first; STARTS WITH needs no feature.
  t.is((await client.post('/indexes/contains/search', { filter: 'title CONTAINS' })).body.code, 'invalid_search_filter');
  const startsWith = await client.post('/indexes/contains/search', { filter: 'title STARTS WITH world' });
  t.is(startsWith.status, 200);
  t.deepEqual(startsWith.body.hits.map((hit: { id: number }) => hit.id), [3]);
  // A word merely holding the letters is no operator.
  t.is((await client.post('/indexes/contains/search', { filter: 'title = "CONTAINS"' })).status, 200);

  const enabled = await client.patch('/experimental-features', { containsFilter: true });
  t.is(enabled.status, 200);
  try {
    const found = await client.post('/indexes/contains/search', { filter: 'title CONTAINS world' });
    t.is(found.status, 200);
    t.deepEqual(found.body.hits.map((hit: { id: number }) => hit.id), [1, 3]);
    const fetched = await client.post('/indexes/contains/documents/fetch', { filter: 'title NOT CONTAINS world' });
    t.deepEqual(fetched.body.results.map((hit: { id: number }) => hit.id), [2]);
  } finally {
    await client.patch('/experimental-features', { containsFilter: false });
  }
});

test('federated queries whose ranking rules cannot be compared: invalid_multi_search_query_ranking_rules with Meilisearch\'s canonicalization notes', async (t) => {
  const { client } = server;
  await client.addDocuments('fed_sort', [{ id: 1, name: 'pésti', mother: 'a', father: 'z' }, { id: 2, name: 'jean', mother: 'b', father: 'y' }]);
  await client.run('PATCH', '/indexes/fed_sort/settings', {
    body: { sortableAttributes: ['mother', 'father'], rankingRules: ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness'] },
  });
  const placeholderNotes = (query: number) => `  - note: The ranking rules of query #${query} were modified during canonicalization:\n`
    + ['words', 'typo', 'proximity', 'attribute', 'exactness'].map((rule, k) => `    ${k + 1}. Removed relevancy rule \`${rule}\` at position #${k + 1} in ranking rules because the query is a placeholder search (\`q\`: "")\n`).join('');
  const opposite = '  1. `queries[0].sort[0]`, `fed_sort.rankingRules[0]`: ascending sort rule(s) on field `mother`\n'
    + '  2. `queries[1].sort[0]`, `fed_sort.rankingRules[0]`: descending sort rule(s) on field `mother`\n  - cannot compare two sort rules in opposite directions\n';
  // Meilisearch's federation_sort_same_indexes_same_criterion_opposite_direction.
  const placeholders = await client.post('/multi-search', { federation: {}, queries: [
    { indexUid: 'fed_sort', q: '', sort: ['mother:asc'], showRankingScore: true },
    { indexUid: 'fed_sort', q: '', sort: ['mother:desc'], showRankingScore: true },
  ] });
  t.is(placeholders.status, 400);
  t.deepEqual(placeholders.body, {
    message: `Inside \`.queries[1]\`: The results of queries #0 and #1 are incompatible: \n${opposite}${placeholderNotes(0)}${placeholderNotes(1)}`,
    code: 'invalid_multi_search_query_ranking_rules', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_multi_search_query_ranking_rules',
  });
  const keywords = await client.post('/multi-search', { federation: {}, queries: [
    { indexUid: 'fed_sort', q: 'pésti', sort: ['mother:asc'] }, { indexUid: 'fed_sort', q: 'jean', sort: ['mother:desc'] },
  ] });
  t.is(keywords.body.message, `Inside \`.queries[1]\`: The results of queries #0 and #1 are incompatible: \n${opposite}`);
  // Across indexes, in uid order: a relevancy rule against a sort rule (the default rules coalesced, as
  // Meilisearch's federation_sort_different_ranking_rules); the keyword query's unused `sort` is a note.
  await client.addDocuments('fed_plain', [{ id: 1, name: 'jean' }]);
  const across = await client.post('/multi-search', { federation: {}, queries: [
    { indexUid: 'fed_sort', q: '', sort: ['father:asc'] }, { indexUid: 'fed_plain', q: 'jean' },
  ] });
  t.is(across.status, 400);
  t.is(across.body.message, 'Inside `.queries[0]`: The results of queries #1 and #0 are incompatible: \n'
    + '  1. `queries[1]`, `fed_plain.rankingRules[0..=5]`: relevancy rule(s) words, typo, proximity, attributeRank, wordPosition, exactness\n'
    + '  2. `queries[0].sort[0]`, `fed_sort.rankingRules[0]`: ascending sort rule(s) on field `father`\n  - cannot compare a relevancy rule with a sort rule\n'
    + '  - note: The ranking rules of query #1 were modified during canonicalization:\n   1. Removed rule `sort` at position #4 in ranking rules because `query.sort` is empty\n'
    + placeholderNotes(0));
  // Comparable rules still merge; a multi-search without federation never checks.
  const same = await client.post('/multi-search', { federation: {}, queries: [
    { indexUid: 'fed_sort', q: '', sort: ['mother:asc'] }, { indexUid: 'fed_sort', q: 'jean', sort: ['father:asc'] },
  ] });
  t.is(same.status, 200, JSON.stringify(same.body).slice(0, 300));
  const plain = await client.post('/multi-search', { queries: [
    { indexUid: 'fed_sort', q: '', sort: ['mother:asc'] }, { indexUid: 'fed_sort', q: '', sort: ['mother:desc'] },
  ] });
  t.is(plain.status, 200);
});

test('proximityPrecision byAttribute: two words in one field are as near as adjacent ones, in different fields far; byWord tells distances', async (t) => {
  const { client } = server;
  await client.addDocuments('proximity', [
    { id: 1, title: 'sun is a very bright star', body: 'nothing' },
    { id: 2, title: 'sun star', body: 'nothing' },
    { id: 3, title: 'sun', body: 'star' },
  ]);
  await client.run('PATCH', '/indexes/proximity/settings', { body: { rankingRules: ['words', 'proximity'] } });
  const order = async () => {
    const response = await client.post('/indexes/proximity/search', { q: 'sun star', showRankingScoreDetails: true });
    t.is(response.status, 200);
    return response.body.hits.map((hit: { id: number; _rankingScoreDetails: { proximity: { score: number } } }) => [hit.id, hit._rankingScoreDetails.proximity.score]);
  };
  t.deepEqual(await order(), [[2, 1], [1, 0.25], [3, 0.25]]);
  await client.run('PUT', '/indexes/proximity/settings/proximity-precision', { body: 'byAttribute' });
  // Ties keep the internal id order.
  t.deepEqual(await order(), [[1, 1], [2, 1], [3, 0.25]]);
  await client.run('DELETE', '/indexes/proximity/settings/proximity-precision');
  t.deepEqual(await order(), [[2, 1], [1, 0.25], [3, 0.25]]);
});

test('prefixSearch disabled: the last query word matches whole words only; indexingTime matches prefixes again', async (t) => {
  const { client } = server;
  await client.addDocuments('prefix', [{ id: 1, title: 'hello world' }, { id: 2, title: 'help desk' }, { id: 3, title: 'hel' }]);
  const ids = async (q: string) => {
    const response = await client.post('/indexes/prefix/search', { q });
    t.is(response.status, 200);
    return response.body.hits.map((hit: { id: number }) => hit.id).sort();
  };
  t.deepEqual(await ids('hel'), [1, 2, 3]);
  await client.run('PUT', '/indexes/prefix/settings/prefix-search', { body: 'disabled' });
  t.deepEqual(await ids('hel'), [3]);
  await client.run('PUT', '/indexes/prefix/settings/prefix-search', { body: 'indexingTime' });
  t.deepEqual(await ids('hel'), [1, 2, 3]);
});

test('every task type name Meilisearch v1.53 has is accepted in types filters (tasks, batches, cancel, delete); an unknown one lists them all', async (t) => {
  const { client } = server;
  const TYPES = ['documentAdditionOrUpdate', 'documentEdition', 'documentDeletion', 'settingsUpdate', 'indexCreation', 'indexDeletion', 'indexUpdate',
    'indexSwap', 'taskCancelation', 'taskDeletion', 'dumpCreation', 'snapshotCreation', 'export', 'upgradeDatabase', 'indexCompaction',
    'networkTopologyChange', 'dsrUpdate', 'dsrClear'];
  for (const type of TYPES) {
    for (const path of [`/tasks?types=${type}`, `/batches?types=${type}`]) t.is((await client.get(path)).status, 200, path);
  }
  const all = TYPES.join(',');
  t.is((await client.get(`/tasks?types=${all}`)).status, 200);
  t.is((await client.post(`/tasks/cancel?types=${all}&uids=999999`)).status, 200);
  t.is((await client.delete(`/tasks?types=${all}&uids=999999`)).status, 200);
  const unknown = await client.get('/tasks?types=documentAddition');
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body, {
    message: `Task type \`documentAddition\` is invalid. Available task types are ${TYPES.map((type) => `\`${type}\``).join(', ')}.`,
    code: 'invalid_task_types', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_task_types',
  });
});
