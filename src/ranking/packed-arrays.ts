// Arrays of one element kind whichever tier made them. V8's Array.prototype.map returns a packed array
// from its builtin but a holey one once TurboFan inlines it into an optimized caller: every function
// reading such arrays (a search's terms, rules, posting lists) then met a second map in the first
// seconds after a load, was deoptimized ("wrong map") and compiled again on V8's background threads.
// mapPacked builds by push into a literal: a packed array in every tier.

/** `items.map(f)` as a packed array (never holey). */
export function mapPacked<T, U>(items: readonly T[], f: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let index = 0; index < items.length; index++) out.push(f(items[index]!, index));
  return out;
}
