// The `sort` parameter: criteria parsing and the checks against sortable attributes and ranking rules.
import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import { checkSortParameter, parseSortCriterion } from '../../src/filter/sort-criteria.js';

test('criteria: field with direction, geo point with direction', (t) => {
  t.deepEqual(parseSortCriterion('price:asc'), { field: 'price', point: null, direction: 'asc' });
  t.deepEqual(parseSortCriterion('author.name:desc'), { field: 'author.name', point: null, direction: 'desc' });
  t.deepEqual(parseSortCriterion('a:b:asc'), { field: 'a:b', point: null, direction: 'asc' });
  t.deepEqual(parseSortCriterion('_geoPoint(48.8, -2.3):desc'), { field: null, point: { lat: 48.8, lng: -2.3 }, direction: 'desc' });
});

const ERRORS: [string, string][] = [
  ['price', 'Invalid syntax for the sort parameter: expected expression ending by `:asc` or `:desc`, found `price`.'],
  ['price:up', 'Invalid syntax for the sort parameter: expected expression ending by `:asc` or `:desc`, found `price:up`.'],
  ['_geoPoint(1, 2)', 'Invalid syntax for the geo parameter: expected expression formated like `_geoPoint(latitude, longitude)` and ending by `:asc` or `:desc`, found `_geoPoint(1, 2)`.'],
  ['_geoPoint(1):asc', 'Invalid syntax for the geo parameter: expected expression formated like `_geoPoint(latitude, longitude)` and ending by `:asc` or `:desc`, found `_geoPoint(1):asc`.'],
  ['_geoPoint(91, 2):asc', 'Bad latitude `91`. Latitude must be contained between -90 and 90 degrees.'],
  ['_geoDistance:asc', '`_geoDistance` is a reserved keyword and thus can\'t be used as a sort expression. Use the _geoPoint(latitude, longitude) built-in rule to sort on _geo field coordinates.'],
  ['_geo:desc', '`_geo` is a reserved keyword and thus can\'t be used as a sort expression. Use the _geoPoint(latitude, longitude) built-in rule to sort on _geo field coordinates.'],
];

for (const [criterion, message] of ERRORS) {
  test(`rejects ${criterion}`, (t) => {
    const error = t.throws(() => parseSortCriterion(criterion), { instanceOf: SkeinError }) as SkeinError;
    t.is(error.code, 'invalid_search_sort');
    t.is(error.message, message);
  });
}

test('attributes must be sortable and the sort rule present', (t) => {
  const rules = ['words', 'sort'];
  t.notThrows(() => checkSortParameter(['price:asc', 'author.name:desc'], ['price', 'author'], rules));
  t.is((t.throws(() => checkSortParameter(['title:asc'], ['price', 'year'], rules)) as SkeinError).message,
    'Attribute `title` is not sortable. Available sortable attributes are: `price`, `year`.');
  t.is((t.throws(() => checkSortParameter(['title:asc'], [], rules)) as SkeinError).message,
    'Attribute `title` is not sortable. This index does not have configured sortable attributes.');
  t.is((t.throws(() => checkSortParameter(['_geoPoint(1, 2):asc'], ['price'], rules)) as SkeinError).message,
    'Attribute `_geo` is not sortable. Available sortable attributes are: `price`.');
  t.is((t.throws(() => checkSortParameter(['price:asc'], ['price'], ['words'])) as SkeinError).message,
    'You must specify where `sort` is listed in the rankingRules setting to use the sort parameter at search time.');
  t.notThrows(() => checkSortParameter([], [], ['words']));
});
