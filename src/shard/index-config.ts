// An index's settings compiled once into what indexing and search consult on every document/query.
import { defaultSettings, DEFAULT_SEARCH_CUTOFF_MS, type IndexSettings } from '../settings/index-settings.js';
import { normalizeWord } from '../analysis/normalize.js';
import { classifierFor } from '../analysis/separators.js';
import { FieldRanks, type DocumentAnalysisOptions } from '../analysis/document-tokens.js';
import { typoPolicyOf, type TypoPolicy } from '../query/typo-budget.js';
import { normalizeSynonyms, type SynonymMap } from '../query/synonyms.js';

export interface IndexConfig {
  settings: IndexSettings;
  analysis: DocumentAnalysisOptions;
  stopWords: ReadonlySet<string>;
  typoPolicy: TypoPolicy;
  prefixSearch: boolean;
  searchCutoffMs: number;
  /** Normalized synonyms: query word (or words joined by a space) -> the words of each alternative. */
  synonyms: SynonymMap;
  /** typoTolerance.disableOnAttributes: their words are indexed for exact (and prefix) matching only. */
  exactAttributes: readonly string[];
}

/** Accepts partial settings (missing keys take their defaults), as LoadIndex carries them as JSON. */
export function compileIndexConfig(partial: Partial<IndexSettings> | null | undefined): IndexConfig {
  const defaults = defaultSettings();
  const settings: IndexSettings = {
    ...defaults,
    ...(partial ?? {}),
    typoTolerance: {
      ...defaults.typoTolerance,
      ...(partial?.typoTolerance ?? {}),
      minWordSizeForTypos: { ...defaults.typoTolerance.minWordSizeForTypos, ...(partial?.typoTolerance?.minWordSizeForTypos ?? {}) },
    },
  };
  const stopWords = new Set(settings.stopWords.map(normalizeWord));
  return {
    settings,
    analysis: {
      searchableAttributes: settings.searchableAttributes, stopWords, classify: classifierFor(settings.separatorTokens, settings.nonSeparatorTokens, settings.dictionary),
      fieldRanks: new FieldRanks(settings.searchableAttributes),
    },
    stopWords,
    typoPolicy: typoPolicyOf(settings.typoTolerance),
    prefixSearch: settings.prefixSearch !== 'disabled',
    searchCutoffMs: settings.searchCutoffMs ?? DEFAULT_SEARCH_CUTOFF_MS,
    synonyms: normalizeSynonyms(settings.synonyms),
    exactAttributes: settings.typoTolerance.disableOnAttributes,
  };
}
