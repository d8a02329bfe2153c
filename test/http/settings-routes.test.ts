// Every settings sub-route (routes.md §5): GET the default, update with its verb (the task's details
// echo the change), GET the new value, DELETE back to the default, and one validation error each.
import test from 'ava';
import { defaultSettings, type IndexSettings } from '../../src/settings/index-settings.js';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});
test.after.always(async () => {
  await server?.close();
});

interface SubRouteCase {
  route: string;
  key: keyof IndexSettings;
  verb: 'PUT' | 'PATCH';
  value: unknown;
  /** What GET answers after the update (default: the value). */
  stored?: unknown;
  invalid: unknown;
  code: string;
}

const CASES: SubRouteCase[] = [
  { route: 'displayed-attributes', key: 'displayedAttributes', verb: 'PUT', value: ['title', 'id'], invalid: 'title', code: 'invalid_settings_displayed_attributes' },
  { route: 'searchable-attributes', key: 'searchableAttributes', verb: 'PUT', value: ['title'], invalid: [1], code: 'invalid_settings_searchable_attributes' },
  { route: 'filterable-attributes', key: 'filterableAttributes', verb: 'PUT', value: ['genre'], invalid: 'genre', code: 'invalid_settings_filterable_attributes' },
  { route: 'sortable-attributes', key: 'sortableAttributes', verb: 'PUT', value: ['year', 'genre'], stored: ['genre', 'year'], invalid: [1], code: 'invalid_settings_sortable_attributes' },
  { route: 'ranking-rules', key: 'rankingRules', verb: 'PUT', value: ['typo', 'words', 'year:desc'], invalid: ['nope'], code: 'invalid_settings_ranking_rules' },
  { route: 'stop-words', key: 'stopWords', verb: 'PUT', value: ['the', 'a'], stored: ['a', 'the'], invalid: {}, code: 'invalid_settings_stop_words' },
  { route: 'non-separator-tokens', key: 'nonSeparatorTokens', verb: 'PUT', value: ['@'], invalid: 'x', code: 'invalid_settings_non_separator_tokens' },
  { route: 'separator-tokens', key: 'separatorTokens', verb: 'PUT', value: ['&'], invalid: true, code: 'invalid_settings_separator_tokens' },
  { route: 'dictionary', key: 'dictionary', verb: 'PUT', value: ['J. R. R.'], invalid: 3, code: 'invalid_settings_dictionary' },
  { route: 'synonyms', key: 'synonyms', verb: 'PUT', value: { b: ['c'], a: ['d', 'e'] }, invalid: ['a'], code: 'invalid_settings_synonyms' },
  { route: 'distinct-attribute', key: 'distinctAttribute', verb: 'PUT', value: 'genre', invalid: 3, code: 'invalid_settings_distinct_attribute' },
  { route: 'proximity-precision', key: 'proximityPrecision', verb: 'PUT', value: 'byAttribute', invalid: 'byLetter', code: 'invalid_settings_proximity_precision' },
  {
    route: 'typo-tolerance', key: 'typoTolerance', verb: 'PATCH', value: { enabled: false, minWordSizeForTypos: { oneTypo: 3 } },
    stored: { ...defaultSettings().typoTolerance, enabled: false, minWordSizeForTypos: { oneTypo: 3, twoTypos: 9 } },
    invalid: { minWordSizeForTypos: { oneTypo: 9, twoTypos: 5 } }, code: 'invalid_settings_typo_tolerance',
  },
  {
    route: 'faceting', key: 'faceting', verb: 'PATCH', value: { maxValuesPerFacet: 10 },
    stored: { maxValuesPerFacet: 10, sortFacetValuesBy: { '*': 'alpha' } }, invalid: { maxValuesPerFacet: -1 }, code: 'invalid_settings_faceting',
  },
  { route: 'pagination', key: 'pagination', verb: 'PATCH', value: { maxTotalHits: 50 }, invalid: { maxTotalHits: 0 }, code: 'invalid_settings_pagination' },
  { route: 'embedders', key: 'embedders', verb: 'PATCH', value: {}, invalid: [], code: 'invalid_settings_embedders' },
  { route: 'search-cutoff-ms', key: 'searchCutoffMs', verb: 'PUT', value: 150, invalid: 'fast', code: 'invalid_settings_search_cutoff_ms' },
  {
    route: 'localized-attributes', key: 'localizedAttributes', verb: 'PUT', value: [{ attributePatterns: ['*_ja'], locales: ['jpn'] }],
    invalid: 'jpn', code: 'invalid_settings_localized_attributes',
  },
  { route: 'facet-search', key: 'facetSearch', verb: 'PUT', value: false, invalid: 'no', code: 'invalid_settings_facet_search' },
  { route: 'prefix-search', key: 'prefixSearch', verb: 'PUT', value: 'disabled', invalid: 'sometimes', code: 'invalid_settings_prefix_search' },
];

for (const [position, item] of CASES.entries()) {
  test(`settings/${item.route}: GET, ${item.verb}, DELETE and a validation error`, async (t) => {
    const { client } = server;
    const index = `sub_${position}`;
    await client.createIndex(index);
    const path = `/indexes/${index}/settings/${item.route}`;
    const fresh = await client.get(path);
    t.is(fresh.status, 200);
    t.deepEqual(fresh.body, defaultSettings()[item.key]);

    const update = await client.request(item.verb, path, { body: item.value });
    t.is(update.status, 202);
    t.like(update.body, { indexUid: index, status: 'enqueued', type: 'settingsUpdate' });
    const task = await client.waitForTask(update.body.taskUid);
    t.is(task.status, 'succeeded', JSON.stringify(task.error));
    t.deepEqual(Object.keys(task.details), [item.key]);
    t.deepEqual((await client.get(path)).body, item.stored ?? item.value);
    t.deepEqual((await client.get(`/indexes/${index}/settings`)).body[item.key], item.stored ?? item.value);

    const reset = await client.delete(path);
    t.is(reset.status, 202);
    const resetTask = await client.waitForTask(reset.body.taskUid);
    t.is(resetTask.status, 'succeeded');
    t.deepEqual(Object.keys(resetTask.details), [item.key]);
    t.deepEqual((await client.get(path)).body, defaultSettings()[item.key]);

    const invalid = await client.request(item.verb, path, { body: item.invalid });
    t.is(invalid.status, 400, invalid.text);
    t.is(invalid.body.code, item.code);
    const wrongVerb = await client.request(item.verb === 'PUT' ? 'PATCH' : 'PUT', path, { body: item.value });
    t.is(wrongVerb.status, 405);
  });
}

test('settings task details echo the sent values (settings.md §4)', async (t) => {
  const { client } = server;
  const task = await client.run('PATCH', '/indexes/sub_details/settings', {
    body: { rankingRules: null, filterableAttributes: ['genre'], displayedAttributes: ['*', 'title'], stopWords: ['b', 'a'] },
  });
  t.deepEqual(task.details, { displayedAttributes: ['*'], filterableAttributes: ['genre'], rankingRules: null, stopWords: ['a', 'b'] });
  const reset = await client.run('DELETE', '/indexes/sub_details/settings');
  t.is(Object.keys(reset.details).length, Object.keys(defaultSettings()).length);
});

test('a sub-route body of null resets the setting', async (t) => {
  const { client } = server;
  await client.run('PUT', '/indexes/sub_null/settings/stop-words', { body: ['x'] });
  await client.run('PUT', '/indexes/sub_null/settings/stop-words', { body: null });
  t.deepEqual((await client.get('/indexes/sub_null/settings/stop-words')).body, []);
});
