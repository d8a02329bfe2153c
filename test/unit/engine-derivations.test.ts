import test from 'ava';
import { walkFuzzy } from '../../src/shard/words/fuzzy-walk.js';
import { deriveWord, MAX_ONE_TYPO_WORDS } from '../../src/shard/words/derivations.js';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';
import { osa } from './reference-distance.js';

function vocabularyOf(words: string[]): Vocabulary {
  const vocabulary = new Vocabulary();
  words.forEach((word, docId) => vocabulary.addDocument(vocabulary.intern(word), docId));
  return vocabulary;
}

function derived(words: string[], query: string, isPrefix: boolean, budget: number): Record<string, number> {
  const vocabulary = vocabularyOf(words);
  const out: Record<string, number> = {};
  for (const derivation of deriveWord(vocabulary, query, isPrefix, budget).words) out[vocabulary.wordOf(derivation.wordId)] = derivation.typos;
  return out;
}

test('the sorted-list walk finds exactly the words within the distance', (t) => {
  const alphabet = 'abc';
  const words: string[] = [];
  const grow = (prefix: string) => {
    if (prefix.length > 0) words.push(prefix);
    if (prefix.length < 5) for (const char of alphabet) grow(prefix + char);
  };
  grow('');
  words.sort();
  for (const query of ['abcab', 'ca', 'bbbb']) {
    for (const max of [0, 1, 2]) {
      const found: string[] = [];
      walkFuzzy(words, query, max, false, (word, distance) => {
        t.is(distance, osa(query, word));
        found.push(word);
        return true;
      });
      t.deepEqual(found, words.filter((word) => osa(query, word) <= max), `${query} ${max}`);
    }
  }
});

test('the walk agrees with the reference distance on random lexicons, whole words and prefixes', (t) => {
  let state = 99;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const randomWord = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => 'abcdé'[Math.floor(random() * 5)]).join('');
  const prefixDistance = (query: string, word: string) => Math.min(...Array.from({ length: word.length + 1 }, (_, k) => osa(query, word.slice(0, k))));
  for (let round = 0; round < 150; round++) {
    const words = [...new Set(Array.from({ length: 1 + Math.floor(random() * 200) }, () => randomWord(9)))].sort();
    const query = randomWord(8);
    const from = Math.floor(random() * words.length);
    const to = from + Math.floor(random() * (words.length - from + 1));
    for (const asPrefix of [false, true]) {
      const max = Math.floor(random() * 3);
      const found: string[] = [];
      walkFuzzy(words, query, max, asPrefix, (word, distance) => {
        found.push(`${word}:${distance}`);
        return true;
      }, from, to);
      const distanceOf = (word: string) => (asPrefix ? prefixDistance(query, word) : osa(query, word));
      const expected = words.slice(from, to).filter((word) => distanceOf(word) <= max).map((word) => `${word}:${distanceOf(word)}`);
      t.deepEqual(found, expected, `${query} max ${max} prefix ${asPrefix}`);
    }
  }
});

test('the walk agrees with the reference distance on deep random lexicons of few letters (swaps, dead letters, budgets 1 and 2), stopped early too', (t) => {
  // Few letters and long words: many nodes at the budget whose children mostly cannot stay within it
  // (skipped before their row), and many swaps that can; a visitor stopping after k words must see the first k.
  let state = 1234;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const prefixDistance = (query: string, word: string) => Math.min(...Array.from({ length: word.length + 1 }, (_, k) => osa(query, word.slice(0, k))));
  for (let round = 0; round < 400; round++) {
    const letters = ['ab', 'abc', 'abcd', 'aé\u00e8x'][round % 4]!;
    const randomWord = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => letters[Math.floor(random() * letters.length)]).join('');
    const words = [...new Set(Array.from({ length: 1 + Math.floor(random() * 300) }, () => randomWord(12)))].sort();
    // Queries near a word of the list (a swap or two edits away) as well as random ones.
    const base = words[Math.floor(random() * words.length)]!;
    const at = Math.floor(random() * Math.max(1, base.length - 1));
    const query = round % 3 === 0 ? randomWord(10) : round % 3 === 1 ? base.slice(0, at) + base.charAt(at + 1) + base.charAt(at) + base.slice(at + 2)
      : base.slice(0, at) + randomWord(2) + base.slice(at + 1);
    for (const asPrefix of [false, true]) {
      for (const max of [1, 2]) {
        const distanceOf = (word: string) => (asPrefix ? prefixDistance(query, word) : osa(query, word));
        const expected = words.filter((word) => distanceOf(word) <= max).map((word) => `${word}:${distanceOf(word)}`);
        const found: string[] = [];
        t.true(walkFuzzy(words, query, max, asPrefix, (word, distance) => {
          found.push(`${word}:${distance}`);
          return true;
        }));
        t.deepEqual(found, expected, `${query} max ${max} prefix ${asPrefix}`);
        const stopAfter = 1 + Math.floor(random() * 4);
        const first: string[] = [];
        const finished = walkFuzzy(words, query, max, asPrefix, (word, distance) => {
          first.push(`${word}:${distance}`);
          return first.length < stopAfter;
        });
        t.deepEqual(first, expected.slice(0, stopAfter), `${query} max ${max} prefix ${asPrefix} stopped after ${stopAfter}`);
        t.is(finished, expected.length < stopAfter);
      }
    }
  }
});

