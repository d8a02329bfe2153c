// Type checks of settings bodies at enqueue time (invalid_settings_* codes, deserr wording). What a
// setting means is the scheduler's business; here only shapes and the few value rules Meilisearch
// checks before enqueuing (ranking rule names, typo sizes, maxTotalHits > 0).
import { echo, SkeinError, type ErrorCode } from '../../errors/index.js';
import { SETTING_NAMES } from '../../settings/index-settings.js';
import { attributePatternsOf } from '../../filter/attribute-patterns.js';
import { invalidValueType, isPlainObject, unknownField, unknownValue } from '../http/deserr-messages.js';
import { checkListLength, checkTextLength, REQUEST_LIMITS } from '../http/request-limits.js';

type Check = (value: unknown, path: string, code: ErrorCode) => void;

const stringList: Check = (value, path, code) => {
  if (!Array.isArray(value)) throw invalidValueType(code, path, 'an array', value);
  value.forEach((item, i) => {
    if (typeof item !== 'string') throw invalidValueType(code, `${path}[${i}]`, 'a string', item);
  });
};

/** A list of attribute names (bounded: request-limits.ts). */
const attributeList: Check = (value, path, code) => {
  stringList(value, path, code);
  checkListLength(code, { kind: 'body', path }, value as string[], REQUEST_LIMITS.settingsAttributes);
};

/** A list of words (bounded: request-limits.ts). */
const wordList: Check = (value, path, code) => {
  stringList(value, path, code);
  checkListLength(code, { kind: 'body', path }, value as string[], REQUEST_LIMITS.settingsWords);
};

const filterableList: Check = (value, path, code) => {
  if (!Array.isArray(value)) throw invalidValueType(code, path, 'an array', value);
  value.forEach((item, i) => {
    if (typeof item !== 'string' && !isPlainObject(item)) throw invalidValueType(code, `${path}[${i}]`, 'a string or an object', item);
  });
  // Strings and the rules' attributePatterns count together.
  const patterns = attributePatternsOf(value);
  if (patterns.length > REQUEST_LIMITS.settingsAttributes) {
    checkListLength(code, { kind: 'body', path }, patterns, REQUEST_LIMITS.settingsAttributes);
  }
  value.forEach((item, i) => {
    if (typeof item === 'string') checkTextLength(code, { kind: 'body', path: `${path}[${i}]` }, item, REQUEST_LIMITS.nameChars);
  });
};

const BUILT_IN_RULES = ['words', 'typo', 'proximity', 'attribute', 'attributeRank', 'wordPosition', 'sort', 'exactness'];
const GEO_NAMES = ['_geo', '_geoDistance', '_geoPoint', '_geoRadius', '_geoBoundingBox', '_geoPolygon'];

const rankingRules: Check = (value, path, code) => {
  stringList(value, path, code);
  const rules = value as string[];
  rules.forEach((rule, i) => {
    if (BUILT_IN_RULES.includes(rule)) return;
    const custom = /^(.+):(asc|desc)$/.exec(rule);
    const name = custom?.[1];
    if (!custom || name!.trim() === '' || GEO_NAMES.some((geo) => name === geo || name!.startsWith(`${geo}(`))) {
      throw new SkeinError(code, `Invalid value at \`${path}[${i}]\`: \`${echo(rule)}\` ranking rule is invalid. Valid ranking rules are words, typo, sort, proximity, attribute, exactness and custom ranking rules.`);
    }
  });
  if (rules.includes('attribute') && (rules.includes('attributeRank') || rules.includes('wordPosition'))) {
    throw new SkeinError(code, `Invalid value at \`${path}\`: \`attribute\` ranking rule cannot be used together with \`attributeRank\` or \`wordPosition\`.`);
  }
};

const synonyms: Check = (value, path, code) => {
  if (!isPlainObject(value)) throw invalidValueType(code, path, 'an object', value);
  const entries = Object.entries(value);
  if (entries.length > REQUEST_LIMITS.settingsWords) checkListLength(code, { kind: 'body', path }, entries, REQUEST_LIMITS.settingsWords);
  for (const [word, list] of entries) {
    checkTextLength(code, { kind: 'body', path }, word, REQUEST_LIMITS.nameChars);
    wordList(list, `${path}.${word}`, code);
  }
};

