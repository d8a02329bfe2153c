// The keys of a short prefix's pair table (prefix-pair-tables.ts): a slotted (frequent) word standing
// in one of three relations to one of the prefix's rare words. Apart from the tables themselves so
// that the build helper thread's pass (near-pair-pass.ts) loads no roaring.

/** Relations of a frequent word to a rare word of the prefix; a table key is slot * RELATIONS + relation. */
export const WORD_THEN_PREFIX_GAP_1 = 0;
export const WORD_THEN_PREFIX_GAP_2 = 1;
export const PREFIX_THEN_WORD_GAP_1 = 2;
export const RELATIONS = 3;

/** A prefix table's key for a slotted word standing in `relation` to one of the prefix's rare words. */
export function prefixTableKey(slot: number, relation: number): number {
  return slot * RELATIONS + relation;
}

export function prefixTableKeySpace(slotCount: number): number {
  return slotCount * RELATIONS;
}
