// Issue 22 (format-geo): facet patterns in `facets`, `_geoPolygon`, Meilisearch's geo distance formula,
// `_geo` validated at indexing, `_formatted` on every displayed attribute and nested paths, and
// `retrieveVectors` without embedders — each as Meilisearch v1.53 answers it.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

const DOCS = [
  {
    id: 1, title: 'hello paris', genre: 'a', price: 10, dogs: [{ name: 'rex', age: 3 }],
    doggos: [{ name: 'bobby', age: 2 }, { name: 'buddy', age: 4 }], _geo: { lat: 48.8566, lng: 2.3522 },
    _vectors: { custom: [0.1, 0.2] },
  },
  { id: 2, title: 'hello new york', genre: 'b', price: 20, dogs: [{ name: 'max', age: 5 }], _geo: { lat: '40.7128', lng: '-74.0060' } },
  { id: 3, title: 'nowhere', _geo: null },
];
const FILTERABLE = ['_geo', 'dogs.name', 'dogs.age', 'doggos', 'genre', 'price', 'id'];

test.before(async () => {
  server = await startTestServer({ shardsPerIndex: 2 });
  await server.client.run('PATCH', '/indexes/geo/settings', { body: { filterableAttributes: FILTERABLE, sortableAttributes: ['_geo'] } });
  await server.client.addDocuments('geo', DOCS);
});
test.after.always(async () => {
  await server?.close();
});

