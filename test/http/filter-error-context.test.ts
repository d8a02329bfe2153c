// The context line of a filter error found against the index's settings. Meilisearch v1.50's search
// routes (search, GET search, multi-search, federated: documents_retrieval -> perform_federated_search)
// parse the filter, serialize it again (milli's serialize_index_filter_to_filter_string: names and values
// quoted as JSON, each member of AND / OR in parentheses, geo numbers as written) and evaluate that text,
// so the errors found while evaluating (not filterable, `_geo` / `_geojson` not filterable, bad
// coordinates) quote it (its tests: search/errors.rs `2:6 "many" = "Glass"`). Syntax errors and reserved
// names are found while parsing: they quote the filter as sent, and so do facet search and the documents
// routes, which evaluate the parsed filter itself.
import test from 'ava';
import { errorBody, startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  const { client } = server;
  await client.addDocuments('ctx', [{ id: 1, title: 'Glass', _geo: { lat: 1, lng: 2 } }, { id: 2, title: 'Dune' }]);
  await client.run('PATCH', '/indexes/ctx/settings', { body: { filterableAttributes: ['title', '_geo'] } });
  await client.addDocuments('plain', [{ id: 1, title: 'Glass' }]);
  await client.run('PATCH', '/indexes/plain/settings', { body: { filterableAttributes: ['title'] } });
});

test.after.always(async () => {
  await server?.close();
});

const NOT_FILTERABLE = 'Attribute `many` is not filterable. Available filterable attribute patterns are: `_geo`, `title`.';

async function errorOf(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await server.client.request(method, path, body === undefined ? {} : { body });
  if (response.status !== 400) throw new Error(`${path}: ${response.status} ${response.text}`);
  return response.body;
}

test('search routes quote the re-serialized filter in a not-filterable error: string and array forms, GET, multi-search, federated', async (t) => {
  const expected = errorBody(`Index \`ctx\`: ${NOT_FILTERABLE}\n2:6 "many" = "Glass"`, 'invalid_search_filter');
  t.deepEqual(await errorOf('POST', '/indexes/ctx/search', { filter: 'many = Glass' }), expected);
  t.deepEqual(await errorOf('POST', '/indexes/ctx/search', { filter: ['many = Glass'] }), expected);
  t.deepEqual(await errorOf('GET', '/indexes/ctx/search?filter=many%20%3D%20Glass'), expected);
  t.deepEqual(await errorOf('POST', '/indexes/ctx/search', { filter: ['title = Glass', ['many = x', 'title = "y\\"z"']] }),
    errorBody(`Index \`ctx\`: ${NOT_FILTERABLE}\n28:32 ("title" = "Glass") AND (("many" = "x") OR ("title" = "y\\"z"))`, 'invalid_search_filter'));
  t.deepEqual(await errorOf('POST', '/indexes/ctx/search', { filter: 'NOT title IN [a, "b c"] AND many   EXISTS' }),
    errorBody(`Index \`ctx\`: ${NOT_FILTERABLE}\n39:43 (NOT ("title" IN ["a", "b c"])) AND ("many" EXISTS)`, 'invalid_search_filter'));
  t.deepEqual(await errorOf('POST', '/multi-search', { queries: [{ indexUid: 'ctx', filter: 'title = a OR many IS NOT NULL' }] }),
    errorBody(`Inside \`.queries[0]\`: Index \`ctx\`: ${NOT_FILTERABLE}\n27:31 ("title" = "a") OR (NOT ("many" IS NULL))`, 'invalid_search_filter'));
  t.deepEqual(await errorOf('POST', '/multi-search', { federation: {}, queries: [{ indexUid: 'ctx', filter: 'many 1 TO 5' }] }),
    errorBody(`Inside \`.queries[0]\`: Index \`ctx\`: ${NOT_FILTERABLE}\n2:6 "many" "1" TO "5"`, 'invalid_search_filter'));
});

test('search routes quote the re-serialized filter in the geo errors found while evaluating', async (t) => {
  t.deepEqual(await errorOf('POST', '/indexes/ctx/search', { filter: 'title = a AND _geoRadius( 100 ,0,10 )' }),
    errorBody('Index `ctx`: Bad latitude `100`. Latitude must be contained between -90 and 90 degrees.\n33:36 ("title" = "a") AND (_geoRadius(100, 0, 10))', 'invalid_search_filter'));
  t.deepEqual(await errorOf('POST', '/indexes/plain/search', { filter: '_geoBoundingBox([1,2],[0,3])' }),
    errorBody('Index `plain`: Attribute `_geo/_geojson` is not filterable. Available filterable attribute patterns are: `title`.\n18:19 _geoBoundingBox([1, 2], [0, 3])', 'invalid_search_filter'));
});

test('errors found while parsing, facet search and the documents routes quote the filter as sent', async (t) => {
  t.deepEqual(await errorOf('POST', '/indexes/ctx/search', { filter: '_geo = Glass' }), errorBody(
    '`_geo` is a reserved keyword and thus can\'t be used as a filter expression. Use the `_geoRadius(latitude, longitude, distance)` or `_geoBoundingBox([latitude, longitude], [latitude, longitude])` built-in rules to filter on `_geo` coordinates.\n1:13 _geo = Glass',
    'invalid_search_filter'));
  t.deepEqual(await errorOf('POST', '/indexes/ctx/facet-search', { facetName: 'title', filter: 'many = Glass' }),
    errorBody(`${NOT_FILTERABLE}\n1:5 many = Glass`, 'invalid_search_filter'));
  t.deepEqual(await errorOf('POST', '/indexes/ctx/documents/fetch', { filter: 'many = Glass' }),
    errorBody(`${NOT_FILTERABLE}\n1:5 many = Glass`, 'invalid_document_filter'));
  t.deepEqual(await errorOf('GET', '/indexes/ctx/documents?filter=many%20%3D%20Glass'),
    errorBody(`${NOT_FILTERABLE}\n1:5 many = Glass`, 'invalid_document_filter'));
});
