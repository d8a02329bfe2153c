// tokenizeIdsInto (indexing's tokenizer producing word ids) must give tokenizeInto's words, interned,
// with the same positions; analyzeDocumentInto must flatten analyzeDocument; the word table must
// agree with a Map.
import test from 'ava';
import { analyzeDocument, analyzeDocumentInto, DocumentTokenScratch, type DocumentAnalysisOptions } from '../../src/analysis/document-tokens.js';
import { classifierFor, defaultClassifier, type CharClassifier } from '../../src/analysis/separators.js';
import { TokenizeScratch, tokenizeIdsInto } from '../../src/analysis/tokenize-ids.js';
import { tokenizeInto } from '../../src/analysis/tokenizer.js';
import { wordHash, wordPrefix } from '../../src/analysis/word-hash.js';

/** findAsciiLower's key arguments for a word: its wordHash and wordPrefix. */
function keyOf(word: string): [number, number, number] {
  return [wordHash(word), ...wordPrefix(word)];
}
import { encodeBitmaps, SerializedBitmaps } from '../../src/shard/snapshot/bitmap-list-codec.js';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';
import { WordTable } from '../../src/shard/words/word-table.js';

const PIECES = ['Hello', 'WORLD', 'hello', 'world', 'café', 'Ñandú', '東京', '2024', '3.14', ' ', ', ', '. ', '-', '_', '\n', '!?',
  'x'.repeat(251), 'Y'.repeat(250), 'İstanbul', 'C++', 'ß', 'MiXeD', 'z', 'Z9', '@[`{', 'new york'];

function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n;
}

function randomText(next: (n: number) => number, pieces: readonly string[]): string {
  let text = '';
  const length = next(30);
  for (let k = 0; k < length; k++) text += pieces[next(pieces.length)];
  return text;
}

const classifiers: [string, CharClassifier][] = [
  ['default', defaultClassifier],
  ['custom separators', classifierFor(['-', '#', 'a'], ['_', '+', '.'])],
];

for (const [name, classify] of classifiers) {
  for (const ascii of [true, false]) {
    test(`tokenizeIdsInto = tokenizeInto's words interned (${name}, ${ascii ? 'ASCII' : 'any'} texts)`, (t) => {
      const pieces = ascii ? PIECES.filter((piece) => /^[\x00-\x7f]*$/.test(piece)) : PIECES;
      const vocabulary = new Vocabulary();
      // One scratch for every text, as a shard's upserts share theirs.
      const scratch = new TokenizeScratch();
      const next = random(ascii ? 5 : 6);
      for (let round = 0; round < 3000; round++) {
        const text = randomText(next, pieces);
        const first = round % 3 === 0 ? 9 : 0;
        const skip = round % 4 === 0 ? new Set(['hello']) : new Set<string>();
        const words: string[] = [];
        const expectedPositions: number[] = [];
        const expectedNext = tokenizeInto(text, first, classify, words, expectedPositions, skip);
        const sizeBefore = vocabulary.size;
        const ids = [7];
        const positions = [7];
        const nextPosition = tokenizeIdsInto(text, first, classify, vocabulary, ids, positions, scratch, skip);
        t.deepEqual(ids.slice(1).map((id) => vocabulary.wordOf(id)), words, JSON.stringify(text));
        t.deepEqual(positions.slice(1), expectedPositions, JSON.stringify(text));
        t.is(nextPosition, expectedNext);
        // Only the text's words are interned (an ASCII scan abandoned at a non-ASCII character leaves none).
        const newWords = new Set(words.filter((word) => vocabulary.idOf(word)! >= sizeBefore));
        t.is(vocabulary.size - sizeBefore, newWords.size, JSON.stringify(text));
      }
    });
  }
}

test('a word met twice in one text gets one id', (t) => {
  const vocabulary = new Vocabulary();
  const ids: number[] = [];
  tokenizeIdsInto('Tea tea TEA coffee', 0, defaultClassifier, vocabulary, ids, [], new TokenizeScratch());
  t.is(ids[0], ids[1]);
  t.is(ids[1], ids[2]);
  t.not(ids[2], ids[3]);
  t.is(vocabulary.size, 2);
  t.is(vocabulary.idOf('tea'), ids[0]);
});

test('a text of more new words than the scratch holds grows it; the grown scratch serves the next text', (t) => {
  const vocabulary = new Vocabulary();
  const scratch = new TokenizeScratch();
  const before = scratch.unknown.length;
  const many = Array.from({ length: 40 }, (_, k) => `word${String.fromCharCode(97 + (k % 26))}${k}`);
  const ids: number[] = [];
  tokenizeIdsInto(many.join(' '), 0, defaultClassifier, vocabulary, ids, [], scratch);
  t.deepEqual(ids.map((id) => vocabulary.wordOf(id)), many);
  t.true(scratch.unknown.length > before, 'grown');
  const again: number[] = [];
  tokenizeIdsInto(`fresh ${many[3]} other`, 0, defaultClassifier, vocabulary, again, [], scratch);
  t.deepEqual(again.map((id) => vocabulary.wordOf(id)), ['fresh', many[3], 'other']);
});