async function search(body: Record<string, unknown>, index = 'geo') {
  const response = await server.client.post(`/indexes/${index}/search`, body);
  if (response.status !== 200) throw new Error(`search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body;
}

test('facets takes patterns resolved against filterableAttributes (search, multi-search, federated), with facetStats', async (t) => {
  const dogs = await search({ facets: ['dogs.*'] });
  t.deepEqual(dogs.facetDistribution, { 'dogs.age': { 3: 1, 5: 1 }, 'dogs.name': { max: 1, rex: 1 } });
  t.deepEqual(dogs.facetStats, { 'dogs.age': { min: 3, max: 5 } });
  const prefixed = await search({ facets: ['do*'] });
  t.deepEqual(Object.keys(prefixed.facetDistribution).filter((name) => name !== 'doggos').sort(), ['doggos.age', 'doggos.name', 'dogs.age', 'dogs.name']);
  t.deepEqual(prefixed.facetStats, { 'doggos.age': { min: 2, max: 4 }, 'dogs.age': { min: 3, max: 5 } });
  const suffixed = await search({ facets: ['*.name'] });
  t.deepEqual(Object.keys(suffixed.facetDistribution).sort(), ['doggos.name', 'dogs.name']);
  const all = await search({ facets: ['*'] });
  for (const name of ['genre', 'price', 'id', 'dogs.name', 'doggos.name']) t.truthy(all.facetDistribution[name], name);

  const bad = await server.client.post('/indexes/geo/search', { facets: ['genre', 'cat*'] });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_search_facets');
  t.is(bad.body.message, 'Invalid facet distribution: Pattern `cat*` is not filterable. Available filterable attributes patterns are: `_geo, doggos, dogs.age, dogs.name, genre, id, price`.');

  const multi = await server.client.post('/multi-search', { queries: [{ indexUid: 'geo', facets: ['dogs.*'] }] });
  t.is(multi.status, 200, multi.text);
  t.deepEqual(multi.body.results[0].facetDistribution, dogs.facetDistribution);
  const federated = await server.client.post('/multi-search', { federation: { facetsByIndex: { geo: ['dogs.*'] } }, queries: [{ indexUid: 'geo' }] });
  t.is(federated.status, 200, federated.text);
  t.deepEqual(federated.body.facetsByIndex.geo.distribution, dogs.facetDistribution);
  t.deepEqual(federated.body.facetsByIndex.geo.stats, dogs.facetStats);
});

test('_geoPolygon filters `_geojson` points, needs `_geojson` filterable, and fails with the parser\'s messages', async (t) => {
  const notFilterable = await server.client.post('/indexes/geo/search', { filter: '_geoPolygon([50,0],[50,5],[45,5],[45,0])' });
  t.is(notFilterable.status, 400);
  t.is(notFilterable.body.code, 'invalid_search_filter');
  t.is(notFilterable.body.message, 'Index `geo`: Attribute `_geojson` is not filterable. Available filterable attribute patterns are: `_geo`, `doggos`, `dogs.age`, `dogs.name`, `genre`, `id`, `price`.\n14:16 _geoPolygon([50, 0], [50, 5], [45, 5], [45, 0])');

  await server.client.run('PATCH', '/indexes/shapes/settings', { body: { filterableAttributes: ['_geojson'] } });
  await server.client.addDocuments('shapes', [
    { id: 'inside', _geojson: { type: 'Point', coordinates: [1, 1] } },
    { id: 'outside', _geojson: { type: 'Point', coordinates: [3, 1] } },
    { id: 'feature', _geojson: { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [0.5, 1.5] } } },
    { id: 'missing' },
  ]);
  const inside = await search({ filter: '_geoPolygon([0,0],[0,2],[2,2],[2,0])' }, 'shapes');
  t.deepEqual(inside.hits.map((hit: { id: string }) => hit.id).sort(), ['feature', 'inside']);
  const negated = await search({ filter: 'NOT _geoPolygon([0,0],[0,2],[2,2],[2,0],)' }, 'shapes');
  t.deepEqual(negated.hits.map((hit: { id: string }) => hit.id).sort(), ['missing', 'outside']);
  // `_geoRadius` and `_geoBoundingBox` reach `_geojson` points too; without `_geo` nor `_geojson` filterable they fail.
  const radius = await search({ filter: '_geoRadius(1, 3, 1000)' }, 'shapes');
  t.deepEqual(radius.hits.map((hit: { id: string }) => hit.id), ['outside']);
  const box = await search({ filter: '_geoBoundingBox([2, 2], [0, 0])' }, 'shapes');
  t.deepEqual(box.hits.map((hit: { id: string }) => hit.id).sort(), ['feature', 'inside']);
  await server.client.addDocuments('plain', [{ id: 1, _geo: { lat: 1, lng: 3 } }]);
  const noGeo = await server.client.post('/indexes/plain/search', { filter: 'NOT _geoRadius(1, 3, 1000)' });
  t.is(noGeo.body.message, 'Index `plain`: Attribute `_geo/_geojson` is not filterable. This index does not have configured filterable attributes.\n17:18 NOT (_geoRadius(1, 3, 1000))');

  const errors: [string, string][] = [
    ['_geoPolygon([1,2],[1,2,3])', 'The `_geoPolygon` filter expects at least 3 points but only 2 were specified\n24:25 _geoPolygon([1,2],[1,2,3])'],
    ['_geoPolygon(1,2,3)', 'The `_geoPolygon` filter doesn\'t match the expected format: `_geoPolygon([latitude, longitude], [latitude, longitude])`.\n13:19 _geoPolygon(1,2,3)'],
    ['_geoPolygon([1,2],[1,2],[1,2,3])', 'Was expecting 2 coordinates but instead found 3.\n26:27 _geoPolygon([1,2],[1,2],[1,2,3])'],
    ['_geoPolygon([1,2)', 'The `_geoPolygon` filter doesn\'t match the expected format: `_geoPolygon([latitude, longitude], [latitude, longitude])`.\n17:18 _geoPolygon([1,2)'],
    ['_geoPolygon([0,0],[0,2],[91,2])', 'Index `shapes`: Bad latitude `91`. Latitude must be contained between -90 and 90 degrees.\n30:32 _geoPolygon([0, 0], [0, 2], [91, 2])'],
    ['_geoPolygon([0,0],[0,2],[1,-181])', 'Index `shapes`: Bad longitude `-181`. Longitude must be contained between -180 and 180 degrees. Hint: try using `179` instead.\n33:37 _geoPolygon([0, 0], [0, 2], [1, -181])'],
    ['title & Glass', 'Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, `IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `CONTAINS`, `NOT CONTAINS`, `STARTS WITH`, `NOT STARTS WITH`, `_geoRadius`, `_geoBoundingBox` or `_geoPolygon` at `title & Glass`.\n1:14 title & Glass'],
    ['_geoRadius(1, 2)', 'Was expecting 3 or 4 arguments for `_geoRadius`, but instead found 2.\n17:17 _geoRadius(1, 2)'],
    ['_geoRadius = 12', 'The `_geoRadius` filter must be in the form: `_geoRadius(latitude, longitude, radius, optionalResolution)`.\n11:16 _geoRadius = 12'],
    ['_geoRadius(1, 2, 3, 2)', 'Index `geo`: Invalid resolution `2`. Resolution must be between 3 and 1000.\n21:22 _geoRadius(1, 2, 3, 2)'],
    ['_geoBoundingBox([1,2,3],[0,0])', 'Was expecting 2 coordinates but instead found 3.\n18:19 _geoBoundingBox([1,2,3],[0,0])'],
  ];
  for (const [filter, message] of errors) {
    // Polygon coordinates are checked once `_geojson` is known filterable (shapes); the rest parse alike anywhere.
    // Coordinates out of range are found as the filter is evaluated: Meilisearch names the index (search-errors-index.test.ts).
    const response = await server.client.post(`/indexes/${filter.startsWith('_geoPolygon') ? 'shapes' : 'geo'}/search`, { filter });
    t.is(response.status, 400, filter);
    t.is(response.body.message, message, filter);
  }
});

