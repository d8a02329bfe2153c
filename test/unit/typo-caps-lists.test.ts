// The typo caps (150 one-typo, 50 two-typo words) over a lexicon in two or three lists: a shard's words added
// since the last merges wait in younger sorted lists (lexicon.ts), and the caps must take what a shard holding the
// same words in one list takes (a fresh or restored shard), not the first list's words first. On random
// lexicons of few letters (the caps are reached often), deriveWordIds gives the same words in the same
// order (the words without typos in any order) for a lexicon in several lists as for the same words adopted as one, with the deletion index and
// without, at one and two typos, as a prefix and as a whole word.
import test from 'ava';
import { deriveWordIds, exactAttributeKey } from '../../src/shard/words/derivations.js';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';
import { finishSteps } from '../../src/shard/sliced-jobs.js';
import { randomFrom } from './seeded-lcg.js';
import { randomLexicon, queriesOf } from './random-edits.js';

const ALPHABETS = [['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd', 'é'], ['a', 'b', 'c', 'd', 'e', 'f']];

for (let round = 0; round < 6; round++) {
  const threeLists = round >= 3;
  test(`a lexicon in ${threeLists ? 'three' : 'two'} lists takes the typo caps as the same words in one list (round ${round})`, (t) => {
    const random = randomFrom(8300 + round);
    const letters = ALPHABETS[round % ALPHABETS.length]!;
    // Three lists: 5,100 distinct words (4,100 merged into the sorted list, 600 pending, 400 fresh).
    const words = threeLists ? [...new Set(randomLexicon(random, letters, 6400))].slice(0, 5100) : randomLexicon(random, letters, 5600);
    const split = new Vocabulary();
    const whole = new Vocabulary();
    // A word interned in both in the same order gets the same id; some have no documents, a tenth are of typo-disabled attributes.
    const addWord = (word: string, k: number) => {
      for (const vocabulary of [split, whole]) {
        const id = vocabulary.intern(k % 10 === 0 ? exactAttributeKey(word) : word);
        if (k % 13 !== 0) vocabulary.addDocument(id, k);
      }
    };
    // Past 4,096 words the first lists() merges them into the first list; the later ones wait in the pending
    // list (past the fresh list's 512 words), and with three lists the last 400 in the fresh one.
    const early = threeLists ? 4100 : 5000;
    const middle = threeLists ? 4700 : words.length;
    t.is(words.length, threeLists ? 5100 : words.length);
    words.slice(0, early).forEach(addWord);
    split.lexicon.lists();
    words.slice(early, middle).forEach((word, k) => addWord(word, early + k));
    split.lexicon.lists();
    words.slice(middle).forEach((word, k) => addWord(word, middle + k));
    t.deepEqual(split.lexicon.lists().map((list) => list.length > 0), threeLists ? [true, true, true] : [true, true]);
    whole.lexicon.adoptSorted(split.lexicon.lists().flat().sort());
    t.is(whole.lexicon.lists().length, 1);
    if (round % 2 === 1) for (const vocabulary of [split, whole]) finishSteps(vocabulary.lexicon.deletionIndexSteps());
    let capped = 0;
    let fromSecond = 0;
    const second = new Set(split.lexicon.lists().slice(1).flat().map((word) => split.idOf(word)));
    for (const query of queriesOf(random, letters, words, 150)) {
      for (const budget of [1, 2]) {
        for (const isPrefix of [false, true]) {
          // Level 0 (the word, the words it is a prefix of) has no cap: its order is the lists' and does not matter.
          const [expected, actual] = [whole, split].map((vocabulary) => {
            const [exact, ...typos] = deriveWordIds(vocabulary, query, isPrefix, budget);
            return [[...exact!].sort((a, b) => a - b), ...typos];
          }) as [number[][], number[][]];
          if (JSON.stringify(actual) !== JSON.stringify(expected)) t.deepEqual(actual, expected, `${JSON.stringify(query)} budget ${budget} prefix ${isPrefix}`);
          else t.pass();
          if (expected[1]!.length === 150 || expected[2]!.length === 50) {
            capped++;
            if (expected[1]!.some((id) => second.has(id)) || expected[2]!.some((id) => second.has(id))) fromSecond++;
          }
        }
      }
    }
    t.true(capped > 20, `derivations at a cap: ${capped}`);
    t.true(fromSecond > 5, `capped derivations holding words of the second list: ${fromSecond}`);
  });
}
