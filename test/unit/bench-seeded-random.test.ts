import test from 'ava';
import { SeededRandom, deriveSeed } from '../../bench/seeded-random.js';

const draw = (random: SeededRandom, count: number) => Array.from({ length: count }, () => random.next());

test('the same seed gives the same sequence', (t) => {
  t.deepEqual(draw(new SeededRandom(7), 100), draw(new SeededRandom(7), 100));
});

test('different seeds give different sequences', (t) => {
  t.notDeepEqual(draw(new SeededRandom(7), 10), draw(new SeededRandom(8), 10));
});

test('next() stays in [0, 1) and int() in its inclusive bounds', (t) => {
  const random = new SeededRandom(1);
  const seen = new Set<number>();
  for (let i = 0; i < 10_000; i++) {
    const value = random.next();
    t.true(value >= 0 && value < 1);
    const integer = random.int(3, 8);
    t.true(integer >= 3 && integer <= 8 && Number.isInteger(integer));
    seen.add(integer);
  }
  t.deepEqual([...seen].sort(), [3, 4, 5, 6, 7, 8]);
});

test('weightedIndex follows the weights and never picks a zero weight', (t) => {
  const random = new SeededRandom(3);
  const counts = [0, 0, 0];
  for (let i = 0; i < 30_000; i++) counts[random.weightedIndex([1, 0, 3])]++;
  t.is(counts[1], 0);
  t.true(Math.abs(counts[2] / counts[0] - 3) < 0.25, `ratio ${counts[2] / counts[0]}`);
});

test('deriveSeed is stable and separates its parts', (t) => {
  t.is(deriveSeed(42, 'title', 1), deriveSeed(42, 'title', 1));
  const seeds = new Set([deriveSeed(42, 'title', 1), deriveSeed(42, 'title', 2), deriveSeed(42, 'overview', 1), deriveSeed(43, 'title', 1)]);
  t.is(seeds.size, 4);
});
