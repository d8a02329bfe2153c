// A word with `edits` random edits (insertion, deletion, substitution, adjacent transposition) of
// letters from `letters`: the near words randomized lexicon tests build families from.
export function mutate(random: () => number, letters: readonly string[], word: string, edits: number): string {
  let out = word;
  for (let k = 0; k < edits; k++) {
    const at = Math.floor(random() * (out.length + 1));
    const letter = letters[Math.floor(random() * letters.length)]!;
    const roll = random();
    if (roll < 0.25) out = out.slice(0, at) + letter + out.slice(at);
    else if (roll < 0.5) out = out.slice(0, at) + out.slice(at + 1);
    else if (roll < 0.75) out = out.slice(0, at) + letter + out.slice(at + 1);
    else if (at + 1 < out.length) out = out.slice(0, at) + out[at + 1]! + out[at]! + out.slice(at + 2);
  }
  return out;
}
