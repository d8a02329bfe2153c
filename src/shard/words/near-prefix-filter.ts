// A filter that proves a word has no derivation at zero or one typo without walking the lexicon: most
// n-grams (two or three query words joined, shard-search.ts ngramAlternatives) are no word of the
// shard, and their walks found nothing in 93-97% of the cases while costing a fifth of a multi-word
// query. Pigeonhole on the first L letters: if a prefix X of a word V is within one edit (optimal string
// alignment: substitution, insertion, deletion, adjacent swap) of a query W of n >= L + 1 letters, then
// V[0, L) and W[0, L) are equal or become equal by deleting one letter from each (a substitution or swap
// inside them, a deletion or insertion shifting the rest by one: then each loses its own last letter or
// the edited one). So the filter holds, for every word V of the lexicon and every L in [NEAR_PREFIX_MIN,
// min(|V|, NEAR_PREFIX_MAX)], the key of V[0, L) and the keys of its L one-letter deletions (tagged
// apart), as bits of a Bloom filter: a query probes its L-prefix and that prefix's deletions (L = n - 1,
// at most NEAR_PREFIX_MAX; zero typos: its n-prefix alone, so prefixes from SHORT_PREFIX_MIN letters are
// keyed too, without their deletions), and no bit missing is a proof. Keys are
// polynomial hashes (mod 2^32) of the prefix, a deletion's computed from the prefix hashes without
// making strings. Bits are only ever set (a word leaving the shard stays a false "maybe"), so the
// filter never forgets a word: its answers are held to the walks by test/unit/near-prefix-filter.test.ts.

import { HASH_BASE, hashPowers, mixKey } from './prefix-hash.js';

/** Shortest prefix keyed with its deletions: a query word at one typo needs one letter more. */
export const NEAR_PREFIX_MIN = 8;
/** Shortest prefix keyed alone (no deletions): what a word at zero typos needs. */
export const SHORT_PREFIX_MIN = 4;
/** Longest prefix the filter keys (a longer query probes its first NEAR_PREFIX_MAX letters). */
export const NEAR_PREFIX_MAX = 16;
/** Bits per key inserted (two probes a key: about 0.6% false "maybe" at 16, 1.3% at 12). */
const BITS_PER_KEY = 12;
const MARK = '\u0001\u0001';

/** HASH_BASE^k mod 2^32. Keys are mixKey(hash of a prefix of L letters, 2L) and mixKey(hash of one of its deletions, 2L + 1). */
const POWERS = hashPowers(NEAR_PREFIX_MAX);

/**
 * Owner: the shard's Lexicon (made on the first query that asks, from its lists; told of each word added
 * after that; dropped when the lexicon is reset or adopts other words (restored with a snapshot's:
 * snapshot/lexicon-snapshot.ts), or once it holds more keys
 * than its bits were sized for). Size: BITS_PER_KEY bits per key inserted, rounded up to a power of two
 * (100,000 npm rows: 52,000 words, 800,000 keys, 1 MiB).
 */
export class NearPrefixFilter {
  private readonly bits: Int32Array;
  private readonly mask: number;
  private keys = 0;
  /** Prefix hashes of the word being added or probed (scratch). */
  private readonly prefixHashes = new Int32Array(NEAR_PREFIX_MAX + 1);

  /** A filter sized for `expectedKeys`, or over `bits` already set (fromState). */
  constructor(expectedKeys: number, bits: Int32Array | null = null) {
    let size = 1 << 16;
    if (bits !== null) size = 32 * bits.length;
    else while (size < expectedKeys * BITS_PER_KEY && size < 1 << 30) size *= 2;
    this.bits = bits ?? new Int32Array(size >>> 5);
    this.mask = size - 1;
  }

  /** The filter as it is, for a snapshot (snapshot/lexicon-snapshot.ts): its bits themselves (no copy) and how many keys set them. */
  exportState(): { bits: Int32Array; keys: number } {
    return { bits: this.bits, keys: this.keys };
  }

  /** The filter exportState gave (its bits adopted); throws an Error when they are no filter's. */
  static fromState(state: { bits: Int32Array; keys: number }): NearPrefixFilter {
    const { bits, keys } = state;
    if (bits.length < 1 << 11 || bits.length > 1 << 25 || (bits.length & (bits.length - 1)) !== 0 || !Number.isInteger(keys) || keys < 0) throw new Error('near-prefix filter sizes');
    const filter = new NearPrefixFilter(0, bits);
    filter.keys = keys;
    return filter;
  }