const optionalString: Check = (value, path, code) => {
  if (value !== null && typeof value !== 'string') throw invalidValueType(code, path, 'a string', value);
};

const boolean: Check = (value, path, code) => {
  if (typeof value !== 'boolean') throw invalidValueType(code, path, 'a boolean', value);
};

function isUnsigned(value: unknown, max = Number.MAX_SAFE_INTEGER): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;
}

const enumOf = (...values: string[]): Check => (value, path, code) => {
  if (typeof value !== 'string') throw invalidValueType(code, path, 'a string', value);
  if (!values.includes(value)) throw unknownValue(code, path, value, values);
};

/** Checks an object's fields with per-field checks; a null field resets it and is always fine. */
function objectOf(fields: Record<string, Check>): Check {
  const names = Object.keys(fields);
  return (value, path, code) => {
    if (!isPlainObject(value)) throw invalidValueType(code, path, 'an object', value);
    for (const [name, field] of Object.entries(value)) {
      const check = Object.hasOwn(fields, name) ? fields[name] : undefined;
      if (!check) {
        // deserr names the enclosing path, except at the root of a sub-route body.
        const where = path === '' ? '' : ` inside \`${path}\``;
        throw new SkeinError(code, `Unknown field \`${echo(name)}\`${where}: expected one of ${names.map((n) => `\`${n}\``).join(', ')}`);
      }
      if (field !== null) check(field, `${path}.${name}`, code);
    }
  };
}

const u8: Check = (value, path, code) => {
  if (!isUnsigned(value, 255)) throw invalidValueType(code, path, 'a positive integer', value);
};

const typoTolerance: Check = (value, path, code) => {
  objectOf({
    enabled: boolean,
    minWordSizeForTypos: objectOf({ oneTypo: u8, twoTypos: u8 }),
    disableOnWords: wordList,
    disableOnAttributes: attributeList,
    disableOnNumbers: boolean,
  })(value, path, code);
  const sizes = (value as { minWordSizeForTypos?: { oneTypo?: unknown; twoTypos?: unknown } | null }).minWordSizeForTypos;
  if (sizes && typeof sizes.oneTypo === 'number' && typeof sizes.twoTypos === 'number' && sizes.oneTypo > sizes.twoTypos) {
    throw new SkeinError(code, `\`minWordSizeForTypos\` setting is invalid. \`oneTypo\` and \`twoTypos\` fields should be between \`0\` and \`255\`, and \`twoTypos\` should be greater or equals to \`oneTypo\` but found \`oneTypo: ${sizes.oneTypo}\` and twoTypos: ${sizes.twoTypos}\`.`);
  }
};

const faceting: Check = objectOf({
  maxValuesPerFacet: (value, path, code) => {
    if (!isUnsigned(value)) throw invalidValueType(code, path, 'a positive integer', value);
  },
  sortFacetValuesBy: (value, path, code) => {
    if (!isPlainObject(value)) throw invalidValueType(code, path, 'an object', value);
    const entries = Object.entries(value);
    checkListLength(code, { kind: 'body', path }, entries, REQUEST_LIMITS.settingsAttributes);
    for (const [name, order] of entries) {
      checkTextLength(code, { kind: 'body', path }, name, REQUEST_LIMITS.nameChars);
      enumOf('alpha', 'count')(order, `${path}.${name}`, code);
    }
  },
});

const pagination: Check = objectOf({
  maxTotalHits: (value, path, code) => {
    if (!isUnsigned(value)) throw invalidValueType(code, path, 'a positive integer', value);
    if (value === 0) throw new SkeinError(code, `Invalid value at \`${path}\`: a non-zero integer value lower than \`${Number.MAX_SAFE_INTEGER}\` was expected, but found a zero.`);
  },
});

/**
 * `[{foreignIndexUid, fieldName}]` (Meilisearch's ForeignKey: both strings, both required, no other
 * field); only the shape is checked, as Meilisearch does (a foreign index need not exist yet).
 */
