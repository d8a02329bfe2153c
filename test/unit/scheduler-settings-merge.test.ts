import test from 'ava';
import { mergeSettings } from '../../src/scheduler/operations/settings-merge.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

test('null resets a key; absent keys are kept', (t) => {
  const current = mergeSettings(defaultSettings(), { rankingRules: ['words'], stopWords: ['the'] }, false);
  const merged = mergeSettings(current, { rankingRules: null }, false);
  t.deepEqual(merged.rankingRules, defaultSettings().rankingRules);
  t.deepEqual(merged.stopWords, ['the']);
});

test('set-like lists are sorted and deduplicated; "*" lists become ["*"]; synonyms keys sorted', (t) => {
  const merged = mergeSettings(defaultSettings(), {
    stopWords: ['b', 'a', 'b'], searchableAttributes: ['title', '*'], synonyms: { b: ['x'], a: ['y'] }, filterableAttributes: ['z', 'a'],
  }, false);
  t.deepEqual(merged.stopWords, ['a', 'b']);
  t.deepEqual(merged.searchableAttributes, ['*']);
  t.deepEqual(Object.keys(merged.synonyms), ['a', 'b']);
  t.deepEqual(merged.filterableAttributes, ['z', 'a'], 'filterable attributes keep their order');
});

test('typoTolerance, faceting and pagination merge sub-fields', (t) => {
  const once = mergeSettings(defaultSettings(), { typoTolerance: { minWordSizeForTypos: { oneTypo: 3 } }, faceting: { maxValuesPerFacet: 5 } }, false);
  t.deepEqual(once.typoTolerance.minWordSizeForTypos, { oneTypo: 3, twoTypos: 9 });
  t.true(once.typoTolerance.enabled);
  const twice = mergeSettings(once, { typoTolerance: { enabled: false, disableOnWords: ['b', 'a'] }, faceting: { sortFacetValuesBy: { genre: 'count' } }, pagination: { maxTotalHits: 5 } }, false);
  t.deepEqual(twice.typoTolerance.minWordSizeForTypos, { oneTypo: 3, twoTypos: 9 });
  t.false(twice.typoTolerance.enabled);
  t.deepEqual(twice.typoTolerance.disableOnWords, ['a', 'b']);
  t.deepEqual(twice.faceting, { maxValuesPerFacet: 5, sortFacetValuesBy: { '*': 'alpha', genre: 'count' } });
  t.is(twice.pagination.maxTotalHits, 5);
});

test('oneTypo above twoTypos after merging fails; deletion resets everything', (t) => {
  const error = t.throws(() => mergeSettings(defaultSettings(), { typoTolerance: { minWordSizeForTypos: { oneTypo: 10 } } }, false));
  t.is((error as { code?: string }).code, 'invalid_settings_typo_tolerance');
  t.is(error!.message, '`minWordSizeForTypos` setting is invalid. `oneTypo` and `twoTypos` fields should be between `0` and `255`, and `twoTypos` should be greater or equals to `oneTypo` but found `oneTypo: 10` and twoTypos: 9`.');
  const changed = mergeSettings(defaultSettings(), { stopWords: ['a'] }, false);
  t.deepEqual(mergeSettings(changed, {}, true), defaultSettings());
});
