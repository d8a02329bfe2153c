import test from 'ava';
import { JsonNumberText } from '../../src/documents/exact-json.js';
import { parseCsvHeader, parseRustNumber, typeCsvCell } from '../../src/ingest/csv-typing.js';
import { csvDocuments } from '../../src/ingest/csv-payload.js';
import { SkeinError } from '../../src/errors/index.js';

async function collect(text: string, delimiter: string | null = null) {
  const documents = [];
  for await (const document of csvDocuments(Buffer.from(text), delimiter)) documents.push(document);
  return documents;
}

test('headers split on the last colon and unknown suffixes keep the whole name', (t) => {
  t.deepEqual(parseCsvHeader('title'), { name: 'title', type: 'string' });
  t.deepEqual(parseCsvHeader('price:number'), { name: 'price', type: 'number' });
  t.deepEqual(parseCsvHeader('ok:boolean'), { name: 'ok', type: 'boolean' });
  t.deepEqual(parseCsvHeader('name:string'), { name: 'name', type: 'string' });
  t.deepEqual(parseCsvHeader('a:b:number'), { name: 'a:b', type: 'number' });
  t.deepEqual(parseCsvHeader('a:b'), { name: 'a:b', type: 'string' });
  t.deepEqual(parseCsvHeader('a:Number'), { name: 'a:Number', type: 'string' });
});

test('string cells are raw and only an empty cell is null', (t) => {
  t.is(typeCsvCell('', 'string', 1), null);
  t.is(typeCsvCell(' ', 'string', 1), ' ');
  t.is(typeCsvCell(' x ', 'string', 1), ' x ');
});

test('number cells: trimmed, integer or float, empty is null', (t) => {
  t.is(typeCsvCell(' 42 ', 'number', 1), 42);
  t.is(typeCsvCell('-3.5', 'number', 1), -3.5);
  // serde_json writes the f64 1000 as 1000.0, and keeps an i64 beyond 2^53 exact.
  t.deepEqual(typeCsvCell('1e3', 'number', 1), new JsonNumberText('1000.0'));
  t.deepEqual(typeCsvCell('9007199254740993', 'number', 1), new JsonNumberText('9007199254740993'));
  t.deepEqual(typeCsvCell('12345678901234567890', 'number', 1), new JsonNumberText('1.2345678901234567e+19'));
  t.is(typeCsvCell('   ', 'number', 1), null);
  t.is(parseRustNumber('.5'), 0.5);
  t.is(parseRustNumber('+7'), 7);
  t.is(parseRustNumber('NaN'), null);
  t.is(parseRustNumber('0x10'), undefined);
  t.is(parseRustNumber('1_000'), undefined);
});

test('a bad number names the value and the record line', (t) => {
  const error = t.throws(() => typeCsvCell('abc', 'number', 3), { instanceOf: SkeinError });
  t.is(error.code, 'malformed_payload');
  t.is(
    error.message,
    'The `csv` payload provided is malformed: `Error parsing number "abc" at line 3: invalid float literal`.',
  );
});

test('booleans are exactly true/false after trimming', (t) => {
  t.is(typeCsvCell(' true', 'boolean', 1), true);
  t.is(typeCsvCell('false', 'boolean', 1), false);
  t.is(typeCsvCell('', 'boolean', 1), null);
  const error = t.throws(() => typeCsvCell('True', 'boolean', 2), { instanceOf: SkeinError });
  t.is(
    error.message,
    'The `csv` payload provided is malformed: `Error parsing boolean "True" at line 2: provided string was not `true` or `false``.',
  );
});

test('csv documents: typed columns, quoting, blank lines skipped', async (t) => {
  const documents = await collect('id,title,price:number,ok:boolean\n1,"a, b",3.5,true\n\n2,"say ""hi""",,\n');
  t.deepEqual(documents, [
    { id: '1', title: 'a, b', price: 3.5, ok: true },
    { id: '2', title: 'say "hi"', price: null, ok: null },
  ]);
});

test('csv documents: custom delimiter', async (t) => {
  t.deepEqual(await collect('id;name\n1;x,y\n', ';'), [{ id: '1', name: 'x,y' }]);
});

test('csv documents: header only gives no document', async (t) => {
  t.deepEqual(await collect('id,name\n'), []);
});

test('csv documents: ragged rows are malformed_payload', async (t) => {
  const error = await t.throwsAsync(collect('id,name\n1,a,extra\n'), { instanceOf: SkeinError });
  t.is(error.code, 'malformed_payload');
  t.regex(error.message, /^The `csv` payload provided is malformed: `CSV error: record 1 \(line: 2, .*found record with 3 fields, but the previous record has 2 fields`\.$/);
});

test('csv documents: the line of a bad cell counts data records from 1', async (t) => {
  const error = await t.throwsAsync(collect('id,n:number\n1,2\n2,x\n'), { instanceOf: SkeinError });
  t.is(error.message, 'The `csv` payload provided is malformed: `Error parsing number "x" at line 2: invalid float literal`.');
});
