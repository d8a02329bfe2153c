// The typo walk's scratch (fuzzy-walk.ts WalkScratch) is the lexicon's, reused walk after walk: a walk
// must read no cell a previous walk left (another query length, deeper words, a walk stopped early).
import test from 'ava';
import { walkFuzzy } from '../../src/shard/words/fuzzy-walk.js';
import { LexiconListMemos } from '../../src/shard/words/lexicon.js';
import { osa } from './reference-distance.js';

test('walks sharing one scratch (queries of every length, words past its first capacity, walks stopped early) find what the reference distance does', (t) => {
  let state = 4242;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const prefixDistance = (query: string, word: string) => Math.min(...Array.from({ length: word.length + 1 }, (_, k) => osa(query, word.slice(0, k))));
  const memos = new LexiconListMemos();
  for (let round = 0; round < 300; round++) {
    const letters = ['ab', 'abc', 'abcd'][round % 3]!;
    const randomWord = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => letters[Math.floor(random() * letters.length)]).join('');
    // Some words longer than the scratch's first 32 rows; lists of their own each round (the scratch outlives them).
    const words = [...new Set(Array.from({ length: 1 + Math.floor(random() * 150) }, () => randomWord(round % 5 === 0 ? 45 : 12)))].sort();
    const base = words[Math.floor(random() * words.length)]!;
    const at = Math.floor(random() * Math.max(1, base.length - 1));
    const query = round % 2 === 0 ? randomWord(1 + Math.floor(random() * 14)) : base.slice(0, at) + randomWord(1) + base.slice(at + 1);
    const asPrefix = random() < 0.5;
    const max = 1 + Math.floor(random() * 2);
    const stopAfter = random() < 0.3 ? 1 + Math.floor(random() * 3) : Infinity;
    const found: string[] = [];
    walkFuzzy(words, query, max, asPrefix, (word, distance) => {
      found.push(`${word}:${distance}`);
      return found.length < stopAfter;
    }, 0, words.length, memos);
    const distanceOf = (word: string) => (asPrefix ? prefixDistance(query, word) : osa(query, word));
    const expected = words.filter((word) => distanceOf(word) <= max).map((word) => `${word}:${distanceOf(word)}`).slice(0, stopAfter);
    t.deepEqual(found, expected, `round ${round}: ${query} max ${max} prefix ${asPrefix}`);
  }
  t.true(memos.walkScratch !== null && memos.walkScratch.prefixBest.length > 32, 'the scratch grew past its first capacity and was reused');
});
