import test from 'ava';
import { parseQuery } from '../../src/query/parse-query.js';
import { typoBudget, typoPolicyOf } from '../../src/query/typo-budget.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

const options = { stopWords: new Set<string>(), prefixSearch: true };
const parse = (q: string, stopWords: string[] = []) => parseQuery(q, { ...options, stopWords: new Set(stopWords) });

test('the last word is a prefix unless a separator follows it', (t) => {
  t.deepEqual(parse('Hello Wor'), [
    { kind: 'word', word: 'hello', isPrefix: false, position: 0 },
    { kind: 'word', word: 'wor', isPrefix: true, position: 1 },
  ]);
  t.false((parse('hello wor ')[1] as { isPrefix: boolean }).isPrefix);
  t.false((parse('hello wor.')[1] as { isPrefix: boolean }).isPrefix);
  t.false((parseQuery('ameri', { ...options, prefixSearch: false })[0] as { isPrefix: boolean }).isPrefix);
});

test('at most 10 terms, a phrase counting as one', (t) => {
  const terms = parse('a b c d e f g h i j k l');
  t.is(terms.length, 10);
  t.is((terms[9] as { word: string }).word, 'j');
  t.false((terms[9] as { isPrefix: boolean }).isPrefix);
  const withPhrase = parse('"a b c" d e f g h i j k l m');
  t.is(withPhrase.length, 10);
  t.deepEqual(withPhrase[0], { kind: 'phrase', words: ['a', 'b', 'c'], position: 0 });
});

test('phrases: quoted words, hard separator splits, unclosed quote runs to the end', (t) => {
  t.deepEqual(parse('"New-York city" now'), [
    { kind: 'phrase', words: ['new', 'york', 'city'], position: 0 },
    { kind: 'word', word: 'now', isPrefix: true, position: 3 },
  ]);
  t.deepEqual(parse('"big dog. small cat"'), [
    { kind: 'phrase', words: ['big', 'dog'], position: 0 },
    { kind: 'phrase', words: ['small', 'cat'], position: 9 },
  ]);
  t.deepEqual(parse('go "open ended'), [
    { kind: 'word', word: 'go', isPrefix: false, position: 0 },
    { kind: 'phrase', words: ['open', 'ended'], position: 1 },
  ]);
});

test('stop words are dropped except as the last token; inside phrases they are gaps', (t) => {
  t.deepEqual(parse('the cat of', ['the', 'of']).map((term) => (term.kind === 'word' ? term.word : '')), ['cat', 'of']);
  t.deepEqual(parse('the cat of ', ['the', 'of']).map((term) => (term.kind === 'word' ? term.word : '')), ['cat']);
  t.deepEqual(parse('"lord of rings"', ['of']), [{ kind: 'phrase', words: ['lord', null, 'rings'], position: 0 }]);
});

test('typo budget follows minWordSizeForTypos, disableOnWords and enabled', (t) => {
  const policy = typoPolicyOf(defaultSettings().typoTolerance);
  t.is(typoBudget('four', policy), 0);
  t.is(typoBudget('fives', policy), 1);
  t.is(typoBudget('eightchr', policy), 1);
  t.is(typoBudget('ninechars', policy), 2);
  t.is(typoBudget('ninechars', { ...policy, enabled: false }), 0);
  t.is(typoBudget('ninechars', { ...policy, disableOnWords: new Set(['ninechars']) }), 0);
  t.is(typoBudget('four', { ...policy, oneTypo: 3, twoTypos: 4 }), 2);
});

test('negative terms: -word and -"phrase" apart from the terms, a lone or inner - negates nothing, negative phrases bounded', async (t) => {
  const { parseQueryParts } = await import('../../src/query/parse-query.js');
  const parse = (q: string) => parseQueryParts(q, { stopWords: new Set(['the']), prefixSearch: true });
  const parsed = parse('-cat dog -"big red" -the fox');
  t.deepEqual(parsed.terms.map((term) => (term.kind === 'word' ? term.word : term.words.join(' '))), ['dog', 'fox']);
  t.deepEqual(parsed.negativeWords, ['cat', 'the']);
  t.deepEqual(parsed.negativePhrases, [['big', 'red']]);
  t.deepEqual(parse('a-b --c - d').negativeWords, []);
  t.deepEqual(parse('"x -y"').negativeWords, [], 'inside a phrase');
  t.deepEqual(parse('-"a. b"').negativePhrases, [['a'], ['b']], 'a hard separator splits a negative phrase into two negative ones');
  t.is(parse(Array.from({ length: 50 }, (_, k) => `-"w${k} v${k}"`).join(' ')).negativePhrases.length, 10);
});
