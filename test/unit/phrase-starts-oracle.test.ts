// phraseStarts (match-profile-builder.ts: one forward scan per start, on the tokens' field-then-position
// order) held to the plain definition on random documents and phrases: a start is the key of a token of
// the first word such that every later word i (null: any word) has a token at key + i in the same field,
// in token order, each start once per such token. Repeated words, stop-word gaps, several fields,
// positions near the field's 16-bit limit and long phrases of one word (the hostile "the the the ...")
// are all drawn.
import test from 'ava';
import { ForwardIndex, tokenCountAt, tokensStartAt } from '../../src/shard/documents/forward-index.js';
import { documentHasPhrase, phraseStarts } from '../../src/shard/documents/match-profile-builder.js';

function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n;
}

/** The definition, over the document's tokens as stored. */
function definedStarts(data: Uint32Array, offset: number, wordIds: (number | null)[]): number[] {
  const start = tokensStartAt(data, offset);
  const tokens = Array.from({ length: tokenCountAt(data, offset) }, (_, k) => ({ wordId: data[start + k * 2]!, key: data[start + k * 2 + 1]! }));
  const has = (wordId: number, key: number) => tokens.some((token) => token.wordId === wordId && token.key === key);
  return tokens.filter((token) => token.wordId === wordIds[0] && wordIds.every((wordId, i) =>
    i === 0 || wordId === null || ((token.key & 0xffff) + i <= 0xffff && has(wordId, token.key + i)))).map((token) => token.key);
}

test('phraseStarts = the plain definition on random documents and phrases', (t) => {
  const next = random(19);
  let starts = 0;
  for (let round = 0; round < 400; round++) {
    const forward = new ForwardIndex();
    const vocabularySize = 1 + next(4);
    const fieldCount = 1 + next(3);
    const tokens = { fieldRanks: [] as number[], wordIds: [] as number[], fields: [] as number[], positions: [] as number[] };
    for (let field = 0; field < fieldCount; field++) {
      tokens.fieldRanks.push(field);
      // Some fields start near the 16-bit position limit, so a phrase would run past it.
      let position = next(5) === 0 ? 0xffff - next(6) : next(3);
      for (let k = 0, count = next(40); k < count && position <= 0xffff; k++) {
        tokens.wordIds.push(next(vocabularySize));
        tokens.fields.push(field);
        tokens.positions.push(position);
        // Next word, a stop word's gap, or a hard separator's.
        position += [1, 1, 1, 2, 8][next(5)]!;
      }
    }
    forward.put(7, tokens);
    const offset = forward.offsetOf(7);
    for (let p = 0; p < 20; p++) {
      const length = next(4) === 0 ? 2 + next(200) : 1 + next(5);
      const word = next(vocabularySize);
      const phrase = Array.from({ length }, (_, i) => (i > 0 && next(5) === 0 ? null : next(3) === 0 ? word : next(vocabularySize)));
      const expected = definedStarts(forward.arena, offset, phrase);
      starts += expected.length;
      t.deepEqual(phraseStarts(forward.arena, offset, phrase), expected, JSON.stringify({ tokens, phrase }));
      t.deepEqual(phraseStarts(forward.arena, offset, phrase, true), expected.slice(0, 1));
      t.is(documentHasPhrase(forward, 7, phrase), expected.length > 0);
    }
  }
  t.true(starts > 500, `phrases found: ${starts}`);
});
