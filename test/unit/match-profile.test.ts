// Packed occurrences (match-profile.ts): every accessor gives back what was packed, at the extremes of
// each part too (the accessors avoid `%` on doubles, so they are held to the packing here).
import test from 'ava';
import { occurrenceField, occurrenceIsExact, occurrencePosition, occurrenceRank, occurrenceSpan, occurrenceTypos, packOccurrence } from '../../src/ranking/match-profile.js';
import { randomFrom } from './seeded-lcg.js';

test('accessors give back the field, position, rank, typos, exactness and span packed', (t) => {
  const random = randomFrom(77);
  const extremes = [0, 1, 2, 0x7fff, 0xfffe, 0xffff];
  const pick = () => (random() < 0.3 ? extremes[Math.floor(random() * extremes.length)]! : Math.floor(random() * 0x10000));
  for (let round = 0; round < 20_000; round++) {
    const field = pick();
    const position = pick();
    const rank = pick();
    const typos = Math.floor(random() * 3);
    const exact = random() < 0.5;
    const span = Math.floor(random() * 4);
    const occurrence = packOccurrence(field, position, rank, typos, exact, span);
    t.true(Number.isSafeInteger(occurrence));
    const unpacked = [occurrenceField(occurrence), occurrencePosition(occurrence), occurrenceRank(occurrence), occurrenceTypos(occurrence),
      occurrenceIsExact(occurrence), occurrenceSpan(occurrence)];
    t.deepEqual(unpacked, [field, position, rank, typos, exact, span], `round ${round}`);
  }
  // Ranks above 16 bits are capped.
  t.is(occurrenceRank(packOccurrence(3, 4, 1 << 20, 1, false)), 0xffff);
  // Spans above MAX_OCCURRENCE_SPAN are capped; the largest occurrence stays a safe integer.
  t.is(occurrenceSpan(packOccurrence(3, 4, 5, 1, false, 9)), 3);
  t.true(Number.isSafeInteger(packOccurrence(0xffff, 0xffff, 0xffff, 2, false, 3)));
});
