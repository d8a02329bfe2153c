import test from 'ava';
import { SeededRandom } from '../../bench/seeded-random.js';
import { ZipfSampler } from '../../bench/zipf-sampler.js';

test('probabilities sum to 1 and fall as 1/rank^s', (t) => {
  const sampler = new ZipfSampler(1000, 1);
  let total = 0;
  for (let rank = 0; rank < 1000; rank++) total += sampler.probabilityOf(rank);
  t.true(Math.abs(total - 1) < 1e-9);
  t.true(Math.abs(sampler.probabilityOf(0) / sampler.probabilityOf(9) - 10) < 1e-6);
});

test('sampled frequencies follow Zipf: log-log slope close to -s', (t) => {
  const sampler = new ZipfSampler(10_000, 1);
  const random = new SeededRandom(11);
  const counts = new Uint32Array(10_000);
  for (let i = 0; i < 500_000; i++) counts[sampler.sample(random)]++;
  t.true(Math.abs(counts[0] / counts[1] - 2) < 0.1, `rank1/rank2 = ${counts[0] / counts[1]}`);
  // Least squares over ranks 1..100, where counts are large enough to be stable.
  const points = Array.from({ length: 100 }, (_, rank) => [Math.log(rank + 1), Math.log(counts[rank])]);
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const slope =
    points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0) / points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  t.true(Math.abs(slope + 1) < 0.05, `slope ${slope}`);
});

test('samples stay within the ranks', (t) => {
  const sampler = new ZipfSampler(5, 2);
  const random = new SeededRandom(2);
  for (let i = 0; i < 1000; i++) {
    const rank = sampler.sample(random);
    t.true(rank >= 0 && rank < 5);
  }
});

test('rejects a size below 1', (t) => {
  t.throws(() => new ZipfSampler(0, 1), { instanceOf: RangeError });
});
