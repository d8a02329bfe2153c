// Settings read at search time only. A settings update that changes nothing else leaves every shard's
// structures as they are (postings, lexicon, facets, pairs): the workers swap the compiled settings
// instead of rebuilding their shards from the stored documents, as Meilisearch applies these without
// reindexing. Each entry is read by the front or per search on the worker, never while indexing:
// displayedAttributes (hit formatting, search-plan.ts), faceting (front shaping, ShardSearchOptions.facetCut),
// pagination (front window, shard-engine.ts hitsWanted), searchCutoffMs (each search's budget),
// facetSearch (front route).
import type { IndexSettings } from './index-settings.js';

export const SEARCH_TIME_SETTINGS: ReadonlySet<keyof IndexSettings> = new Set<keyof IndexSettings>([
  'displayedAttributes', 'faceting', 'pagination', 'searchCutoffMs', 'facetSearch',
]);

/** Whether `before` and `after` differ in search-time settings only (false when equal: nothing to apply). */
export function onlySearchTimeSettingsDiffer(before: Partial<IndexSettings>, after: Partial<IndexSettings>): boolean {
  let differs = false;
  const names = new Set([...Object.keys(before), ...Object.keys(after)] as (keyof IndexSettings)[]);
  for (const name of names) {
    if (JSON.stringify(before[name]) === JSON.stringify(after[name])) continue;
    if (!SEARCH_TIME_SETTINGS.has(name)) return false;
    differs = true;
  }
  return differs;
}
