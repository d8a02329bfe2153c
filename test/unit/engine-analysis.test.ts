import test from 'ava';
import { normalizeWord } from '../../src/analysis/normalize.js';
import { tokenize, segment, MAX_POSITION } from '../../src/analysis/tokenizer.js';
import { analyzeDocument } from '../../src/analysis/document-tokens.js';

const words = (text: string) => tokenize(text).tokens.map((token) => [token.word, token.position]);

test('normalizer lowercases and strips accents', (t) => {
  t.is(normalizeWord('Éléphant'), 'elephant');
  t.is(normalizeWord('Crème BRÛLÉE'), 'creme brulee');
  t.is(normalizeWord('Ñandú'), 'nandu');
  t.is(normalizeWord('e\u0301'), 'e');
});

test('soft separators advance positions by 1, hard ones by 8, a run counts its largest', (t) => {
  t.deepEqual(words('hello world'), [['hello', 0], ['world', 1]]);
  t.deepEqual(words('Hello, World!'), [['hello', 0], ['world', 8]]);
  t.deepEqual(words("l'avion - le_train"), [['l', 0], ['avion', 1], ['le', 2], ['train', 3]]);
  t.deepEqual(words('one . - two'), [['one', 0], ['two', 8]]);
  t.deepEqual(words('a;b\nc'), [['a', 0], ['b', 8], ['c', 16]]);
});

test('numbers and unicode letters are words', (t) => {
  t.deepEqual(words('Año 2024 東京'), [['ano', 0], ['2024', 1], ['東京', 2]]);
});

test('words over 250 bytes are dropped but keep their position', (t) => {
  const long = 'x'.repeat(251);
  t.deepEqual(words(`a ${long} b`), [['a', 0], ['b', 2]]);
  t.deepEqual(words(`a ${'y'.repeat(250)}`).length, 2);
});

test('positions stop at 65,536 per attribute', (t) => {
  const text = Array.from({ length: 70_000 }, () => 'w').join(' ');
  const { tokens } = tokenize(text);
  t.is(tokens.length, MAX_POSITION);
  t.is(tokens[tokens.length - 1]!.position, MAX_POSITION - 1);
});

test('segments keep separators so the query parser can see quotes', (t) => {
  t.deepEqual([...segment('a "b')].map((piece) => [piece.kind, piece.text]), [['word', 'a'], ['soft', ' "'], ['word', 'b']]);
});

test('documents: arrays separated like hard separators, numbers/booleans indexed, null ignored, nested fields flattened', (t) => {
  const fields = analyzeDocument(
    { id: 7, tags: ['red car', 'blue'], flag: true, none: null, info: { city: 'Paris' } },
    { searchableAttributes: ['*'], stopWords: new Set() },
  );
  t.deepEqual(fields.map((field) => [field.field, field.rank, field.words, field.positions]), [
    ['id', 0, ['7'], [0]],
    ['tags', 1, ['red', 'car', 'blue'], [0, 1, 9]],
    ['flag', 2, ['true'], [0]],
    ['info.city', 4, ['paris'], [0]],
  ]);
});

test('documents: searchableAttributes order gives the rank and excludes other fields; stop words take a position', (t) => {
  const fields = analyzeDocument(
    { title: 'The Cat', body: 'x', secret: 'y', meta: { a: 'b' } },
    { searchableAttributes: ['meta', 'title'], stopWords: new Set(['the']) },
  );
  t.deepEqual(fields.map((field) => [field.field, field.rank, field.words, field.positions]), [
    ['title', 1, ['cat'], [1]],
    ['meta.a', 0, ['b'], [0]],
  ]);
});
