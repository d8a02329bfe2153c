// How many typos a query word may carry (search-semantics reference §3), from typoTolerance settings.
import type { TypoToleranceSettings } from '../settings/index-settings.js';
import { normalizeWord } from '../analysis/normalize.js';

export interface TypoPolicy {
  enabled: boolean;
  oneTypo: number;
  twoTypos: number;
  /** Normalized words that only match exactly. */
  disableOnWords: ReadonlySet<string>;
  disableOnNumbers: boolean;
}

export function typoPolicyOf(settings: TypoToleranceSettings): TypoPolicy {
  return {
    enabled: settings.enabled,
    oneTypo: settings.minWordSizeForTypos.oneTypo,
    twoTypos: settings.minWordSizeForTypos.twoTypos,
    disableOnWords: new Set(settings.disableOnWords.map(normalizeWord)),
    disableOnNumbers: settings.disableOnNumbers,
  };
}

const NUMERIC = /^\p{N}+$/u;

export function typoBudget(word: string, policy: TypoPolicy): 0 | 1 | 2 {
  if (!policy.enabled || policy.disableOnWords.has(word)) return 0;
  if (policy.disableOnNumbers && NUMERIC.test(word)) return 0;
  let chars = 0;
  for (const _ of word) chars++;
  if (chars < policy.oneTypo) return 0;
  return chars < policy.twoTypos ? 1 : 2;
}
