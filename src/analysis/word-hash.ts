// A 32-bit hash of a word's UTF-16 units (FNV-1a), shared by the indexing tokenizer and the shard's
// word table: the tokenizer hashes a word while it scans it, so the table can find a known word
// straight from the text it is in, without a string made for it (tokenize-ids.ts, shard/word-table.ts).

export const WORD_HASH_SEED = 0x811c9dc5 | 0;

/** The hash of `hash`'s units followed by `unit`. */
export function extendWordHash(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, 0x01000193);
}

export function wordHash(word: string): number {
  let hash = WORD_HASH_SEED;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash;
}

/** The unit's lowercase when it is an ASCII capital (String.prototype.toLowerCase on ASCII), else itself. */
export function asciiLower(unit: number): number {
  return unit - 65 >>> 0 < 26 ? unit + 32 : unit;
}

/** Units a word's prefix integers hold: 4 in the first, 3 in the second (whose top byte is the length). */
export const PREFIX_UNITS = 7;

/** The first prefix integer of a word with a non-ASCII unit among its first PREFIX_UNITS (no ASCII word has it). */
export const NOT_ASCII_PREFIX = -1;

/**
 * A word's first units and length packed in two integers: units 0-3 folded (x << 8 | unit) into the
 * first, units 4-6 into the second, whose top byte is min(length, 255). Two ASCII words of at most
 * PREFIX_UNITS units are equal exactly when their prefixes are (no word holds a NUL). The indexing
 * tokenizer folds them while it scans (tokenize-ids.ts); the word table keeps them per word.
 */
export function wordPrefix(word: string): [number, number] {
  let low = 0;
  let high = 0;
  const packed = Math.min(word.length, PREFIX_UNITS);
  for (let k = 0; k < packed; k++) {
    const unit = word.charCodeAt(k);
    if (unit >= 128) return [NOT_ASCII_PREFIX, 0];
    if (k < 4) low = (low << 8) | unit;
    else high = (high << 8) | unit;
  }
  return [low, high | (Math.min(word.length, 255) << 24)];
}
