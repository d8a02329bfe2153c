// The filter parser: every operator, precedence, quoting, the array form, every error message, and a
// seeded fuzz loop that must never crash (only SkeinErrors with the filter code).
import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import {
  checkFilterAgainstSettings, parseFilterParameter, parseFilterString, type FilterNode,
} from '../../src/filter/index.js';

/** A compact rendering of the tree, to compare shapes. */
function show(node: FilterNode | null): string {
  if (node === null) return 'null';
  switch (node.kind) {
    case 'and': return `(${node.children.map(show).join(' & ')})`;
    case 'or': return `(${node.children.map(show).join(' | ')})`;
    case 'not': return `!${show(node.child)}`;
    case 'compare': return `${node.field.text}${node.operator}${node.value.text}`;
    case 'range': return `${node.field.text}[${node.from.text}..${node.to.text}]`;
    case 'in': return `${node.field.text} in{${node.values.map((value) => value.text).join(',')}}`;
    case 'exists': return `${node.field.text}?`;
    case 'isNull': return `${node.field.text}=null`;
    case 'isEmpty': return `${node.field.text}=empty`;
    case 'contains': return `${node.field.text}~${node.value.text}`;
    case 'startsWith': return `${node.field.text}^${node.value.text}`;
    case 'geoRadius': return `radius(${node.lat},${node.lng},${node.meters})`;
    case 'geoBoundingBox': return `box(${node.top},${node.right},${node.bottom},${node.left})`;
    case 'geoPolygon': return `polygon(${node.points.map((point) => point.join(' ')).join(',')})`;
    case 'constant': return String(node.matches);
    case 'foreign': return `foreign(${node.field.text}, ${show(node.filter)})`;
  }
}

const SHAPES: [unknown, string][] = [
  ['a = 1', 'a=1'],
  ['a != 1', 'a!=1'],
  ['a > 1', 'a>1'],
  ['a >= 1', 'a>=1'],
  ['a < 1', 'a<1'],
  ['a <= -1.5', 'a<=-1.5'],
  ['a=1', 'a=1'],
  ['a 1 TO 10', 'a[1..10]'],
  ['a IN [x, "y z", 3,]', 'a in{x,y z,3}'],
  ['a IN []', 'a in{}'],
  ['a NOT IN [x]', '!a in{x}'],
  ['a EXISTS', 'a?'],
  ['a NOT EXISTS', '!a?'],
  ['a IS NULL', 'a=null'],
  ['a IS NOT NULL', '!a=null'],
  ['a IS EMPTY', 'a=empty'],
  ['a IS NOT EMPTY', '!a=empty'],
  ['a CONTAINS x', 'a~x'],
  ['a NOT CONTAINS x', '!a~x'],
  ['a STARTS WITH x', 'a^x'],
  ['a NOT STARTS WITH x', '!a^x'],
  ['_geoRadius(45.5, -3, 1000)', 'radius(45.5,-3,1000)'],
  ['_geoBoundingBox([45, 3], [44, 2])', 'box(45,3,44,2)'],
  ['_geoPolygon([1, 2], [3,4],[ 5 , 6 ] , )', 'polygon(1 2,3 4,5 6)'],
  ['NOT _geoPolygon([1,2],[3,4],[.5,6.])', '!polygon(1 2,3 4,0.5 6)'],
  ['a = 1 AND b = 2 OR c = 3', '((a=1 & b=2) | c=3)'],
  ['a = 1 OR b = 2 AND c = 3', '(a=1 | (b=2 & c=3))'],
  ['NOT a = 1 AND b = 2', '(!a=1 & b=2)'],
  ['NOT (a = 1 AND b = 2)', '!(a=1 & b=2)'],
  ['NOT NOT a = 1', 'a=1'],
  ['(a = 1 OR b = 2) AND c = 3', '((a=1 | b=2) & c=3)'],
  ['((a = 1))', 'a=1'],
  ['"my field" = \'it\\\'s\'', "my field=it's"],
  ['a = "say \\"hi\\""', 'a=say "hi"'],
  ['a = "back\\slash"', 'a=back\\slash'],
  ['a = "AND"', 'a=AND'],
  ['a.b-c_d = é1', 'a.b-c_d=é1'],
  ['   ', 'null'],
  ['', 'null'],
  [['a = 1', ['b = 2', 'c = 3']], '(a=1 & (b=2 | c=3))'],
  [['a = 1', '', ['b = 2']], '(a=1 & b=2)'],
  [[], 'null'],
];

for (const [input, expected] of SHAPES) {
  test(`parses ${JSON.stringify(input)}`, (t) => {
    t.is(show(parseFilterParameter(input)), expected);
  });
}

const OPERATIONS = 'Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, '
  + '`IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `CONTAINS`, `NOT CONTAINS`, `STARTS WITH`, `NOT STARTS WITH`, '
  + '`_geoRadius`, `_geoBoundingBox` or `_geoPolygon`';

