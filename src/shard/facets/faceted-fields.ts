// Which fields of a document the shard's FacetStore indexes: every filterable pattern, sortable
// attribute, the distinct attribute and the fields of custom `field:asc|desc` ranking rules.
import { attributePatternsOf, PatternSet } from '../../filter/attribute-patterns.js';
import { parseCustomFieldRule } from '../../ranking/rules/custom-field.js';
import type { IndexSettings } from '../../settings/index-settings.js';
import { isGeojsonEnabled } from '../../documents/geo-field.js';

export interface FacetedFields {
  isFaceted(field: string): boolean;
  /** `_geo` is filterable or sortable: documents' `_geo` points are indexed. */
  geo: boolean;
  /** `_geojson` is a plain filterable entry: documents' `_geojson` points and shapes are indexed for the geo filters. */
  geojson: boolean;
  /** No field at all is faceted: indexing skips the facet store. */
  none: boolean;
}

export function facetedFieldsOf(settings: IndexSettings): FacetedFields {
  const patterns = [...attributePatternsOf(settings.filterableAttributes ?? []), ...(settings.sortableAttributes ?? [])];
  if (settings.distinctAttribute) patterns.push(settings.distinctAttribute);
  for (const rule of settings.rankingRules ?? []) {
    const custom = parseCustomFieldRule(rule);
    if (custom) patterns.push(custom.field);
  }
  const geo = patterns.includes('_geo') || patterns.includes('*');
  const compiled = new PatternSet(patterns);
  // (a plain `_geojson` entry only, milli's has_geojson: matched by a pattern it is an ordinary field)
  const geojson = isGeojsonEnabled(settings);
  return { isFaceted: (field) => compiled.matches(field), geo, geojson, none: patterns.length === 0 };
}