const foreignKeys: Check = (value, path, code) => {
  if (!Array.isArray(value)) throw invalidValueType(code, path, 'an array', value);
  checkListLength(code, { kind: 'body', path }, value, REQUEST_LIMITS.settingsAttributes);
  const fields = ['foreignIndexUid', 'fieldName'];
  value.forEach((entry, i) => {
    const entryPath = `${path}[${i}]`;
    if (!isPlainObject(entry)) throw invalidValueType(code, entryPath, 'an object', entry);
    for (const [name, field] of Object.entries(entry)) {
      if (!fields.includes(name)) {
        throw new SkeinError(code, `Unknown field \`${echo(name)}\` inside \`${entryPath}\`: expected one of ${fields.map((n) => `\`${n}\``).join(', ')}`);
      }
      if (typeof field !== 'string') throw invalidValueType(code, `${entryPath}.${name}`, 'a string', field);
      checkTextLength(code, { kind: 'body', path: `${entryPath}.${name}` }, field, REQUEST_LIMITS.nameChars);
    }
    for (const name of fields) {
      if (!Object.hasOwn(entry, name)) throw new SkeinError(code, `Missing field \`${name}\` inside \`${entryPath}\``);
    }
  });
};

const SETTING_CHECKS: Record<string, [Check, ErrorCode]> = {
  displayedAttributes: [attributeList, 'invalid_settings_displayed_attributes'],
  searchableAttributes: [attributeList, 'invalid_settings_searchable_attributes'],
  filterableAttributes: [filterableList, 'invalid_settings_filterable_attributes'],
  sortableAttributes: [attributeList, 'invalid_settings_sortable_attributes'],
  foreignKeys: [foreignKeys, 'invalid_settings_foreign_keys'],
  rankingRules: [rankingRules, 'invalid_settings_ranking_rules'],
  stopWords: [wordList, 'invalid_settings_stop_words'],
  nonSeparatorTokens: [wordList, 'invalid_settings_non_separator_tokens'],
  separatorTokens: [wordList, 'invalid_settings_separator_tokens'],
  dictionary: [wordList, 'invalid_settings_dictionary'],
  synonyms: [synonyms, 'invalid_settings_synonyms'],
  distinctAttribute: [optionalString, 'invalid_settings_distinct_attribute'],
  proximityPrecision: [enumOf('byWord', 'byAttribute'), 'invalid_settings_proximity_precision'],
  typoTolerance: [typoTolerance, 'invalid_settings_typo_tolerance'],
  faceting: [faceting, 'invalid_settings_faceting'],
  pagination: [pagination, 'invalid_settings_pagination'],
  embedders: [(value, path, code) => {
    if (!isPlainObject(value)) throw invalidValueType(code, path, 'an object', value);
  }, 'invalid_settings_embedders'],
  searchCutoffMs: [(value, path, code) => {
    if (!isUnsigned(value)) throw invalidValueType(code, path, 'a positive integer', value);
  }, 'invalid_settings_search_cutoff_ms'],
  localizedAttributes: [(value, path, code) => {
    if (!Array.isArray(value)) throw invalidValueType(code, path, 'an array', value);
    checkListLength(code, { kind: 'body', path }, value, REQUEST_LIMITS.settingsAttributes);
    value.forEach((rule, i) => {
      const rulePath = `${path}[${i}]`;
      objectOf({ attributePatterns: attributeList, locales: attributeList })(rule, rulePath, code);
      for (const field of ['attributePatterns', 'locales']) {
        if ((rule as Record<string, unknown>)[field] == null) {
          throw new SkeinError(code, `Missing field \`${field}\` inside \`${rulePath}\``);
        }
      }
    });
  }, 'invalid_settings_localized_attributes'],
  facetSearch: [boolean, 'invalid_settings_facet_search'],
  prefixSearch: [enumOf('indexingTime', 'disabled'), 'invalid_settings_prefix_search'],
};

/** Validates a PATCH /settings body; returns it (only the keys that were sent, null = reset). */
export function validateSettingsBody(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  for (const [name, value] of Object.entries(body)) {
    if (!Object.hasOwn(SETTING_CHECKS, name)) throw unknownField(name, SETTING_NAMES);
    if (value !== null) validateSetting(name, value, `.${name}`);
  }
  return body;
}

/** Validates the bare value of a settings sub-route (PUT /settings/ranking-rules ...). */
export function validateSetting(name: string, value: unknown, path = '.'): void {
  const [check, code] = SETTING_CHECKS[name]!;
  if (value !== null) check(value, path === '.' ? '' : path, code);
}