/** Meilisearch's distance (milli's distance_between_two_points: geoutils' haversine, R = 6,371,000 m, rounded to the mm). */
function meiliMeters(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const hav = (theta: number) => (1 - Math.cos(theta)) / 2;
  const r = Math.PI / 180;
  const total = hav((lat2 - lat1) * r) + Math.cos(lat1 * r) * Math.cos(lat2 * r) * hav((lng2 - lng1) * r);
  return Math.round(2 * 6371e3 * Math.asin(Math.sqrt(total)) * 1000) / 1000;
}

test('_geoDistance and _geoRadius use Meilisearch\'s distance formula', async (t) => {
  // Paris to a point ~9,700 km away, where the two earth radii differ by ~13 m.
  const [lat, lng] = [-10, 80];
  const exact = meiliMeters(lat, lng, 48.8566, 2.3522);
  t.true(exact > 9_000_000 && exact < 10_500_000, String(exact));
  const sorted = await search({ sort: [`_geoPoint(${lat},${lng}):asc`], filter: 'id = 1', attributesToRetrieve: ['id'] });
  t.deepEqual(sorted.hits, [{ id: 1, _geoDistance: Math.round(exact) }]);
  const within = await search({ filter: `_geoRadius(${lat}, ${lng}, ${Math.ceil(exact) + 1})`, attributesToRetrieve: ['id'] });
  t.deepEqual(within.hits.map((hit: { id: number }) => hit.id), [1]);
  const short = await search({ filter: `_geoRadius(${lat}, ${lng}, ${Math.floor(exact) - 1})`, attributesToRetrieve: ['id'] });
  t.deepEqual(short.hits, []);
});

test('`_geo` is validated at indexing when geo is enabled, failing the task with Meilisearch\'s message', async (t) => {
  await server.client.run('PATCH', '/indexes/geoval/settings', { body: { sortableAttributes: ['_geo'] } });
  const cases: [unknown, string][] = [
    ['foobar', 'The `_geo` field in the document with the id: `"11"` is not an object. Was expecting an object with the `_geo.lat` and `_geo.lng` fields but instead got `"foobar"`.'],
    [[1, 2], 'The `_geo` field in the document with the id: `"11"` is not an object. Was expecting an object with the `_geo.lat` and `_geo.lng` fields but instead got `[1,2]`.'],
    [{}, 'Could not find latitude nor longitude in the document with the id: `"11"`. Was expecting `_geo.lat` and `_geo.lng` fields.'],
    [{ lat: 1 }, 'Could not find longitude in the document with the id: `"11"`. Was expecting a `_geo.lng` field.'],
    [{ lng: 1 }, 'Could not find latitude in the document with the id: `"11"`. Was expecting a `_geo.lat` field.'],
    [{ lat: 'doggo', lng: 1 }, 'Could not parse latitude in the document with the id: `"11"`. Was expecting a finite number but instead got `"doggo"`.'],
    [{ lat: 1, lng: null }, 'Could not parse longitude in the document with the id: `"11"`. Was expecting a finite number but instead got `null`.'],
    [{ lat: false, lng: true }, 'Could not parse latitude nor longitude in the document with the id: `"11"`. Was expecting finite numbers but instead got `false` and `true`.'],
    [{ lat: 1, lng: 2, doggo: 'are the best' }, 'The `_geo` field in the document with the id: `"11"` contains the following unexpected fields: `{"doggo":"are the best"}`.'],
    [{ lat: ' 1', lng: 2 }, 'Could not parse latitude in the document with the id: `"11"`. Was expecting a finite number but instead got `" 1"`.'],
  ];
  for (const [geo, message] of cases) {
    const uid = await server.client.enqueue('POST', '/indexes/geoval/documents', { body: [{ id: 10, _geo: { lat: 0, lng: 0 } }, { id: '11', _geo: geo }] });
    const task = await server.client.waitForTask(uid);
    t.is(task.status, 'failed', JSON.stringify(geo));
    t.deepEqual(task.error, {
      message: `Index \`geoval\`: ${message}`, code: 'invalid_document_geo_field', type: 'invalid_request',
      link: 'https://docs.meilisearch.com/errors#invalid_document_geo_field',
    }, JSON.stringify(geo));
  }
  // Numbers, numeric strings and null are accepted; nothing of a failed task was kept.
  await server.client.addDocuments('geoval', [{ id: 1, _geo: { lat: '1.5', lng: -2 } }, { id: 2, _geo: null }, { id: 3, _geo: { lng: '1e1', lat: 0 } }]);
  const stats = await server.client.get('/indexes/geoval/stats');
  t.is(stats.body.numberOfDocuments, 3);
  // A partial update is validated merged.
  const update = await server.client.waitForTask(await server.client.enqueue('PUT', '/indexes/geoval/documents', { body: [{ id: 1, _geo: 'nope' }] }));
  t.is(update.status, 'failed');
  t.is(update.error.code, 'invalid_document_geo_field');
  // Without `_geo` filterable or sortable, Meilisearch does not look at `_geo`.
  await server.client.addDocuments('nogeo', [{ id: 1, _geo: 'foobar' }]);
  // Enabling geo afterwards reads the stored documents: the settings task fails as Meilisearch's.
  const enable = await server.client.waitForTask(await server.client.enqueue('PATCH', '/indexes/nogeo/settings', { body: { sortableAttributes: ['_geo'] } }));
  t.is(enable.status, 'failed');
  t.is(enable.error?.message, 'Index `nogeo`: The `_geo` field in the document with the id: `"1"` is not an object. Was expecting an object with the `_geo.lat` and `_geo.lng` fields but instead got `"foobar"`.');
  const settings = await server.client.get('/indexes/nogeo/settings');
  t.deepEqual(settings.body.sortableAttributes, []);
});

