// The query matcher of src/formatting and the synonym helpers it shares with the shards.
import test from 'ava';
import { classifierFor } from '../../src/analysis/separators.js';
import { buildMatcher } from '../../src/formatting/index.js';
import { wordsOfText } from '../../src/formatting/text-words.js';
import { editDistance, prefixEditDistance } from '../../src/formatting/edit-distance.js';
import { parseQuery } from '../../src/query/parse-query.js';
import { multiWordSynonyms, normalizeSynonyms } from '../../src/query/synonyms.js';
import { typoPolicyOf } from '../../src/query/typo-budget.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

const policy = typoPolicyOf(defaultSettings().typoTolerance);
const matcher = (q: string, synonyms: Record<string, string[]> = {}) =>
  buildMatcher(q, { typoPolicy: policy, prefixSearch: true, synonyms: normalizeSynonyms(synonyms) });

test('Damerau-Levenshtein distances count a transposition as one edit', (t) => {
  t.is(editDistance([...'house'], [...'hosue']), 1);
  t.is(editDistance([...'house'], [...'mouse']), 1);
  t.is(editDistance([...'kitten'], [...'sitting']), 3);
  t.deepEqual(prefixEditDistance([...'amer'], [...'american']), { distance: 0, length: 4 });
  t.deepEqual(prefixEditDistance([...'amrei'], [...'american']), { distance: 1, length: 5 });
});

test('matcher: exact, prefix (matched part only), typo budget and first-letter rule', (t) => {
  const match = matcher('beautifol hous');
  t.deepEqual(match('beautiful'), { term: 0, length: 9 });
  t.deepEqual(match('household'), { term: 1, length: 4 });
  t.is(match('mouse'), null);
  // 9+ letters allow two typos, but a different first letter alone uses up both.
  t.deepEqual(matcher('beautiful ')('deautiful'), { term: 0, length: 9 });
  t.is(matcher('beautiful ')('deautifol'), null);
  t.is(buildMatcher(null, { typoPolicy: policy, prefixSearch: true, synonyms: new Map() })('anything'), null);
});

test('matcher: phrase words match exactly, stop words of the query are matchable', (t) => {
  const match = matcher('"quick brown" the');
  t.deepEqual(match('quick'), { term: 0, length: 5 });
  t.is(match('quack'), null);
  t.deepEqual(match('the'), { term: 1, length: 3 });
});

test('synonyms are normalized into words, keys joined by one space, duplicates dropped', (t) => {
  const map = normalizeSynonyms({ 'New  York': ['NY', 'ny', 'Big Apple'], Élan: ['verve'] });
  t.deepEqual([...map.entries()], [['new york', [['ny'], ['big', 'apple']]], ['elan', [['verve']]]]);
});

test('multi-word keys attach their alternatives to every word of the run', (t) => {
  const synonyms = normalizeSynonyms({ 'new york': ['ny'], 'big apple pie': ['dessert'] });
  const terms = parseQuery('new york big apple pie', { stopWords: new Set(), prefixSearch: true });
  const runs = multiWordSynonyms(terms, synonyms);
  t.deepEqual([...runs.keys()], [0, 1, 2, 3, 4]);
  t.deepEqual(runs.get(1), [['ny']]);
  t.deepEqual(runs.get(4), [['dessert']]);
  t.deepEqual(matcher('new york', { 'new york': ['ny'] })('ny'), { term: 0, length: 2 });
});

test('the matcher splits texts with the index separators and dictionary', (t) => {
  const classify = classifierFor(['ʼ'], ['#'], ['J. R. R.']);
  const match = buildMatcher('c# j. r. r.', { typoPolicy: policy, prefixSearch: false, synonyms: new Map(), classify });
  const text = 'C# by J. R. R. and fʼc';
  const words = wordsOfText(text, match).map((word) => [text.slice(word.start, word.end), word.term]);
  t.deepEqual(words, [['C#', 0], ['by', -1], ['J. R. R.', 1], ['and', -1], ['f', -1], ['c', -1]]);
  t.is(classifierFor([], []), classifierFor([], [], []));
});
