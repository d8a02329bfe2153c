// The one normalizer of words, used at indexing AND query time so both sides compare equal:
// lowercase, canonical decomposition, then removal of nonspacing marks (é -> e, ñ -> n).

const NONSPACING_MARKS = /\p{Mn}/gu;
const PLAIN_ASCII = /^[\x00-\x7f]*$/;

export function normalizeWord(word: string): string {
  if (PLAIN_ASCII.test(word)) return word.toLowerCase();
  return word.toLowerCase().normalize('NFD').replace(NONSPACING_MARKS, '');
}
