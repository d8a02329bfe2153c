// Elements copied verbatim into the update file must be exactly JSON.stringify of the parsed document,
// except for numbers JavaScript would rewrite, which keep their literal (stringifyExactJson).
import test from 'ava';
import { parseExactJson, stringifyExactJson } from '../../src/documents/exact-json.js';
import { canonicalElementTexts, DocumentText, isCanonicalNumber } from '../../src/ingest/canonical-elements.js';

function check(t: import('ava').ExecutionContext, text: string): (string | null)[] | null {
  const documents = JSON.parse(text) as unknown[];
  const exact = parseExactJson(text) as unknown[];
  const found = canonicalElementTexts(text, documents);
  const texts = found === null ? null : found.map((element) => element?.json ?? null);
  if (texts !== null) {
    t.is(texts.length, documents.length);
    texts.forEach((copied, k) => {
      if (copied !== null) t.is(copied, stringifyExactJson(exact[k]), `element ${k} of ${text}`);
    });
  }
  return texts;
}

test('compact serializer output is copied as is', (t) => {
  const documents = [
    { id: 1, title: 'Le "Film"\n\ttab\\', price: 12.99, rating: -0.5, tiny: 0.000001, big: 123456789012345, _geo: { lat: 48.8566, lng: -2 } },
    { id: 'x', list: [1, 'two', null, true, false, [], {}], nested: { a: { b: [{ c: 'd' }] } }, unicode: 'café 東京 😀 \u2028' },
    {},
  ];
  const texts = check(t, JSON.stringify(documents));
  t.deepEqual(texts, documents.map((document) => JSON.stringify(document)));
});

test('anything stringify would write differently is left to it', (t) => {
  const cases = [
    '[{"a": 1}]', '[{"a":1 }]', '[{"a":"\\u0041"}]', '[{"a":"\\/"}]', '[{"a":1,"a":2}]',
    '[{"b":1,"2":2}]', '[{"a":{"x":1,"x":2}}]', '[{"a":"\\ud83d\\ude00"}]', '[{"a":[1, 2]}]', '[{"a":1e400}]',
  ];
  for (const text of cases) {
    const texts = check(t, text);
    t.deepEqual(texts, [null], text);
  }
});

test('numbers JavaScript would rewrite are kept as written: copied, or re-serialized with their literal', (t) => {
  const numbers = ['1.50', '1e5', '1E5', '-0', '0.0000001', '12345678901234567890', '1.0', '-0.0', '9007199254740993'];
  for (const number of numbers) {
    t.deepEqual(check(t, `[{"a":${number}}]`), [`{"a":${number}}`], number);
    // With something else to rewrite (the spaces), the number still keeps its literal.
    t.deepEqual(check(t, `[{"a": ${number}, "b": [ ${number} ]}]`), [`{"a":${number},"b":[${number}]}`], number);
  }
});

test('elements are split right whatever the spacing between them; one object is one element', (t) => {
  t.deepEqual(check(t, ' [ {"a":"]},{"} ,\n{"b":[{"c":"}"}]} ] '), ['{"a":"]},{"}', '{"b":[{"c":"}"}]}']);
  t.deepEqual(canonicalElementTexts('{"a":1}', [{ a: 1 }]), [new DocumentText('{"a":1}', false)]);
  t.deepEqual(canonicalElementTexts(' { "a" : 1.0 } ', [{ a: 1 }]), [new DocumentText('{"a":1.0}', true)]);
  t.deepEqual(canonicalElementTexts('[{"a":1.0},{"a":1.5}]', [{ a: 1 }, { a: 1.5 }]), [new DocumentText('{"a":1.0}', true), new DocumentText('{"a":1.5}', false)]);
  t.deepEqual(check(t, '[]'), []);
  // Escapes found ahead are remembered across elements.
  t.deepEqual(check(t, '[{"a":"x\\"y"},{"b":"no"},{"c":"\\/"},{"d":"\\\\"}]'), ['{"a":"x\\"y"}', '{"b":"no"}', null, '{"d":"\\\\"}']);
});

test('numbers: canonical exactly when String(Number(token)) is the token', (t) => {
  const tokens = ['0', '-1', '7', '10', '100', '999999999999999', '9999999999999999', '-0', '0.5', '-0.5', '0.05', '0.000001',
    '0.0000001', '1.25', '1.250', '12.99', '3.14159265358979', '3.141592653589793', '1e3', '00', '0.', '1.', '-', '123456789012345.6'];
  for (const token of tokens) {
    if (isCanonicalNumber(token)) t.is(String(Number(token)), token, token);
  }
  t.true(isCanonicalNumber('12.99'));
  t.true(isCanonicalNumber('-0.5'));
  t.false(isCanonicalNumber('1.250'));
});

test('random documents: copied texts always equal stringify', (t) => {
  let state = 3;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 2 ? 4 : 6));
    if (kind === 0) return Math.round(next() * 10 ** Math.floor(next() * 18)) / 10 ** Math.floor(next() * 9) * (next() < 0.3 ? -1 : 1);
    if (kind === 1) return ['plain', 'quote"', 'back\\slash', 'new\nline', 'é', ''][Math.floor(next() * 6)];
    if (kind === 2) return [true, false, null][Math.floor(next() * 3)];
    if (kind === 3) return Math.floor(next() * 1e6);
    if (kind === 4) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, k) => [`k${k}`, value(depth + 1)]));
  };
  const documents = Array.from({ length: 500 }, () => ({ id: Math.floor(next() * 1000), v: value(0), w: value(0) }));
  const texts = check(t, JSON.stringify(documents));
  // Random doubles may print with 16-17 digits (then stringify writes them): most documents still copy.
  t.true(texts!.filter((text) => text !== null).length > documents.length / 2);
  check(t, JSON.stringify(documents, null, 1));
});
