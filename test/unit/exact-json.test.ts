// Numbers kept as written (src/documents/exact-json.ts), document id literals, and the invalid UTF-8 locators.
import test from 'ava';
import {
  JsonNumberText, numbersPrintAsWritten, parseExactJson, printsAsWritten, serdeFloatText, stringifyExactJson,
} from '../../src/documents/exact-json.js';
import { isIntegerIdLiteral, validDocumentId } from '../../src/documents/document-id.js';
import { SkeinError } from '../../src/errors/index.js';
import { csvInvalidUtf8Description, firstInvalidUtf8Offset, jsonInvalidUtf8Description } from '../../src/ingest/invalid-utf8.js';

test('printsAsWritten: exactly when String(Number(token)) is the token', (t) => {
  for (const token of ['0', '7', '-12', '999999999999999', '9007199254740992', '1.5', '0.000001', '1e+21', '123456789012345678']) {
    t.is(printsAsWritten(token), String(Number(token)) === token, token);
  }
  for (const token of ['-0', '1.0', '1e300', '-0.0', '9007199254740993', '12345678901234567890', '1E5', '1.50', '0.0000001']) {
    t.false(printsAsWritten(token), token);
  }
});

test('numbersPrintAsWritten skips strings and finds numbers at any depth', (t) => {
  t.true(numbersPrintAsWritten('{"a":"1.0 9007199254740993","b":[1,2.5,{"c":-3}]}'));
  t.true(numbersPrintAsWritten('{"a":"x\\"1.0","b":true}'));
  t.false(numbersPrintAsWritten('{"a":"x\\"","b":[1,{"c":1.0}]}'));
  t.false(numbersPrintAsWritten('[9007199254740993]'));
});

test('parseExactJson keeps rewritten numbers as JsonNumberText and stringifyExactJson writes them back', (t) => {
  const text = '{"id":9007199254740993,"a":1.0,"b":[1e300,-0.0,2],"c":{"d":12345678901234567890,"e":"1.0"},"f":1.5,"__proto__":1}';
  const value = parseExactJson(text) as Record<string, unknown>;
  t.deepEqual(value.id, new JsonNumberText('9007199254740993'));
  t.is((value.b as unknown[])[2], 2);
  t.is(value.f, 1.5);
  t.true(Object.hasOwn(value, '__proto__'));
  t.is(stringifyExactJson(value), text);
  t.is(stringifyExactJson(parseExactJson(' { "a" : [ 1.0 , "\\u0041" ] } ')), '{"a":[1.0,"A"]}');
  // Same keys, values and order as JSON.parse otherwise (integer-like keys first, last duplicate wins).
  const plain = '{"b":1,"2":[true,false,null],"a":{"x":1,"x":2},"s":"\\ud83d\\ude00"}';
  t.deepEqual(parseExactJson(plain), JSON.parse(plain));
  t.is(stringifyExactJson(parseExactJson(plain)), JSON.stringify(JSON.parse(plain)));
  // Out of the double's range: the double, as JSON.parse gives (written null).
  t.is(stringifyExactJson(parseExactJson('[1e400]')), '[null]');
});

test('random values: parseExactJson + stringifyExactJson equals JSON.parse + JSON.stringify when numbers print as written', (t) => {
  let state = 11;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const make = (depth: number): unknown => {
    const pick = next();
    if (depth > 3 || pick < 0.3) return [Math.floor(next() * 1e6) - 5e5, next() * 100, 'text "q" \\ é', true, null][Math.floor(next() * 5)];
    if (pick < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => make(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, k) => [`k${k}`, make(depth + 1)]));
  };
  for (let i = 0; i < 300; i++) {
    const text = JSON.stringify(make(0), null, i % 2 === 0 ? 0 : 1);
    t.true(numbersPrintAsWritten(text));
    t.is(stringifyExactJson(parseExactJson(text)), JSON.stringify(JSON.parse(text)));
  }
});

