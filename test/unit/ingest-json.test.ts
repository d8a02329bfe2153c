import test from 'ava';
import { documentsOfJsonValue, jsonDocuments } from '../../src/ingest/json-payload.js';
import { describeJsonSyntaxError, lineAndColumn } from '../../src/ingest/json-syntax-error.js';
import { ndjsonDocuments } from '../../src/ingest/ndjson-payload.js';
import { truncateDetail } from '../../src/ingest/payload-errors.js';
import { SkeinError } from '../../src/errors/index.js';

const NOT_OBJECTS =
  'The `json` payload provided is malformed. `Couldn\'t serialize document value: data are neither an object nor a list of objects`.';

test('json shape: one object or a list of objects', (t) => {
  t.deepEqual(documentsOfJsonValue({ id: 1 }), [{ id: 1 }]);
  t.deepEqual(documentsOfJsonValue([{ id: 1 }, { id: 2 }]), [{ id: 1 }, { id: 2 }]);
  t.deepEqual(documentsOfJsonValue([]), []);
  t.is(documentsOfJsonValue([{ id: 1 }, 2]), null);
  t.is(documentsOfJsonValue('x'), null);
  t.is(documentsOfJsonValue(3), null);
  t.is(documentsOfJsonValue(null), null);
  t.is(documentsOfJsonValue([[{ id: 1 }]]), null);
});

test('json payloads that are not objects give the exact Meilisearch message', (t) => {
  for (const text of ['"a string"', '42', '[1, 2]', 'null', '[{"id": 1}, "x"]']) {
    const error = t.throws(() => jsonDocuments(text), { instanceOf: SkeinError });
    t.is(error.code, 'malformed_payload');
    t.is(error.message, NOT_OBJECTS);
  }
});

test('json syntax errors use serde wording with line and column', (t) => {
  t.is(describeJsonSyntaxError('[{"id": 1}'), 'EOF while parsing a list at line 1 column 10');
  t.is(describeJsonSyntaxError('[1 2]'), 'expected `,` or `]` at line 1 column 4');
  t.is(describeJsonSyntaxError('{"a":1,}'), 'trailing comma at line 1 column 8');
  t.is(describeJsonSyntaxError('[1,]'), 'trailing comma at line 1 column 4');
  t.is(describeJsonSyntaxError('{"a" 1}'), 'expected `:` at line 1 column 6');
  t.is(describeJsonSyntaxError('{1: 2}'), 'key must be a string at line 1 column 2');
  t.is(describeJsonSyntaxError('[\n  {"a": tru}\n]'), 'expected ident at line 2 column 12');
  t.is(describeJsonSyntaxError('{"a": 1} x'), 'trailing characters at line 1 column 10');
  t.is(describeJsonSyntaxError('x'), 'expected value at line 1 column 1');
  t.is(describeJsonSyntaxError('[{"a": 1}]'), null);
});

test('a malformed json payload wraps the serde message', (t) => {
  const error = t.throws(() => jsonDocuments('[{"id": 1'), { instanceOf: SkeinError });
  t.is(
    error.message,
    "The `json` payload provided is malformed. `Couldn't serialize document value: EOF while parsing an object at line 1 column 9`.",
  );
});

test('long details are cut like Meilisearch: 50 first chars, ..., 85 last', (t) => {
  const detail = 'a'.repeat(60) + 'b'.repeat(100);
  const cut = truncateDetail(detail);
  t.is(cut, 'a'.repeat(50) + '...' + 'a'.repeat(0) + 'b'.repeat(85));
  t.is(truncateDetail('short'), 'short');
});

test('line and column count from 1; at EOF the column is the last line length', (t) => {
  t.deepEqual(lineAndColumn('ab\ncd', 4), { line: 2, column: 2 });
  t.deepEqual(lineAndColumn('ab\ncd', 5), { line: 2, column: 2 });
  t.deepEqual(lineAndColumn('ab\n', 3), { line: 2, column: 0 });
});

test('ndjson: objects separated by any whitespace, even several per line or spanning lines', (t) => {
  const text = '{"id":1}\n\n  {"id":2}{"id":3}\n{\n  "id": 4\n}\r\n';
  t.deepEqual([...ndjsonDocuments(text)], [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
});

test('ndjson: non-object values and syntax errors are malformed_payload', (t) => {
  const notObject = t.throws(() => [...ndjsonDocuments('{"id":1}\n[1]\n')], { instanceOf: SkeinError });
  t.is(notObject.code, 'malformed_payload');
  t.regex(notObject.message, /^The `ndjson` payload provided is malformed\./);
  const syntax = t.throws(() => [...ndjsonDocuments('{"id":1}\n{"id":2\n')], { instanceOf: SkeinError });
  t.is(
    syntax.message,
    "The `ndjson` payload provided is malformed. `Couldn't serialize document value: EOF while parsing an object at line 3 column 0`.",
  );
});