const ERRORS: [unknown, string][] = [
  ['title & Glass', `${OPERATIONS} at \`title & Glass\`.\n1:14 title & Glass`],
  ['a', `${OPERATIONS} at \`a\`.\n1:2 a`],
  ['a =', 'Was expecting a value but instead got nothing.\n4:4 a ='],
  ['a = )', 'Was expecting a value but instead got `)`.\n5:6 a = )'],
  ['a = OR', 'Was expecting a value but instead got `OR`, which is a reserved keyword. To use `OR` as a field name or a value, surround it by quotes.\n5:7 a = OR'],
  ['(a = 1', 'Expression `(a = 1` is missing the following closing delimiter: `)`.\n1:7 (a = 1'],
  ['a = "x', 'Expression `"x` is missing the following closing delimiter: `"`.\n5:7 a = "x'],
  ['a = 1 b = 2', 'Found unexpected characters at the end of the filter: `b = 2`. You probably forgot an `OR` or an `AND` rule.\n7:12 a = 1 b = 2'],
  ['a IN x', 'Expected `[` after `IN` keyword.\n5:7 a IN x'],
  ['a IN [x', 'Expected matching `]` after the list of field names given to `IN[`\n5:8 a IN [x'],
  ['_geo = 1', '`_geo` is a reserved keyword and thus can\'t be used as a filter expression. Use the `_geoRadius(latitude, longitude, distance)` or `_geoBoundingBox([latitude, longitude], [latitude, longitude])` built-in rules to filter on `_geo` coordinates.\n1:9 _geo = 1'],
  ['_geoRadius(1, 2)', 'Was expecting 3 or 4 arguments for `_geoRadius`, but instead found 2.\n17:17 _geoRadius(1, 2)'],
  ['_geoRadius(a, 2, 3)', 'The `_geoRadius` filter must be in the form: `_geoRadius(latitude, longitude, radius, optionalResolution)`.\n12:20 _geoRadius(a, 2, 3)'],
  ['_geoRadius(1,2,)', 'The `_geoRadius` filter must be in the form: `_geoRadius(latitude, longitude, radius, optionalResolution)`.\n15:17 _geoRadius(1,2,)'],
  ['_geoRadius(1,2,3e)', 'The `_geoRadius` filter must be in the form: `_geoRadius(latitude, longitude, radius, optionalResolution)`.\n18:19 _geoRadius(1,2,3e)'],
  ['_geoBoundingBox([1, 2])', 'The `_geoBoundingBox` filter expects two pairs of arguments: `_geoBoundingBox([latitude, longitude], [latitude, longitude])`.\n24:24 _geoBoundingBox([1, 2])'],
  ['_geoBoundingBox(1.0, 1.0)', 'The `_geoBoundingBox` filter expects two pairs of arguments: `_geoBoundingBox([latitude, longitude], [latitude, longitude])`.\n17:26 _geoBoundingBox(1.0, 1.0)'],
  ['_geoPolygon([1,2,3])', 'The `_geoPolygon` filter expects at least 3 points but only 1 were specified\n18:19 _geoPolygon([1,2,3])'],
  ['_geoPolygon(1)', 'The `_geoPolygon` filter doesn\'t match the expected format: `_geoPolygon([latitude, longitude], [latitude, longitude])`.\n13:15 _geoPolygon(1)'],
  ['a = _geoRadius(1, 2, 3)', 'The `_geoRadius` filter is an operation and can\'t be used as a value.\n5:24 a = _geoRadius(1, 2, 3)'],
  ['a = _geoBoundingBox', 'The `_geoBoundingBox` filter is an operation and can\'t be used as a value.\n5:20 a = _geoBoundingBox'],
  ['a = "é\nb', 'Expression `"é\\nb` is missing the following closing delimiter: `"`.\n5:9 a = "é\nb'],
  [`${'('.repeat(200)}a = 1${')'.repeat(200)}`, 'The filter exceeded the maximum depth limit.'],
  [[1], 'Invalid syntax for the filter parameter: `expected String, [String], found: 1`.'],
  [[['a = 1', true]], 'Invalid syntax for the filter parameter: `expected String, found: true`.'],
  [{ a: 1 }, 'Invalid syntax for the filter parameter: `expected String, Array, found: {"a":1}`.'],
];

for (const [input, message] of ERRORS) {
  test(`rejects ${JSON.stringify(input).slice(0, 60)}`, (t) => {
    const error = t.throws(() => parseFilterParameter(input), { instanceOf: SkeinError })!;
    t.is((error as SkeinError).code, 'invalid_search_filter');
    t.true(error.message.startsWith(message), error.message);
  });
}