test('document ids: integer literals serde reads as u64 or i64; floats, -0 and beyond are invalid_document_id', (t) => {
  for (const literal of ['0', '1', '-5', '9007199254740993', '18446744073709551615', '-9223372036854775808', '999999999999999999']) {
    t.true(isIntegerIdLiteral(literal), literal);
  }
  for (const literal of ['-0', '1.0', '1e3', '1E3', '1.5', '18446744073709551616', '-9223372036854775809', '1e+21']) {
    t.false(isIntegerIdLiteral(literal), literal);
  }
  t.is(validDocumentId(new JsonNumberText('9007199254740993')), '9007199254740993');
  t.is(validDocumentId(42), '42');
  t.is(validDocumentId('abc-1_2'), 'abc-1_2');
  t.is(t.throws(() => validDocumentId(new JsonNumberText('1.0')), { instanceOf: SkeinError }).code, 'invalid_document_id');
  t.is(t.throws(() => validDocumentId(1e21), { instanceOf: SkeinError }).code, 'invalid_document_id');
  t.is(t.throws(() => validDocumentId(1.5), { instanceOf: SkeinError }).code, 'invalid_document_id');
});

test('serdeFloatText: fixed notation for decimal exponents -5..=15 with .0 on integral values, else scientific', (t) => {
  const cases: [number, string][] = [
    [1, '1.0'], [-0, '-0.0'], [0, '0.0'], [1000, '1000.0'], [1.5, '1.5'], [0.00001, '0.00001'], [0.000001, '1e-6'],
    [1e15, '1000000000000000.0'], [1e16, '1e+16'], [1.2345678901234567e19, '1.2345678901234567e+19'], [1e300, '1e+300'], [-2.5e-7, '-2.5e-7'],
  ];
  for (const [value, text] of cases) t.is(serdeFloatText(value), text, String(value));
});

test('firstInvalidUtf8Offset agrees with a fatal TextDecoder on random bytes', (t) => {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let state = 5;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pieces = [[0x61], [0xc3, 0xa9], [0xe6, 0x9d, 0xb1], [0xf0, 0x9f, 0x98, 0x80], [0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe6, 0x9d], [0x80], [0xf4, 0x90, 0x80, 0x80]];
  for (let i = 0; i < 2000; i++) {
    const bytes = Uint8Array.from(Array.from({ length: Math.floor(next() * 6) }, () => pieces[Math.floor(next() * pieces.length)]!).flat());
    let valid = true;
    try {
      decoder.decode(bytes);
    } catch {
      valid = false;
    }
    const offset = firstInvalidUtf8Offset(bytes);
    t.is(offset === -1, valid);
    if (offset >= 0) {
      // Everything before it decodes; the sequence starting there does not.
      t.notThrows(() => decoder.decode(bytes.subarray(0, offset)));
    }
  }
});

test('invalid UTF-8 positions: after the array element, the NDJSON value, the string; CSV record, line, field, byte', (t) => {
  const bytes = (before: string, after: string) => Buffer.concat([Buffer.from(before), Buffer.from([0xfe]), Buffer.from(after)]);
  t.is(jsonInvalidUtf8Description(bytes('[{"a":1},\n {"b":"x', 'y","c":2}]'), 'json'), 'invalid unicode code point at line 2 column 18');
  t.is(jsonInvalidUtf8Description(bytes('{"b":"x', 'y","c":2}'), 'json'), 'invalid unicode code point at line 1 column 10');
  t.is(jsonInvalidUtf8Description(bytes('{"a":1} {"b":"é', '"}\n'), 'ndjson'), 'invalid unicode code point at line 1 column 19');
  t.is(csvInvalidUtf8Description(bytes('a;b\n\n"x;y";"q""', 'r"\n'), ';'),
    'CSV parse error: record 1 (line 3, field: 1, byte: 5): invalid utf-8: invalid UTF-8 in field 1 near byte index 2');
  t.is(csvInvalidUtf8Description(bytes('a', 'b,c\n1,2\n'), ','),
    'CSV parse error: record 0 (line 1, field: 0, byte: 0): invalid utf-8: invalid UTF-8 in field 0 near byte index 1');
});
