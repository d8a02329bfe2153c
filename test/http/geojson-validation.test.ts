// Issue 22: `_geojson` checked at indexing as Meilisearch v1.53 does. With `_geojson` a plain entry of
// filterableAttributes, milli's GeoJsonExtractor parses each written document's value with the
// geojson crate (0.24) and converts it to a geo_types geometry; a refusal is a UserError::GeoJsonError:
// the task fails with `invalid_document_geo_field`, the crate's message after "Index `uid`: ".
import test from 'ava';
import { withTestServer } from './harness.js';

const LINK = 'https://docs.meilisearch.com/errors#invalid_document_geo_field';

// Nested GeometryCollections (each one object and one array deep), a bad leaf at the bottom.
function nestedCollection(levels: number, leaf: unknown): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { type: 'GeometryCollection', geometries: [value] };
  return value;
}

const CASES: [unknown, string][] = [
  [null, 'Expected an owned Object, but got `null`'],
  ['Point', 'Expected an owned Object, but got `"Point"`'],
  [[1, 2], 'Expected an owned Object, but got `[1,2]`'],
  [{ coordinates: [1, 2] }, 'Encountered an unknown \'geometry\' object type: `type`'],
  [{ type: 7 }, 'Encountered an unknown \'geometry\' object type: `type`'],
  [{ type: 'Circle', coordinates: [1, 2] }, 'Expected a Feature, FeatureCollection, or Geometry, but got an empty type'],
  [{ type: 'Point' }, 'Expected a GeoJSON property for `coordinates`, but got None'],
  [{ type: 'Point', coordinates: [1] }, 'A position must contain two or more elements, but got `1`'],
  [{ type: 'Point', coordinates: ['1', '2'] }, 'Expected a floating-point value, but got None'],
  [{ type: 'Point', coordinates: { lat: 1, lng: 2 } }, 'Expected an Array value, but got `None`'],
  [{ type: 'Polygon', coordinates: [[1, 2]] }, 'Expected an Array value, but got `None`'],
  [{ type: 'MultiPolygon', coordinates: [[[[0, 0], [1, null]]]] }, 'Expected a floating-point value, but got None'],
  [{ type: 'Point', coordinates: [1, 2], bbox: 'x' }, 'Encountered non-array value for a \'bbox\' object: `"x"`'],
  [{ type: 'Point', coordinates: [1, 2], bbox: [0, 'a'] }, 'Encountered non-numeric value within \'bbox\' array'],
  [{ type: 'Feature', properties: {} }, 'Expected a GeoJSON property for `geometry`, but got None'],
  [{ type: 'Feature', geometry: 'here' }, 'Encountered neither object type nor null type for \'geometry\' field on \'feature\' object: `"here"`'],
  [{ type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] }, properties: 5 }, 'Encountered neither object type nor null type for \'properties\' object: `5`'],
  [{ type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] }, id: null }, 'Encountered neither number type nor string type for \'id\' field on \'feature\' object: `null`'],
  [{ type: 'Feature', geometry: null, properties: { name: 'x' }, id: 3 }, 'Attempted to a convert a feature without a geometry into a geo_types::Geometry: `{"type":"Feature","geometry":null,"properties":{"name":"x"},"id":3}`'],
  [{ type: 'Feature', geometry: { type: 'Feature' } }, 'Encountered an unknown \'geometry\' object type: `Feature`'],
  [{ type: 'FeatureCollection' }, 'Expected a GeoJSON property for `features`, but got None'],
  [{ type: 'FeatureCollection', features: {} }, 'Expected an Array value, but got `Object`'],
  [{ type: 'FeatureCollection', features: [5] }, 'Expected an owned Object, but got `5`'],
  [{ type: 'FeatureCollection', features: [{ geometry: null }] }, 'Expected a GeoJSON property for `type`, but got None'],
  [{ type: 'FeatureCollection', features: [{ type: 'Point', coordinates: [1, 2] }] }, 'Expected a Feature mapping, but got a `Point`'],
  [{ type: 'GeometryCollection', geometries: null }, 'Expected an Array value, but got `Null`'],
  [{ type: 'GeometryCollection', geometries: [{ type: ['Point'] }] }, 'Expected a String value, but got a `["Point"]`'],
  // Deep nesting: the payload's own bound (127) leaves room for 60 collections; the leaf is still found.
  [nestedCollection(60, { type: 'LineString', coordinates: [[0, 0], [1, 'x']] }), 'Expected a floating-point value, but got None'],
];

