// Highlighting, cropping, match positions and the ranking score of src/formatting.
import test from 'ava';
import { buildMatcher, formatHit, rankingScore, type FormattingOptions } from '../../src/formatting/index.js';
import { cropWindow } from '../../src/formatting/crop.js';
import { formatText } from '../../src/formatting/highlight.js';
import { wordsOfText } from '../../src/formatting/text-words.js';
import { normalizeSynonyms } from '../../src/query/synonyms.js';
import { typoPolicyOf } from '../../src/query/typo-budget.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

const matcherFor = (q: string, synonyms: Record<string, string[]> = {}) =>
  buildMatcher(q, { typoPolicy: typoPolicyOf(defaultSettings().typoTolerance), prefixSearch: true, synonyms: normalizeSynonyms(synonyms) });

const em = { preTag: '<em>', postTag: '</em>' };
const highlight = (text: string, q: string, synonyms: Record<string, string[]> = {}) =>
  formatText(text, wordsOfText(text, matcherFor(q, synonyms)), { highlight: em, crop: null });
const crop = (text: string, q: string, length: number, marker = '…') =>
  formatText(text, wordsOfText(text, matcherFor(q)), { highlight: null, crop: { length, marker } });

test('exact words are wrapped, case and accents ignored, original text kept', (t) => {
  t.is(highlight('The Crème Brûlée of Paris', 'creme brulee'), 'The <em>Crème</em> <em>Brûlée</em> of Paris');
});

test('a prefix match wraps only the matched prefix', (t) => {
  t.is(highlight('american history', 'ameri'), '<em>ameri</em>can history');
  t.is(highlight('american history', 'ameri '), 'american history');
});

test('typo variants within the budget are wrapped whole', (t) => {
  t.is(highlight('a beautiful house', 'beautifol house '), 'a <em>beautiful</em> <em>house</em>');
  // 4 letters: no typo allowed.
  t.is(highlight('lamp', 'lamb '), 'lamp');
});

test('synonyms are highlighted, one way only', (t) => {
  t.is(highlight('a big car', 'automobile ', { automobile: ['car'] }), 'a big <em>car</em>');
  t.is(highlight('an automobile', 'car ', { automobile: ['car'] }), 'an automobile');
});

test('tags are any strings', (t) => {
  const text = 'hello world';
  t.is(formatText(text, wordsOfText(text, matcherFor('world')), { highlight: { preTag: '[[', postTag: ']]' }, crop: null }), 'hello [[world]]');
});

test('crop with no match keeps the first words, marker only where text was removed', (t) => {
  t.is(crop('one two three four five six', 'zzz', 3), 'one two three…');
  t.is(crop('one two three', 'zzz', 3), 'one two three');
  t.is(crop('one two three', 'zzz', 10), 'one two three');
  t.is(crop('one two three', 'zzz', 0), 'one two three');
});

test('crop centres a single term around its first occurrence with markers on both sides', (t) => {
  t.is(crop('a b c d e target f g h i j target', 'target', 5, '...'), '...d e target f g...');
});

test("crop grows the window as milli's crop_bounds: an odd word left over goes before the match", (t) => {
  const text = 'A french book about a prince that walks on little cute planets';
  const expected: Record<number, string> = {
    2: '…a prince…', 3: '…a prince that…', 4: '…about a prince that…', 5: '…about a prince that walks…',
    6: '…book about a prince that walks…', 7: '…book about a prince that walks on…',
  };
  for (const [length, window] of Object.entries(expected)) t.is(crop(text, 'prince', Number(length)), window, `cropLength ${length}`);
  // A hard separator on one side: the window grows on the other side first.
  t.is(crop('Alpha beta. Gamma target delta epsilon zeta', 'target', 3), '…Gamma target delta…');
});

test('crop prefers the interval with the most distinct terms', (t) => {
  const text = 'alpha x x x x x x x x beta x x x x x x x alpha beta x x x x x x x';
  const words = wordsOfText(text, matcherFor('alpha beta '));
  const window = cropWindow(words, 4);
  t.deepEqual(words.slice(window.first, window.last + 1).map((word) => text.slice(word.start, word.end)).filter((w) => w !== 'x'), ['alpha', 'beta']);
});