test('prefix walk: a word matches when one of its prefixes is within the distance', (t) => {
  const found: [string, number][] = [];
  walkFuzzy(['american', 'amerigo', 'amelie', 'banana', 'mer'].sort(), 'ameri', 1, true, (word, distance) => {
    found.push([word, distance]);
    return true;
  });
  t.deepEqual(found, [['amelie', 1], ['american', 0], ['amerigo', 0]]);
});

test('one typo from 5 letters, two from 9, transposition counts one', (t) => {
  const words = ['hello', 'hallo', 'ehllo', 'helo', 'hellooo', 'beautiful', 'beutiful', 'beautifol', 'bautiful', 'butiful'];
  t.deepEqual(derived(words, 'hello', false, 1), { hello: 0, hallo: 1, helo: 1 });
  t.deepEqual(derived(words, 'hello', false, 0), { hello: 0 });
  t.deepEqual(derived(words, 'beautiful', false, 2), { beautiful: 0, beutiful: 1, beautifol: 1, bautiful: 1, butiful: 2 });
  t.deepEqual(derived(['hlelo'], 'hello', false, 1), { hlelo: 1 });
});

test('a typo on the first letter counts as two', (t) => {
  const words = ['hello', 'jello', 'ello', 'beautiful', 'geautiful', 'eautiful', 'xeautifux'];
  // 1-typo budget: the first letter must match.
  t.deepEqual(derived(words, 'hello', false, 1), { hello: 0 });
  // 2-typo budget: a different first letter is allowed as the whole budget (one edit only, counted as two).
  t.deepEqual(derived(words, 'beautiful', false, 2), { beautiful: 0, geautiful: 2, eautiful: 2 });
});

test('prefix derivations: every extension at 0 typos, the word itself marked exact', (t) => {
  const vocabulary = vocabularyOf(['ameri', 'america', 'american', 'amelie', 'amer']);
  const derivations = deriveWord(vocabulary, 'ameri', true, 1);
  const byWord = Object.fromEntries(derivations.words.map((d) => [vocabulary.wordOf(d.wordId), [d.typos, d.exact]]));
  t.deepEqual(byWord, { ameri: [0, true], america: [0, false], american: [0, false], amelie: [1, false], amer: [1, false] });
  t.deepEqual(derivations.docsByTypo.map((docs) => docs.toArray()), [[0, 1, 2], [3, 4], []]);
});

test('one-typo derivations are capped at 150 words', (t) => {
  const words = ['abcde'];
  for (let i = 0; i < 300; i++) words.push(`abcde${String.fromCharCode(0x100 + i)}`);
  const found = derived(words, 'abcde', false, 1);
  t.is(Object.values(found).filter((typos) => typos === 1).length, MAX_ONE_TYPO_WORDS);
});

test('words whose documents were all deleted are not derived', (t) => {
  const vocabulary = vocabularyOf(['hello', 'hallo']);
  vocabulary.removeDocument(vocabulary.idOf('hallo')!, 1);
  t.deepEqual(deriveWord(vocabulary, 'hello', false, 1).words.length, 1);
});
