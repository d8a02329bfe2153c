// A shard's interned words: word -> id in an open-addressing table, keyed by the word's hash
// (analysis/word-hash.ts). The indexing tokenizer looks a word up straight from the text it is in
// (findAsciiLower), so a known word costs no string and no Map lookup; ids are dense from 0.
// Each slot also holds the word's prefix (wordPrefix: first units and length, which the tokenizer
// folds while it scans), so a word of up to PREFIX_UNITS characters (most words) is recognized
// without reading any character again: comparing characters was most of a lookup's cost.
import { asciiLower, PREFIX_UNITS, wordHash, wordPrefix } from '../../analysis/word-hash.js';

const INITIAL_CAPACITY = 1 << 12;
/** Integers per slot. */
const SLOT = 4;
/** Share of the slots used at most (linear probing stays short; 16 bytes a slot make slack costly). */
const MAX_LOAD = 0.7;

export class WordTable {
  /**
   * Per slot, side by side (one cache line for a probe): word id + 1 (0 = empty), the word's hash and
   * its two prefix integers. At most MAX_LOAD of the slots used.
   */
  private slots = new Int32Array(INITIAL_CAPACITY * SLOT);
  private shift = 32 - Math.log2(INITIAL_CAPACITY);
  /** Per word id: its hash (to rebuild the slots). */
  private hashes = new Int32Array(INITIAL_CAPACITY / 2);
  readonly words: string[] = [];

  get size(): number {
    return this.words.length;
  }

  get(word: string): number | undefined {
    const hash = wordHash(word);
    const slots = this.slots;
    const mask = slots.length / SLOT - 1;
    for (let slot = this.home(hash); ; slot = (slot + 1) & mask) {
      const entry = slots[slot * SLOT]!;
      if (entry === 0) return undefined;
      if (slots[slot * SLOT + 1] === hash && this.words[entry - 1] === word) return entry - 1;
    }
  }

  /**
   * The id of the lowercase of text[start, end) (ASCII), -1 when absent; `hash` and `low`/`high` are
   * that lowercase's wordHash and wordPrefix.
   */
  findAsciiLower(text: string, start: number, end: number, hash: number, low: number, high: number): number {
    const slots = this.slots;
    const mask = slots.length / SLOT - 1;
    const length = end - start;
    for (let slot = this.home(hash); ; slot = (slot + 1) & mask) {
      const at = slot * SLOT;
      const entry = slots[at]!;
      if (entry === 0) return -1;
      if (slots[at + 1] !== hash || slots[at + 2] !== low || slots[at + 3] !== high) continue;
      const id = entry - 1;
      if (length <= PREFIX_UNITS) return id;
      const word = this.words[id]!;
      if (word.length !== length) continue;
      let k = PREFIX_UNITS;
      while (k < length && word.charCodeAt(k) === asciiLower(text.charCodeAt(start + k))) k++;
      if (k === length) return id;
    }
  }

  /** Adds a word known to be absent; returns its id. `hash` must be wordHash(word). */
  add(word: string, hash = wordHash(word)): number {
    if ((this.words.length + 1) * SLOT > this.slots.length * MAX_LOAD) this.grow();
    const id = this.words.length;
    this.words.push(word);
    if (id >= this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[id] = hash;
    this.place(id, hash);
    return id;
  }

  /** Makes room for `count` words in all without growing on the way (a restore adds every word at once). */
  reserve(count: number): void {
    let capacity = this.slots.length / SLOT;
    while (count * SLOT > capacity * SLOT * MAX_LOAD) capacity *= 2;
    if (capacity * SLOT > this.slots.length) {
      this.shift -= Math.log2(capacity * SLOT / this.slots.length);
      this.slots = new Int32Array(capacity * SLOT);
      for (let id = 0; id < this.words.length; id++) this.place(id, this.hashes[id]!);
    }
    if (count > this.hashes.length) {
      const hashes = new Int32Array(count);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
  }

  /** Fibonacci hashing: the top bits of hash * 2^32/phi (FNV's low bits alone cluster). */
  private home(hash: number): number {
    return Math.imul(hash, 0x9e3779b1) >>> this.shift;
  }

  private place(id: number, hash: number): void {
    const slots = this.slots;
    const mask = slots.length / SLOT - 1;
    let slot = this.home(hash);
    while (slots[slot * SLOT] !== 0) slot = (slot + 1) & mask;
    const [low, high] = wordPrefix(this.words[id]!);
    const at = slot * SLOT;
    slots[at] = id + 1;
    slots[at + 1] = hash;
    slots[at + 2] = low;
    slots[at + 3] = high;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    this.shift--;
    for (let id = 0; id < this.words.length; id++) this.place(id, this.hashes[id]!);
  }
}
