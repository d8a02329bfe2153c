// orderByScores (score-order.ts) against its definition: indices by ascending score vectors
// (lexicographic), then index; the best `needed` only. Packed keys and the comparator path alike.
import test from 'ava';
import { orderByScores } from '../../src/ranking/scores/score-order.js';
import { randomFrom } from './seeded-lcg.js';

function reference(scores: Float64Array, width: number, count: number, needed: number): number[] {
  const indices = Array.from({ length: count }, (_, i) => i);
  indices.sort((a, b) => {
    for (let r = 0; r < width; r++) {
      const difference = scores[a * width + r]! - scores[b * width + r]!;
      if (difference !== 0) return difference;
    }
    return a - b;
  });
  return indices.slice(0, Math.min(needed, count));
}

test('the order of score vectors, whatever their values and the number wanted', (t) => {
  const random = randomFrom(3);
  // Small integer ranges (packed keys), wide ones (too many bits: the comparator), fractions, the
  // timed-out score, negative and constant columns.
  const columns = [
    () => Math.floor(random() * 4),
    () => Math.floor(random() * 70),
    () => 7,
    () => -Math.floor(random() * 3),
    () => (random() < 0.05 ? 2 ** 31 : Math.floor(random() * 12)),
    () => Math.floor(random() * 2 ** 40),
    () => random(),
  ];
  for (let round = 0; round < 600; round++) {
    const width = 1 + Math.floor(random() * 4);
    const kinds = Array.from({ length: width }, () => columns[Math.floor(random() * (round % 3 === 0 ? columns.length : 5))]!);
    const count = Math.floor(random() * (random() < 0.1 ? 3000 : 300));
    const scores = new Float64Array(count * width);
    for (let i = 0; i < count; i++) for (let r = 0; r < width; r++) scores[i * width + r] = kinds[r]!();
    const needed = random() < 0.3 ? Infinity : Math.floor(random() * 40);
    const before = Float64Array.from(scores);
    t.deepEqual([...orderByScores(scores, width, count, needed)], reference(scores, width, count, needed), `round ${round}`);
    t.deepEqual(scores, before);
  }
});