test('WordTable agrees with a Map through growth; findAsciiLower finds the lowercase of a slice', (t) => {
  const table = new WordTable();
  const model = new Map<string, number>();
  const next = random(11);
  for (let step = 0; step < 60_000; step++) {
    const word = `w${next(40_000).toString(36)}${step % 7 === 0 ? 'é' : ''}`;
    const known = model.get(word);
    t.is(table.get(word), known);
    if (known === undefined) model.set(word, table.add(word));
  }
  t.is(table.size, model.size);
  for (const [word, id] of model) t.is(table.get(word), id);
  const text = ` W1A, ${'wzz'.toUpperCase()} w1a`;
  const id = model.get('w1a') ?? table.add('w1a');
  t.is(table.findAsciiLower(text, 1, 4, ...keyOf('w1a')), id);
  t.is(table.findAsciiLower(text, 10, 13, ...keyOf('w1a')), id);
  t.is(table.findAsciiLower(text, 6, 9, ...keyOf('wzz')), model.get('wzz') ?? -1);
  t.is(table.findAsciiLower('absent', 0, 6, ...keyOf('absent')), -1);
  // The key of another word (as a hash collision would give): not a match past the prefix, or in length.
  table.add('ab');
  t.is(table.findAsciiLower('AC', 0, 2, ...keyOf('ac')), -1);
  const long = table.add('abcdefghij');
  t.is(table.findAsciiLower('xABCDEFGHIJx', 1, 11, ...keyOf('abcdefghij')), long);
  t.is(table.findAsciiLower('ABCDEFGHIX', 0, 10, ...keyOf('abcdefghij')), -1);
  t.is(table.findAsciiLower('ABCDEFGHI', 0, 9, ...keyOf('abcdefghij')), -1);
  const seven = table.add('abcdefg');
  t.is(table.findAsciiLower('abcdefg', 0, 7, ...keyOf('abcdefg')), seven);
  t.is(table.findAsciiLower('abcdefgh', 0, 8, ...keyOf('abcdefg')), -1);
  // A non-ASCII word is never the lowercase of ASCII text.
  const accented = table.add('abcé');
  t.is(table.get('abcé'), accented);
  t.is(table.findAsciiLower('abce', 0, 4, ...keyOf('abce')), -1);
  t.deepEqual(wordPrefix('abcé'), [-1, 0]);
});

const documents: Record<string, unknown>[] = [
  { id: 1, title: 'The Matrix', overview: 'Neo. Trinity, Morpheus', genre: 'Action', year: 1999, price: 9.5, _geo: { lat: 1.5, lng: 2 } },
  { a: { b: 'deep words', c: { d: 'deeper still' } }, e: ['x y', ['z w'], 3, true, null] },
  { 'a.b': 'dotted key', a: { b: 'nested twin' } },
  { a: [{ b: 'one' }, { b: 'two', c: 'three' }], d: 'plain' },
  { nothing: null, empty: '', list: [], object: {}, last: 'Café Ñandú the END' },
];

for (const searchableAttributes of [['*'], ['title', 'overview', 'genre'], ['a', 'e'], ['d', 'a.b', 'last']]) {
  test(`analyzeDocumentInto = analyzeDocument flattened and interned (${JSON.stringify(searchableAttributes)})`, (t) => {
    for (const stopWords of [new Set<string>(), new Set(['the'])]) {
      const options: DocumentAnalysisOptions = { searchableAttributes, stopWords };
      const vocabulary = new Vocabulary();
      const out = new DocumentTokenScratch();
      for (const document of documents) {
        const fields = analyzeDocument(document, options);
        out.clear();
        analyzeDocumentInto(document, options, vocabulary, out);
        t.deepEqual(out.fieldRanks, fields.map((field) => field.rank));
        t.deepEqual(out.wordIds.map((id) => vocabulary.wordOf(id)), fields.flatMap((field) => field.words));
        t.deepEqual(out.fields, fields.flatMap((field, ordinal) => field.words.map(() => ordinal)));
        t.deepEqual(out.positions, fields.flatMap((field) => field.positions));
      }
    }
  });
}

test('a vocabulary restored from its exported state finds its words from text, without adding them again', (t) => {
  const original = new Vocabulary();
  const ids: number[] = [];
  tokenizeIdsInto('The quick brown foxes, 42 Extraordinarily-long WORDS', 0, defaultClassifier, original, ids, [], new TokenizeScratch());
  for (const [k, id] of ids.entries()) original.addDocument(id, k);
  const state = original.exportState();
  const { bytes, ends } = encodeBitmaps(state.postings);
  const restored = new Vocabulary();
  restored.importState({ words: state.words, postings: new SerializedBitmaps(bytes, ends), sortedIds: state.sortedIds });
  const again: number[] = [];
  tokenizeIdsInto('words 42 EXTRAORDINARILY the', 0, defaultClassifier, restored, again, [], new TokenizeScratch());
  t.is(restored.size, original.size);
  t.deepEqual(again.map((id) => restored.wordOf(id)), ['words', '42', 'extraordinarily', 'the']);
  t.deepEqual(again, again.map((id) => original.idOf(restored.wordOf(id))!));
});
