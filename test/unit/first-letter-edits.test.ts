// walkFirstLetterEdits must visit exactly what walkFuzzy with a budget of 1 visits outside the query's
// first letter, in the same order: randomized lexicons and queries over a small alphabet (many near words).
import test from 'ava';
import { walkFuzzy } from '../../src/shard/words/fuzzy-walk.js';
import { walkFirstLetterEdits } from '../../src/shard/words/first-letter-edits.js';
import { prefixRange } from '../../src/shard/words/lexicon.js';
import { randomFrom } from './seeded-lcg.js';

const ALPHABET = 'abcdé';

function randomWord(random: () => number, maxLength: number): string {
  const length = 1 + Math.floor(random() * maxLength);
  let word = '';
  for (let k = 0; k < length; k++) word += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return word;
}

function visited(walk: (visit: (word: string, distance: number) => boolean) => void): string[] {
  const out: string[] = [];
  walk((word, distance) => {
    out.push(`${word}:${distance}`);
    return true;
  });
  return out;
}

for (const asPrefix of [false, true]) {
  test(`first-letter edits equal the fuzzy walk outside the first letter (asPrefix ${asPrefix})`, (t) => {
    const random = randomFrom(asPrefix ? 11 : 7);
    let compared = 0;
    for (let round = 0; round < 200; round++) {
      const lexicon = [...new Set(Array.from({ length: 1 + Math.floor(random() * 300) }, () => randomWord(random, 6)))].sort();
      const query = randomWord(random, 6);
      const [sameStart, sameEnd] = prefixRange(lexicon, query.charAt(0));
      for (const [from, to] of [[0, sameStart], [sameEnd, lexicon.length]] as const) {
        const expected = visited((visit) => walkFuzzy(lexicon, query, 1, asPrefix, visit, from, to));
        const actual = visited((visit) => walkFirstLetterEdits(lexicon, query, asPrefix, visit, from, to));
        t.deepEqual(actual, expected, `query ${query} in [${from}, ${to})`);
        compared += expected.length;
      }
    }
    t.true(compared > 100, `only ${compared} words compared`);
  });
}

/** First letters with a word or two each (a real lexicon's: CJK, accented, symbols), and a common alphabet. */
const RARE_LETTERS = 'ĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħ';

for (const asPrefix of [false, true]) {
  test(`first-letter edits equal the fuzzy walk with many rare first letters (asPrefix ${asPrefix})`, (t) => {
    const random = randomFrom(asPrefix ? 13 : 17);
    let compared = 0;
    for (let round = 0; round < 200; round++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 300) }, () => randomWord(random, 6));
      // Rare-letter words one edit from common ones (substituted or prepended first letter), and some longer.
      for (let k = 0; k < 60; k++) {
        const base = randomWord(random, 6);
        const letter = RARE_LETTERS[Math.floor(random() * RARE_LETTERS.length)]!;
        words.push(random() < 0.5 ? letter + base.slice(1) : letter + base, letter + base + randomWord(random, 2));
      }
      const lexicon = [...new Set(words)].sort();
      const query = random() < 0.2 ? RARE_LETTERS[Math.floor(random() * RARE_LETTERS.length)]! + randomWord(random, 5) : randomWord(random, 6);
      const [sameStart, sameEnd] = prefixRange(lexicon, query.charAt(0));
      // The whole list too: what collectTypos asks (the two calls around the first letter's words, in one).
      for (const [from, to] of [[0, sameStart], [sameEnd, lexicon.length], [0, lexicon.length >> 1], [0, lexicon.length]] as const) {
        const expected = visited((visit) => walkFuzzy(lexicon, query, 1, asPrefix, visit, from, to))
          .filter((entry) => entry.charAt(0) !== query.charAt(0));
        const actual = visited((visit) => walkFirstLetterEdits(lexicon, query, asPrefix, visit, from, to));
        t.deepEqual(actual, expected, `query ${query} in [${from}, ${to})`);
        compared += expected.length;
      }
    }
    t.true(compared > 300, `only ${compared} words compared`);
  });
}

test('first-letter edits stop when the visitor says so', (t) => {
  const lexicon = ['bcd', 'bxcd', 'cbcd', 'dbcd', 'xbcd'];
  const seen: string[] = [];
  walkFirstLetterEdits(lexicon, 'abcd', false, (word) => {
    seen.push(word);
    return seen.length < 2;
  }, 0, lexicon.length);
  t.deepEqual(seen, ['bcd', 'cbcd']);
});