test('_formatted covers every displayed attribute for "*", and nested paths keep their nesting', async (t) => {
  const highlighted = await search({ q: 'hello', filter: 'id = 1', attributesToRetrieve: ['id'], attributesToHighlight: ['*'] });
  const { _vectors: _ignored, ...formatted } = highlighted.hits[0]._formatted;
  t.deepEqual({ ...highlighted.hits[0], _formatted: formatted }, {
    id: 1,
    _formatted: {
      id: '1', title: '<em>hello</em> paris', genre: 'a', price: '10', dogs: [{ name: 'rex', age: '3' }],
      doggos: [{ name: 'bobby', age: '2' }, { name: 'buddy', age: '4' }], _geo: { lat: '48.8566', lng: '2.3522' },
    },
  });
  const cropped = await search({ q: 'hello', filter: 'id = 2', attributesToRetrieve: ['id'], attributesToCrop: ['*:1'] });
  t.is(cropped.hits[0]._formatted.title, 'hello…');
  t.is(cropped.hits[0]._formatted.genre, 'b');

  const nested = await search({ q: 'bobby', attributesToRetrieve: ['doggos.name'] });
  t.deepEqual(nested.hits, [{ doggos: [{ name: 'bobby' }, { name: 'buddy' }] }]);
  const nestedHighlight = await search({ q: 'bobby', attributesToRetrieve: ['id'], attributesToHighlight: ['doggos.name'] });
  t.deepEqual(nestedHighlight.hits, [{ id: 1, _formatted: { id: '1', doggos: [{ name: '<em>bobby</em>' }, { name: 'buddy' }] } }]);
  const nestedCrop = await search({ q: 'bobby', attributesToRetrieve: ['doggos.name'], attributesToCrop: ['doggos.name'], attributesToHighlight: ['doggos'] });
  t.deepEqual(nestedCrop.hits[0]._formatted, { doggos: [{ name: '<em>bobby</em>', age: '2' }, { name: 'buddy', age: '4' }] });
});

test('retrieveVectors: `_vectors` hidden unless true, on search and documents routes', async (t) => {
  const plain = await search({ filter: 'id = 1' });
  t.false('_vectors' in plain.hits[0]);
  const asked = await search({ filter: 'id = 1', attributesToRetrieve: ['id', '_vectors'] });
  t.deepEqual(asked.hits, [{ id: 1 }]);
  const retrieved = await search({ sort: ['_geoPoint(0,0):asc'], attributesToRetrieve: ['id'], retrieveVectors: true });
  t.deepEqual(retrieved.hits.map((hit: Record<string, unknown>) => hit['_vectors']), [{ custom: [0.1, 0.2] }, {}, {}]);
  const get = await server.client.get('/indexes/geo/search?filter=id%20%3D%201&retrieveVectors=true&attributesToRetrieve=title');
  t.deepEqual(get.body.hits, [{ title: 'hello paris', _vectors: { custom: [0.1, 0.2] } }]);

  const browse = await server.client.get('/indexes/geo/documents?fields=id,_vectors');
  t.deepEqual(browse.body.results.map((doc: Record<string, unknown>) => Object.keys(doc)), [['id'], ['id'], ['id']]);
  const browseVectors = await server.client.get('/indexes/geo/documents?fields=id&retrieveVectors=true');
  t.deepEqual(browseVectors.body.results.find((doc: { id: number }) => doc.id === 1), { id: 1, _vectors: {} });
  const fetched = await server.client.post('/indexes/geo/documents/fetch', { retrieveVectors: true, ids: ['1'] });
  t.deepEqual(fetched.body.results[0]._vectors, { custom: [0.1, 0.2] });
  const one = await server.client.get('/indexes/geo/documents/1');
  t.false('_vectors' in one.body);
  const oneVectors = await server.client.get('/indexes/geo/documents/2?retrieveVectors=true');
  t.deepEqual(oneVectors.body._vectors, {});
});
