// tokenizeInto (the indexing tokenizer) must give exactly tokenize()'s words and positions.
import test from 'ava';
import { classifierFor, defaultClassifier, type CharClassifier } from '../../src/analysis/separators.js';
import { MAX_POSITION, tokenize, tokenizeInto } from '../../src/analysis/tokenizer.js';

function viaTokenize(text: string, first: number, classify: CharClassifier, skip: ReadonlySet<string>) {
  const { tokens, nextPosition } = tokenize(text, first, classify);
  const kept = tokens.filter((token) => !skip.has(token.word));
  return { words: kept.map((token) => token.word), positions: kept.map((token) => token.position), nextPosition };
}

function viaInto(text: string, first: number, classify: CharClassifier, skip: ReadonlySet<string>) {
  const words: string[] = [];
  const positions: number[] = [];
  const nextPosition = tokenizeInto(text, first, classify, words, positions, skip);
  return { words, positions, nextPosition };
}

const PIECES = ['Hello', 'WORLD', 'café', 'Ñandú', '東京', 'e\u0301', '2024', ' ', ', ', '. ', '-', '_', '\n', '  ', '!?', '\u3002',
  'x'.repeat(251), 'y'.repeat(84), '😀', 'İstanbul', 'C++', 'l\'avion', 'ß', 'ǅ', 'ＡＢＣ', 'new york', '(a)', '#tag'];

function randomText(seed: number): string {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const length = Math.floor(next() * 30);
  let text = '';
  for (let k = 0; k < length; k++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

const classifiers: [string, CharClassifier][] = [
  ['default', defaultClassifier],
  ['custom separators', classifierFor(['-', '#', 'a'], ['_', '+', '.'])],
  ['dictionary', classifierFor([], [], ['new york', 'C++', 'l\'avion'])],
];

for (const [name, classify] of classifiers) {
  test(`tokenizeInto equals tokenize (${name})`, (t) => {
    for (let seed = 1; seed <= 3000; seed++) {
      const text = randomText(seed);
      const first = seed % 3 === 0 ? 17 : 0;
      const skip = seed % 2 === 0 ? new Set(['hello', 'cafe']) : new Set<string>();
      t.deepEqual(viaInto(text, first, classify, skip), viaTokenize(text, first, classify, skip), JSON.stringify(text));
    }
  });
}

test('tokenizeInto stops at MAX_POSITION like tokenize', (t) => {
  const text = Array.from({ length: 70_000 }, () => 'w').join(' ');
  const empty = new Set<string>();
  t.deepEqual(viaInto(text, 0, defaultClassifier, empty), viaTokenize(text, 0, defaultClassifier, empty));
  t.deepEqual(viaInto('a b', MAX_POSITION - 1, defaultClassifier, empty), viaTokenize('a b', MAX_POSITION - 1, defaultClassifier, empty));
});

test('tokenizeInto equals tokenize on ASCII-only texts (the table fast path)', (t) => {
  const ascii = PIECES.filter((piece) => /^[\x00-\x7f]*$/.test(piece));
  let state = 99;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 3000; round++) {
    let text = '';
    const length = Math.floor(next() * 30);
    for (let k = 0; k < length; k++) text += ascii[Math.floor(next() * ascii.length)];
    const skip = round % 2 === 0 ? new Set(['hello']) : new Set<string>();
    t.deepEqual(viaInto(text, round % 5, defaultClassifier, skip), viaTokenize(text, round % 5, defaultClassifier, skip), JSON.stringify(text));
  }
});