test('crop avoids crossing a sentence boundary when it can', (t) => {
  t.is(crop('First sentence here. Target word now and more', 'target', 4), '…Target word now and…');
});

test('formatHit: _formatted holds retrieved attributes, numbers as strings, nested and arrays', (t) => {
  const stored = { id: 1, title: 'Hello world', year: 1999, tags: ['world', 'peace'], author: { name: 'World Bank' }, ok: true };
  const options: FormattingOptions = { attributesToHighlight: ['*'] };
  const hit = formatHit({ stored, attributesToRetrieve: null, displayedAttributes: ['*'], score: [] }, options, matcherFor('world 1999'));
  t.deepEqual(hit._formatted, {
    id: '1', title: 'Hello <em>world</em>', year: '<em>1999</em>', tags: ['<em>world</em>', 'peace'],
    author: { name: '<em>World</em> Bank' }, ok: true,
  });
  t.deepEqual(Object.keys(hit), ['id', 'title', 'year', 'tags', 'author', 'ok', '_formatted']);
});

test('formatHit: attr:N overrides cropLength, named attributes join the retrieved ones', (t) => {
  const stored = { id: 1, title: 'one two three four', body: 'a b c d e f' };
  const hit = formatHit({ stored, attributesToRetrieve: ['id'], displayedAttributes: ['*'], score: [] },
    { attributesToCrop: ['title:2', 'body'], cropLength: 3 }, matcherFor('zzz'));
  t.deepEqual(hit, { id: 1, _formatted: { id: '1', title: 'one two…', body: 'a b c…' } });
});

test('formatHit: _matchesPosition in UTF-8 bytes, with indices inside arrays', (t) => {
  const stored = { title: 'Crème world', tags: ['x', 'world'], n: 42 };
  const hit = formatHit({ stored, attributesToRetrieve: null, displayedAttributes: ['*'], score: [] },
    { showMatchesPosition: true }, matcherFor('world 42'));
  t.deepEqual(hit._matchesPosition, {
    title: [{ start: 7, length: 5 }],
    tags: [{ start: 0, length: 5, indices: [1] }],
    n: [{ start: 0, length: 2 }],
  });
  t.false('_formatted' in hit);
});

test('ranking score is 1 for a perfect or placeholder hit and decreases with worse rule values', (t) => {
  t.is(rankingScore([]), 1);
  t.is(rankingScore([0, 0, 0]), 1);
  const worse = rankingScore([0, 1, 0]);
  t.true(worse < 1 && worse > 0);
  t.true(rankingScore([1, 0, 0]) < rankingScore([0, 1, 0]));
  t.true(rankingScore([0, 2, 0]) < worse);
});

test('formatHit: no _formatted when the lists name no displayed attribute', (t) => {
  const stored = { id: 1, title: 'hello', secret: 'hello' };
  const hidden = formatHit({ stored, attributesToRetrieve: ['id', 'title'], displayedAttributes: ['id', 'title'], score: [] },
    { attributesToHighlight: ['secret'] }, matcherFor('hello'));
  t.deepEqual(hidden, { id: 1, title: 'hello' });
  const shown = formatHit({ stored, attributesToRetrieve: ['id'], displayedAttributes: ['id', 'title'], score: [] },
    { attributesToHighlight: ['title', 'secret'] }, matcherFor('hello'));
  t.deepEqual(shown._formatted, { id: '1', title: '<em>hello</em>' });
});

test('formatHit: fields added after retrieval come before the formatting members', (t) => {
  const hit = formatHit({ stored: { id: 1, title: 'hello' }, attributesToRetrieve: null, displayedAttributes: ['*'], score: [], extraFields: { _geoDistance: 12 } },
    { attributesToHighlight: ['title'], showRankingScore: true }, matcherFor('hello'));
  t.deepEqual(Object.keys(hit), ['id', 'title', '_geoDistance', '_formatted', '_rankingScore']);
});
