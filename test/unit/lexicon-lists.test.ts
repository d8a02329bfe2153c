// The lexicon's lists (words/lexicon.ts): up to three disjoint sorted lists whose union is the lexicon,
// oldest and largest first. A write slice adds a few words between two searches: those go to the fresh
// list alone, so the older lists (and the memos made over them, remade whenever a list changes) stay
// as they were; the snapshot's merged order (Vocabulary.exportState) is the sorted union.
import test from 'ava';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';
import { randomFrom } from './seeded-lcg.js';
import { randomLexicon } from './random-edits.js';

function checkLists(t: { fail: (message: string) => void; pass: () => void }, lists: readonly (readonly string[])[], expected: readonly string[], label: string): void {
  if (lists.length < 1 || lists.length > 3) return t.fail(`${label}: ${lists.length} lists`);
  for (const list of lists) {
    for (let k = 1; k < list.length; k++) if (!(list[k - 1]! < list[k]!)) return t.fail(`${label}: a list out of order at ${k}`);
  }
  const union = lists.flat().sort();
  if (JSON.stringify(union) !== JSON.stringify(expected)) return t.fail(`${label}: the lists' union differs from the words (${union.length} / ${expected.length})`);
  t.pass();
}

for (let round = 0; round < 4; round++) {
  test(`the lexicon's lists stay sorted, disjoint and whole under interleaved additions (round ${round})`, (t) => {
    const random = randomFrom(4100 + round);
    const words = [...new Set(randomLexicon(random, ['a', 'b', 'c', 'd', 'e'], 30_000))];
    const vocabulary = new Vocabulary();
    const added: string[] = [];
    let at = 0;
    while (at < words.length) {
      // Slices of a few words (a write slice) to a few thousand (a bulk payload).
      const count = random() < 0.8 ? 1 + Math.floor(random() * 60) : 1 + Math.floor(random() * 4000);
      for (const word of words.slice(at, at + count)) {
        vocabulary.addDocument(vocabulary.intern(word), added.length);
        added.push(word);
      }
      at += count;
      if (random() < 0.7) checkLists(t, vocabulary.lexicon.lists(), [...added].sort(), `after ${added.length} words`);
    }
    const state = vocabulary.exportState();
    t.deepEqual([...state.sortedIds].map((id) => state.words[id]), [...added].sort());
  });
}

test('a few words added leave every list but the fresh one as it was (the memos over them hold)', (t) => {
  const random = randomFrom(4200);
  const words = [...new Set(randomLexicon(random, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 40_000))];
  t.true(words.length >= 33_600);
  const vocabulary = new Vocabulary();
  const add = (from: number, to: number) => {
    for (let k = from; k < to; k++) vocabulary.addDocument(vocabulary.intern(words[k]!), k);
  };
  // 30,000 words merged into the sorted list, then 3,000 into the pending one (under an eighth of 30,000).
  add(0, 30_000);
  vocabulary.lexicon.lists();
  add(30_000, 33_000);
  const [sorted, pending] = vocabulary.lexicon.lists();
  t.is(vocabulary.lexicon.lists().length, 2);
  // Write slices of 40 words: each only grows the fresh list, until it holds an eighth of the pending list.
  let slices = 0;
  for (let from = 33_000; from + 40 <= 33_000 + 360; from += 40) {
    add(from, from + 40);
    const lists = vocabulary.lexicon.lists();
    t.is(lists.length, 3);
    t.is(lists[0], sorted);
    t.is(lists[0]!.length, 30_000);
    t.is(lists[1], pending);
    t.is(lists[1]!.length, 3_000);
    t.is(lists[2]!.length, from + 40 - 33_000);
    slices++;
  }
  t.is(slices, 9);
  // Past its bounds (512 words, an eighth of the pending list), the fresh list joins the pending one.
  add(33_360, 33_600);
  const lists = vocabulary.lexicon.lists();
  t.is(lists.length, 2);
  t.is(lists[0], sorted);
  t.is(lists[1]!.length, 3_600);
});
