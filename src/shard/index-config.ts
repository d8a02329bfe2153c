// An index's settings compiled once into what indexing and search consult on every document/query.
import { defaultSettings, DEFAULT_SEARCH_CUTOFF_MS, type IndexSettings } from '../settings/index-settings.js';
import { normalizeWord } from '../analysis/normalize.js';
import type { DocumentAnalysisOptions } from '../analysis/document-tokens.js';
import { typoPolicyOf, type TypoPolicy } from '../query/typo-budget.js';

export interface IndexConfig {
  settings: IndexSettings;
  analysis: DocumentAnalysisOptions;
  stopWords: ReadonlySet<string>;
  typoPolicy: TypoPolicy;
  prefixSearch: boolean;
  searchCutoffMs: number;
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
    analysis: { searchableAttributes: settings.searchableAttributes, stopWords },
    stopWords,
    typoPolicy: typoPolicyOf(settings.typoTolerance),
    prefixSearch: settings.prefixSearch !== 'disabled',
    searchCutoffMs: settings.searchCutoffMs ?? DEFAULT_SEARCH_CUTOFF_MS,
  };
}
