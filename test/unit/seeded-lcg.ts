// The unit tests' seeded random numbers in [0, 1): a linear congruential generator, so that a
// randomized test draws the same cases on every run and a failure can be replayed from its seed.
export function randomFrom(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}
