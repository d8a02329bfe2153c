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

export interface CharClassifier {
  (code: number, char: string): CharClass;
  /** The index's dictionary setting: strings the tokenizer keeps as one word even across separators. */
  dictionary?: readonly string[];
}

const HARD_CHARS = '.;,!?()[]{}|\n\r\u2029\u2028';
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** The default classes of the ASCII characters (the tokenizer's fast path reads it directly). */
export const ASCII_CLASSES: Uint8Array = buildAsciiTable();

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

/**
 * The classifier of an index's separatorTokens / nonSeparatorTokens settings: nonSeparatorTokens
 * become word characters, separatorTokens separators (hard when the default list says so, else
 * soft). Only one-character tokens are supported; longer ones are ignored. `dictionary` entries are
 * kept whole by the tokenizer. With none of these settings this IS defaultClassifier (the fast path).
 */
export function classifierFor(separatorTokens: readonly string[], nonSeparatorTokens: readonly string[],
  dictionary: readonly string[] = []): CharClassifier {
  const single = (tokens: readonly string[]) => new Set(tokens.filter((token) => [...token].length === 1));
  const separators = single(separatorTokens);
  const nonSeparators = single(nonSeparatorTokens);
  const entries = dictionary.filter((entry) => entry !== '');
  if (separators.size === 0 && nonSeparators.size === 0 && entries.length === 0) return defaultClassifier;
  const classify: CharClassifier = (code, char) => {
    const text = char === '' ? String.fromCharCode(code) : char;
    if (nonSeparators.has(text)) return CharClass.Word;
    if (separators.has(text)) return HARD_CHARS.includes(text) || code === 0x3002 ? CharClass.Hard : CharClass.Soft;
    return defaultClassifier(code, char);
  };
  if (entries.length > 0) classify.dictionary = entries;
  return classify;
}

/**
 * The ASCII fast paths' separator run: from `index` (just past a separator, `hard` if it was one) to
 * the next word character. Returns the index reached times 2, plus 1 if the run held a hard
 * separator, or -1 at a non-ASCII character (the caller then takes the general path). One packed
 * number so the hot loop allocates nothing; small enough for V8 to inline.
 */
export function scanAsciiSeparators(text: string, index: number, hard: boolean): number {
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code >= 128) return -1;
    const charClass = ASCII_CLASSES[code]!;
    if (charClass === CharClass.Word) break;
    if (charClass === CharClass.Hard) hard = true;
    index++;
  }
  return index * 2 + (hard ? 1 : 0);
}
