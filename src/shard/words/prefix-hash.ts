// The polynomial prefix hashes the lexicon's filters and indexes key words by (near-prefix-filter.ts,
// deletion-index.ts): h(first k letters) over HASH_BASE mod 2^32, and a key mixed from a hash and a tag.
// Constants only: no state.

export const HASH_BASE = 0x01000193;

/** HASH_BASE^k mod 2^32 for k = 0..max. */
export function hashPowers(max: number): Int32Array {
  const powers = new Int32Array(max + 1);
  powers[0] = 1;
  for (let k = 1; k <= max; k++) powers[k] = Math.imul(powers[k - 1]!, HASH_BASE);
  return powers;
}

/** The key of a hash under a tag (what the hash is of: a prefix length, a deletion), mixed by murmur3's finalizer. */
export function mixKey(hash: number, tag: number): number {
  let h = hash ^ Math.imul(tag, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
