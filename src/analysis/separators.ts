// Character classes of the tokenizer (search-semantics reference §1). A soft separator puts the next
// word 1 position further, a hard one 8 positions further (different sentence: proximity gives up).
// Seam for the settings separatorTokens / nonSeparatorTokens: a CharClassifier other than the
// default one can be passed to the tokenizer.

export const enum CharClass {
  Word = 0,
  Soft = 1,
  Hard = 2,
}

export const SOFT_DISTANCE = 1;
export const HARD_DISTANCE = 8;

export type CharClassifier = (code: number, char: string) => CharClass;

const HARD_CHARS = '.;,!?()[]{}|\n\r\u2029\u2028';
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

const ASCII_CLASSES = buildAsciiTable();

function buildAsciiTable(): Uint8Array {
  const table = new Uint8Array(128).fill(CharClass.Soft);
  for (let code = 0; code < 128; code++) {
    const char = String.fromCharCode(code);
    if (/[a-zA-Z0-9]/.test(char)) table[code] = CharClass.Word;
    else if (HARD_CHARS.includes(char)) table[code] = CharClass.Hard;
  }
  return table;
}

/** Letters, digits and combining marks make words; the listed hard separators split sentences; anything else is soft. */
export const defaultClassifier: CharClassifier = (code, char) => {
  if (code < 128) return ASCII_CLASSES[code] as CharClass;
  if (HARD_CHARS.includes(char) || code === 0x3002 /* ideographic full stop */) return CharClass.Hard;
  return WORD_CHAR.test(char) ? CharClass.Word : CharClass.Soft;
};
