// analyzeDocument walks simple documents itself instead of flattening them: the fields, ranks, words
// and positions must be those of the flattenDocument-based definition.
import test from 'ava';
import { analyzeDocument, type DocumentAnalysisOptions, type FieldTokens } from '../../src/analysis/document-tokens.js';
import { defaultClassifier } from '../../src/analysis/separators.js';
import { tokenize } from '../../src/analysis/tokenizer.js';
import { flattenDocument, selectsField } from '../../src/documents/flatten.js';

/** The definition: every flattened non-object field, ranked by selector (or ordinal with "*"). */
function reference(document: Record<string, unknown>, options: DocumentAnalysisOptions): FieldTokens[] {
  const everyField = options.searchableAttributes.includes('*');
  const out: FieldTokens[] = [];
  let ordinal = 0;
  for (const [field, value] of flattenDocument(document)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) continue;
    const fieldOrdinal = ordinal++;
    const rank = everyField ? fieldOrdinal : options.searchableAttributes.findIndex((selector) => selectsField(selector, field));
    if (rank < 0) continue;
    const words: string[] = [];
    const positions: number[] = [];
    let position = 0;
    const collect = (item: unknown): void => {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
        const { tokens, nextPosition } = tokenize(String(item), position, defaultClassifier);
        for (const token of tokens) if (!options.stopWords.has(token.word)) words.push(token.word), positions.push(token.position);
        position = nextPosition;
      } else if (Array.isArray(item)) for (const element of item) collect(element);
    };
    collect(value);
    if (words.length > 0) out.push({ field, rank, words, positions });
  }
  return out;
}

const documents: Record<string, unknown>[] = [
  { id: 1, title: 'The Matrix', overview: 'Neo. Trinity, Morpheus', genre: 'Action', year: 1999, price: 9.5, _geo: { lat: 1.5, lng: 2 } },
  { a: { b: 'deep words', c: { d: 'deeper still' } }, e: ['x y', ['z w'], 3, true, null] },
  { 'a.b': 'dotted key', a: { b: 'nested twin' } },
  { a: [{ b: 'one' }, { b: 'two', c: 'three' }], d: 'plain' },
  { '': { '': 'empty keys' }, ' ': 'space key' },
  { 10: 'integer key', 2: 'first', title: 'order' },
  { nothing: null, empty: '', list: [], object: {} },
  JSON.parse('{"__proto__": {"x": "proto words"}, "y": "why"}') as Record<string, unknown>,
];

const settings: string[][] = [['*'], ['title', 'overview', 'genre'], ['a', 'e'], ['a.b', 'd'], ['a.c.d', '*'], ['']];

for (const searchableAttributes of settings) {
  test(`analyzeDocument = the flattenDocument definition (searchable ${JSON.stringify(searchableAttributes)})`, (t) => {
    const options: DocumentAnalysisOptions = { searchableAttributes, stopWords: new Set(['the']) };
    for (const document of documents) t.deepEqual(analyzeDocument(document, options), reference(document, options), JSON.stringify(document));
  });
}
