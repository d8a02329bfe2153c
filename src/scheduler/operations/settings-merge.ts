// Merging a settings update into the stored IndexSettings (settings.md §2): null resets a key,
// typoTolerance/faceting/pagination merge sub-fields, set-like lists are stored sorted and deduplicated,
// and a displayed/searchable list holding "*" is stored as ["*"]. The front validated the shapes.
import { SkeinError } from '../../errors/index.js';
import { defaultSettings, SETTING_NAMES, type IndexSettings } from '../../settings/index-settings.js';

const SORTED_SETS = new Set<keyof IndexSettings>(['sortableAttributes', 'stopWords', 'nonSeparatorTokens', 'separatorTokens', 'dictionary']);
const ALL_ATTRIBUTES_SETTINGS = new Set<keyof IndexSettings>(['displayedAttributes', 'searchableAttributes']);

type Submitted = Record<string, unknown>;

export function mergeSettings(current: IndexSettings, submitted: Submitted, isDeletion: boolean): IndexSettings {
  if (isDeletion) return defaultSettings();
  const defaults = defaultSettings();
  const merged = structuredClone(current) as unknown as Record<string, unknown>;
  for (const name of SETTING_NAMES) {
    if (!(name in submitted)) continue;
    const value = submitted[name];
    if (value === null || value === undefined) {
      merged[name] = structuredClone(defaults[name]);
    } else if (name === 'typoTolerance') {
      merged[name] = mergeTypoTolerance(current.typoTolerance, value as Submitted);
    } else if (name === 'faceting') {
      merged[name] = mergeFaceting(current.faceting, value as Submitted);
    } else if (name === 'pagination') {
      merged[name] = mergeObject(current.pagination, value as Submitted, defaults.pagination);
    } else if (ALL_ATTRIBUTES_SETTINGS.has(name) && Array.isArray(value) && value.includes('*')) {
      merged[name] = ['*'];
    } else if (SORTED_SETS.has(name) && Array.isArray(value)) {
      merged[name] = sortedSet(value as string[]);
    } else if (name === 'synonyms') {
      const keys = sortedSet(Object.keys(value as Record<string, string[]>));
      merged[name] = Object.fromEntries(keys.map((key) => [key, (value as Record<string, string[]>)[key]]));
    } else {
      merged[name] = structuredClone(value);
    }
  }
  return merged as unknown as IndexSettings;
}

function mergeTypoTolerance(current: IndexSettings['typoTolerance'], submitted: Submitted): IndexSettings['typoTolerance'] {
  const defaults = defaultSettings().typoTolerance;
  const merged = mergeObject(current, submitted, defaults);
  const sizes = submitted.minWordSizeForTypos;
  merged.minWordSizeForTypos = sizes === undefined ? current.minWordSizeForTypos
    : sizes === null ? { ...defaults.minWordSizeForTypos }
      : mergeObject(current.minWordSizeForTypos, sizes as Submitted, defaults.minWordSizeForTypos);
  merged.disableOnWords = sortedSet(merged.disableOnWords);
  merged.disableOnAttributes = sortedSet(merged.disableOnAttributes);
  const { oneTypo, twoTypos } = merged.minWordSizeForTypos;
  if (oneTypo > twoTypos) {
    throw new SkeinError('invalid_settings_typo_tolerance',
      `\`minWordSizeForTypos\` setting is invalid. \`oneTypo\` and \`twoTypos\` fields should be between \`0\` and \`255\`, and \`twoTypos\` should be greater or equals to \`oneTypo\` but found \`oneTypo: ${oneTypo}\` and twoTypos: ${twoTypos}\`.`);
  }
  return merged;
}

function mergeFaceting(current: IndexSettings['faceting'], submitted: Submitted): IndexSettings['faceting'] {
  const defaults = defaultSettings().faceting;
  const merged = mergeObject(current, submitted, defaults);
  if (submitted.sortFacetValuesBy !== undefined && submitted.sortFacetValuesBy !== null) {
    // The "*" entry is always present; given entries override it.
    merged.sortFacetValuesBy = { '*': 'alpha', ...(submitted.sortFacetValuesBy as Record<string, 'alpha' | 'count'>) };
  }
  return merged;
}

/** Sub-fields present in `submitted` replace, null resets to the default, absent ones are kept. */
function mergeObject<T extends object>(current: T, submitted: Submitted, defaults: T): T {
  const merged = structuredClone(current) as Record<string, unknown>;
  for (const [key, value] of Object.entries(submitted)) {
    if (!Object.hasOwn(defaults, key)) continue;
    merged[key] = value === null ? structuredClone((defaults as Record<string, unknown>)[key]) : structuredClone(value);
  }
  return merged as T;
}

/** Sorted in byte order (like the BTreeSets Meilisearch serializes), with each value's UTF-8 bytes made once (not two buffers per comparison). */
function sortedSet(values: string[]): string[] {
  return [...new Set(values)].map((value) => ({ value, bytes: Buffer.from(value) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes)).map(({ value }) => value);
}
