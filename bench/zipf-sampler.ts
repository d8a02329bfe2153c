// Zipf's law: the word of rank r (1-based) has probability proportional to 1 / r^s. Natural text
// follows it with s close to 1, which gives search engines their typical shape: a few huge posting
// lists (the, of, and) and a long tail of rare words.
import type { SeededRandom } from './seeded-random.js';

export class ZipfSampler {
  /** cumulative[i] = P(rank <= i), 0-based ranks; the last entry is exactly 1. */
  private readonly cumulative: Float64Array;

  constructor(readonly size: number, readonly exponent: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`Zipf size must be a positive integer, got ${size}`);
    if (!(exponent >= 0)) throw new RangeError(`Zipf exponent must be >= 0, got ${exponent}`);
    this.cumulative = new Float64Array(size);
    let total = 0;
    for (let rank = 0; rank < size; rank++) {
      total += 1 / Math.pow(rank + 1, exponent);
      this.cumulative[rank] = total;
    }
    for (let rank = 0; rank < size; rank++) this.cumulative[rank] /= total;
    this.cumulative[size - 1] = 1;
  }

  /** Probability of the 0-based rank. */
  probabilityOf(rank: number): number {
    return this.cumulative[rank] - (rank === 0 ? 0 : this.cumulative[rank - 1]);
  }

  /** A 0-based rank; rank 0 is the most frequent. */
  sample(random: SeededRandom): number {
    const target = random.next();
    let low = 0;
    let high = this.size - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.cumulative[middle] > target) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