  /** Keys the words would add (to size a filter before adding them). */
  static keysOf(words: Iterable<string>): number {
    let keys = 0;
    for (const word of words) {
      const length = Math.min(word.startsWith(MARK) ? word.length - MARK.length : word.length, NEAR_PREFIX_MAX);
      // Prefixes L = MIN..length, each itself and its L deletions; shorter ones from SHORT_PREFIX_MIN alone.
      for (let L = NEAR_PREFIX_MIN; L <= length; L++) keys += L + 1;
      keys += Math.max(0, Math.min(length + 1, NEAR_PREFIX_MIN) - SHORT_PREFIX_MIN);
    }
    return keys;
  }

  get byteLength(): number {
    return this.bits.byteLength;
  }

  /** Whether the filter still answers well with this many keys (else make a bigger one). */
  get full(): boolean {
    return this.keys * BITS_PER_KEY > 2 * (this.mask + 1);
  }

  /** Adds a word of the lexicon (a word of typo-disabled attributes under its plain spelling: a superset). */
  add(word: string): void {
    const start = word.startsWith(MARK) ? MARK.length : 0;
    const length = Math.min(word.length - start, NEAR_PREFIX_MAX);
    if (length < SHORT_PREFIX_MIN) return;
    const hashes = this.prefixHashes;
    for (let k = 0; k < length; k++) hashes[k + 1] = Math.imul(hashes[k]!, HASH_BASE) + word.charCodeAt(start + k) | 0;
    for (let L = SHORT_PREFIX_MIN; L < NEAR_PREFIX_MIN && L <= length; L++) {
      this.set(mixKey(hashes[L]!, 2 * L));
      this.keys++;
    }
    for (let L = NEAR_PREFIX_MIN; L <= length; L++) {
      this.set(mixKey(hashes[L]!, 2 * L));
      for (let at = 0; at < L; at++) this.set(mixKey(deletionHash(hashes, L, at), 2 * L + 1));
      this.keys += L + 1;
    }
  }

  /**
   * False only when no word of the lexicon (nor its typo-disabled spelling) is `word`, starts with it
   * (isPrefix) or is within `budget` edits of it or of a prefix of it (isPrefix): deriveWordIds would
   * find no word. True when it may (or the filter cannot tell: a short word, a budget over one).
   */
  mayDerive(word: string, budget: number): boolean {
    const n = word.length;
    if (budget > 1) return true;
    const L = Math.min(budget === 0 ? n : n - 1, NEAR_PREFIX_MAX);
    if (L < (budget === 0 ? SHORT_PREFIX_MIN : NEAR_PREFIX_MIN)) return true;
    const hashes = this.prefixHashes;
    for (let k = 0; k < L; k++) hashes[k + 1] = Math.imul(hashes[k]!, HASH_BASE) + word.charCodeAt(k) | 0;
    if (this.has(mixKey(hashes[L]!, 2 * L))) return true;
    if (budget === 0) return false;
    for (let at = 0; at < L; at++) if (this.has(mixKey(deletionHash(hashes, L, at), 2 * L + 1))) return true;
    return false;
  }

  private set(key: number): void {
    const first = key & this.mask;
    const second = secondProbe(key) & this.mask;
    this.bits[first >>> 5]! |= 1 << (first & 31);
    this.bits[second >>> 5]! |= 1 << (second & 31);
  }

  private has(key: number): boolean {
    const first = key & this.mask;
    if ((this.bits[first >>> 5]! & (1 << (first & 31))) === 0) return false;
    const second = secondProbe(key) & this.mask;
    return (this.bits[second >>> 5]! & (1 << (second & 31))) !== 0;
  }
}

/** Hash of the first L letters without the one at `at`, from the prefix hashes (see the header). */
function deletionHash(hashes: Int32Array, L: number, at: number): number {
  return Math.imul(hashes[at]! - hashes[at + 1]!, POWERS[L - 1 - at]!) + hashes[L]! | 0;
}


function secondProbe(key: number): number {
  const h = Math.imul(key ^ (key >>> 15), 0x2c1b3c6d);
  return h ^ (h >>> 12) ^ (h >>> 25);
}
