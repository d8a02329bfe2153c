// The lexicon's NearPrefixFilter (src/shard/words/near-prefix-filter.ts) lets a search skip an n-gram's
// derivation when the filter says no word is near it: held here to the walks themselves. (1) On random
// lexicons (few letters, so words are often one edit apart; accents, astral letters, words of
// typo-disabled attributes, words added after the filter was made), a "no" is never given for a word
// that deriveWordIds derives something from, at zero or one typo, as a prefix or a whole word. (2) On
// randomized shards whose documents hold the query words joined, searches answer alike with and without
// the filter (ShardIndex.nearPrefixFilter).
import test from 'ava';
import { deriveWordIds, exactAttributeKey } from '../../src/shard/words/derivations.js';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { randomFrom } from './seeded-lcg.js';
import { mutate, typoRoundSettings } from './random-edits.js';

const LETTERS = ['a', 'b', 'c', 'd', 'é', '𝒜'];

for (let round = 0; round < 6; round++) {
  test(`a "no" of the near-prefix filter is a word the lexicon walks derive nothing from (round ${round})`, (t) => {
    const random = randomFrom(4200 + round);
    const randomWord = (min: number, max: number) => Array.from({ length: min + Math.floor(random() * (max - min + 1)) },
      () => LETTERS[Math.floor(random() * (round % 2 === 0 ? 3 : LETTERS.length))]!).join('');
    const vocabulary = new Vocabulary();
    let docId = 0;
    const addWord = (word: string) => vocabulary.addDocument(vocabulary.intern(word), docId++);
    const words: string[] = [];
    for (let k = 0; k < 300; k++) words.push(randomWord(3, 22));
    // Half of the words before the filter is made, half after (the filter is told of each word added).
    words.slice(0, 150).forEach((word, k) => addWord(k % 10 === 0 ? exactAttributeKey(word) : word));
    const early = vocabulary.lexicon.nearPrefixFilter();
    words.slice(150).forEach((word, k) => addWord(k % 10 === 0 ? exactAttributeKey(word) : word));
    const filter = vocabulary.lexicon.nearPrefixFilter();
    t.is(filter, early, 'the filter made before the later words were added is the one asked');
    let nos = 0;
    let derived = 0;
    for (let k = 0; k < 1500; k++) {
      const roll = random();
      const base = words[Math.floor(random() * words.length)]!;
      const query = roll < 0.3 ? mutate(random, LETTERS, base, 1) : roll < 0.5 ? mutate(random, LETTERS, base, 2)
        : roll < 0.7 ? base + words[Math.floor(random() * words.length)]! : roll < 0.8 ? base.slice(0, 1 + Math.floor(random() * base.length)) : randomWord(6, 20);
      for (const budget of [0, 1]) {
        const maybe = filter.mayDerive(query, budget);
        if (!maybe) nos++;
        for (const isPrefix of [false, true]) {
          const found = deriveWordIds(vocabulary, query, isPrefix, budget).flat();
          if (found.length > 0) derived++;
          if (!maybe) t.deepEqual(found.map((id) => vocabulary.wordOf(id)), [], `${JSON.stringify(query)} budget ${budget} prefix ${isPrefix}`);
        }
      }
    }
    t.true(nos > 300, `the filter said no ${nos} times`);
    t.true(derived > 300, `derivations found ${derived} times`);
  });
}

const PARTS = ['moonlight', 'garden', 'sunflower', 'starfish', 'ocean', 'rainbows', 'fire', 'bright', 'light'];
/** Query words no document holds (their n-grams are what the filter proves absent). */
const ABSENT = ['quantum', 'zeppelin', 'marble', 'velvet'];

for (let round = 0; round < 4; round++) {
  test(`searches answer alike with and without the near-prefix filter (round ${round})`, (t) => {
    const random = randomFrom(5300 + round);
    // Round 2: two typos from 5 letters (more n-grams at one typo); round 3: no typos on the titles (words under a mark).
    const settings = typoRoundSettings(round, 5);
    const withFilter = new ShardIndex(compileIndexConfig(settings));
    const without = new ShardIndex(compileIndexConfig(settings));
    without.nearPrefixFilter = false;
    // Words, their concatenations and their concatenations with one edit (what an n-gram derives).
    const word = () => {
      const a = PARTS[Math.floor(random() * PARTS.length)]!;
      const b = PARTS[Math.floor(random() * PARTS.length)]!;
      const roll = random();
      return roll < 0.5 ? a : roll < 0.75 ? a + b : mutate(random, LETTERS, a + b, 1).replace(/[^a-z]/g, 'x');
    };
    const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
    for (let docId = 0; docId < 400; docId++) {
      const document = { id: docId, title: text(3), body: text(10) };
      withFilter.upsert(docId, document);
      without.upsert(docId, document);
      // The filter is made by the first searches, then told of the words written after them.
      if (docId === 200) withFilter.search({ q: 'moonlight garden sunflower', hitsWanted: 5, matchingStrategy: 'last' });
    }
    let skipped = 0;
    for (let k = 0; k < 80; k++) {
      const count = 2 + Math.floor(random() * 2);
      const q = Array.from({ length: count }, () => {
        const part = random() < 0.3 ? ABSENT[Math.floor(random() * ABSENT.length)]! : PARTS[Math.floor(random() * PARTS.length)]!;
        return random() < 0.3 ? mutate(random, LETTERS, part, 1).replace(/[^a-z]/g, 'y') : part;
      }).join(' ') + (random() < 0.5 ? ' ' : '');
      const words = q.trim().split(' ');
      for (let at = 0; at + 1 < words.length; at++) if (!withFilter.mayDeriveSome(words[at]! + words[at + 1]!, 1)) skipped++;
      const hitsWanted = 1 + Math.floor(random() * 30);
      const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
      const a = withFilter.search({ q, hitsWanted, matchingStrategy });
      const b = without.search({ q, hitsWanted, matchingStrategy });
      t.deepEqual(a.hits, b.hits, `q=${JSON.stringify(q)} ${matchingStrategy}`);
      t.is(a.candidates, b.candidates);
    }
    t.true(skipped > 10, `n-grams the filter skipped: ${skipped}`);
  });
}