test('an invalid _geojson fails the task with the geojson crate\'s message, once _geojson is filterable; valid shapes pass', async (t) => {
  await withTestServer({}, async ({ client }) => {
    await client.run('PATCH', '/indexes/shapes/settings', { body: { filterableAttributes: ['_geojson'] } });
    for (const [value, message] of CASES) {
      const uid = await client.enqueue('POST', '/indexes/shapes/documents', { body: [{ id: 1, _geojson: { type: 'Point', coordinates: [0, 0] } }, { id: 2, _geojson: value }] });
      const task = await client.waitForTask(uid);
      t.is(task.status, 'failed', JSON.stringify(value).slice(0, 200));
      t.deepEqual(task.error, { message: `Index \`shapes\`: ${message}`, code: 'invalid_document_geo_field', type: 'invalid_request', link: LINK }, JSON.stringify(value).slice(0, 200));
    }
    t.is((await client.get('/indexes/shapes/stats')).body.numberOfDocuments, 0, 'nothing of a failed task is kept');

    // Accepted as the crate accepts them: an unclosed ring (geo_types closes it), 3-D positions, a
    // feature without geometry inside a collection, an empty collection, a feature id as a string.
    const valid = [
      { id: 'unclosed', _geojson: { type: 'Polygon', coordinates: [[[0, 0], [2, 0], [2, 2], [0, 2]]] } },
      { id: 'threeD', _geojson: { type: 'Point', coordinates: [1, 1, 30], bbox: [1, 1, 1, 1] } },
      { id: 'sparse', _geojson: { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: null }, { type: 'Feature', id: 'a', properties: null, geometry: { type: 'Point', coordinates: [5, 5] } }] } },
      { id: 'empty', _geojson: { type: 'GeometryCollection', geometries: [] } },
      { id: 'deep', _geojson: nestedCollection(60, { type: 'Point', coordinates: [1.5, 1.5] }) },
    ];
    await client.addDocuments('shapes', valid);
    const hits = await client.post('/indexes/shapes/search', { filter: '_geoPolygon([-1,-1],[-1,3],[3,3],[3,-1])', attributesToRetrieve: ['id'] });
    t.is(hits.status, 200);
    t.deepEqual(hits.body.hits.map((hit: { id: string }) => hit.id).sort(), ['deep', 'threeD', 'unclosed']);

    // A partial update is checked merged: another field passes, a bad `_geojson` fails.
    await client.run('PUT', '/indexes/shapes/documents', { body: [{ id: 'unclosed', name: 'ring' }] });
    const update = await client.waitForTask(await client.enqueue('PUT', '/indexes/shapes/documents', { body: [{ id: 'unclosed', _geojson: { type: 'Polygon' } }] }));
    t.is(update.error?.message, 'Index `shapes`: Expected a GeoJSON property for `coordinates`, but got None');
  });
});

test('_geojson is not looked at until it is filterable; enabling it reads the stored documents; a huge array costs one walk', async (t) => {
  await withTestServer({}, async ({ client }) => {
    // Not a plain filterableAttributes entry (nor sortable, nor a pattern): Meilisearch's extractor does not run.
    await client.run('PATCH', '/indexes/loose/settings', { body: { filterableAttributes: [{ attributePatterns: ['_geojson'] }], sortableAttributes: ['_geo'] } });
    await client.addDocuments('loose', [{ id: 1, _geojson: 'anything' }]);
    const enable = await client.waitForTask(await client.enqueue('PATCH', '/indexes/loose/settings', { body: { filterableAttributes: ['_geojson'] } }));
    t.is(enable.status, 'failed');
    t.deepEqual(enable.error, { message: 'Index `loose`: Expected an owned Object, but got `"anything"`', code: 'invalid_document_geo_field', type: 'invalid_request', link: LINK });
    t.deepEqual((await client.get('/indexes/loose/settings/filterable-attributes')).body[0].attributePatterns, ['_geojson'], 'the failed settings task changed nothing');

    // 200,000 positions, the bad one last: found, and the task ends in bounded time.
    await client.run('PATCH', '/indexes/big/settings', { body: { filterableAttributes: ['_geojson'] } });
    const coordinates: unknown[] = [];
    for (let i = 0; i < 200_000; i++) coordinates.push([(i % 360) - 180, (i % 170) - 85]);
    coordinates.push([0, true]);
    const started = Date.now();
    const big = await client.waitForTask(await client.enqueue('POST', '/indexes/big/documents', { body: [{ id: 1, _geojson: { type: 'MultiPoint', coordinates } }] }), 60_000);
    t.is(big.error?.message, 'Index `big`: Expected a floating-point value, but got None');
    t.true(Date.now() - started < 30_000);
  });
});