test('geo coordinates and resolution are checked once the attribute is filterable, pointing at the number', (t) => {
  const cases: [string, string][] = [
    ['_geoRadius(91, 2, 3)', 'Bad latitude `91`. Latitude must be contained between -90 and 90 degrees.\n12:14 _geoRadius(91, 2, 3)'],
    ['_geoRadius(1, 181, 3)', 'Bad longitude `181`. Longitude must be contained between -180 and 180 degrees. Hint: try using `-179` instead.\n15:18 _geoRadius(1, 181, 3)'],
    ['_geoRadius(1, 2, 3, 1001)', 'Invalid resolution `1001`. Resolution must be between 3 and 1000.\n21:25 _geoRadius(1, 2, 3, 1001)'],
    ['_geoBoundingBox([1, 2], [3, 4])', 'The top latitude `1` is below the bottom latitude `3`.\n29:30 _geoBoundingBox([1, 2], [3, 4])'],
    ['_geoPolygon([0,0],[0,2],[-90.5,2])', 'Bad latitude `-90.5`. Latitude must be contained between -90 and 90 degrees.\n26:31 _geoPolygon([0,0],[0,2],[-90.5,2])'],
  ];
  for (const [filter, message] of cases) {
    const node = parseFilterParameter(filter)!;
    const error = t.throws(() => checkFilterAgainstSettings(node, ['_geo', '_geojson'])) as SkeinError;
    t.is(error.message, message, filter);
  }
  t.notThrows(() => checkFilterAgainstSettings(parseFilterParameter('_geoRadius(1, 2, 3, 1000.9)')!, ['_geo']));
  const polygon = t.throws(() => checkFilterAgainstSettings(parseFilterParameter('_geoPolygon([0,0],[0,2],[2,2])')!, ['_geo'])) as SkeinError;
  t.is(polygon.message, 'Attribute `_geojson` is not filterable. Available filterable attribute patterns are: `_geo`.\n14:15 _geoPolygon([0,0],[0,2],[2,2])');
});

test('the caller chooses the error code', (t) => {
  const error = t.throws(() => parseFilterParameter('a =', 'invalid_document_filter')) as SkeinError;
  t.is(error.code, 'invalid_document_filter');
});

test('attributes must be filterable; the message lists the patterns and points at the attribute', (t) => {
  const node = parseFilterParameter('genre = a AND title = b')!;
  const error = t.throws(() => checkFilterAgainstSettings(node, ['genre', 'year'])) as SkeinError;
  t.is(error.message, 'Attribute `title` is not filterable. Available filterable attribute patterns are: `genre`, `year`.\n15:20 genre = a AND title = b');
  const none = t.throws(() => checkFilterAgainstSettings(parseFilterParameter('a = 1')!, [])) as SkeinError;
  t.is(none.message, 'Attribute `a` is not filterable. This index does not have configured filterable attributes.\n1:2 a = 1');
  t.notThrows(() => checkFilterAgainstSettings(parseFilterParameter('author.name = x AND color_id = 1')!, ['author', '*_id']));
  const geo = t.throws(() => checkFilterAgainstSettings(parseFilterParameter('_geoRadius(1, 2, 3)')!, ['a'])) as SkeinError;
  t.is(geo.message, 'Attribute `_geo/_geojson` is not filterable. Available filterable attribute patterns are: `a`.\n12:13 _geoRadius(1, 2, 3)');
});

test('more than 2000 conditions are refused', (t) => {
  const node = parseFilterParameter(Array.from({ length: 2001 }, (_, k) => `a = ${k}`).join(' OR '))!;
  const error = t.throws(() => checkFilterAgainstSettings(node, ['a'])) as SkeinError;
  t.is(error.message, "Too many filter conditions, can't process more than 2000 filters.");
});

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = ['a', 'b.c', '"q w"', "'x\\'y'", '1', '-2.5', '=', '!=', '>', '>=', '<', '<=', 'TO', 'IN', '[', ']', ',', 'NOT', 'AND',
  'OR', 'EXISTS', 'IS', 'NULL', 'EMPTY', '(', ')', '_geoRadius(1, 2, 3)', '_geoBoundingBox([2, 2], [1, 1])', '_geoRadius(', '_geo',
  'CONTAINS', 'STARTS', 'WITH', '"', "'", '\\', '&', 'é', '😀', '\n', ' ', ''];

test('seeded fuzz: random expressions never crash the parser', (t) => {
  const random = seededRandom(7);
  let parsed = 0;
  let rejected = 0;
  for (let round = 0; round < 20_000; round++) {
    const length = 1 + Math.floor(random() * 12);
    let text = '';
    for (let k = 0; k < length; k++) {
      text += random() < 0.1 ? String.fromCharCode(Math.floor(random() * 0x3000)) : PIECES[Math.floor(random() * PIECES.length)]!;
      text += random() < 0.7 ? ' ' : '';
    }
    try {
      parseFilterString(text);
      parsed++;
    } catch (cause) {
      // parseFilterString throws FilterSyntaxError; parseFilterParameter turns it into a SkeinError.
      const error = t.throws(() => parseFilterParameter(text), { instanceOf: SkeinError }, text) as SkeinError;
      if (error.code !== 'invalid_search_filter') t.fail(text);
      rejected++;
      void cause;
    }
  }
  t.true(parsed > 100 && rejected > 100, `${parsed} parsed, ${rejected} rejected`);
});
