// Which searches are heavy: what the shard does for them grows with the filter and the facet values,
// not with the hits wanted. The front batches them apart (front/search/search-dispatcher.ts: a light search
// never waits behind a heavy one of its batch, and two batches of each kind may be in flight per
// worker); the worker gives them the short slice between yield points (shard/search-budget.ts).

import type { ShardSearchOptions } from './messages.js';

/** A filter longer than this (characters of a string) or with more conditions (array form) is heavy. */
const HEAVY_FILTER_CHARACTERS = 512;
const HEAVY_FILTER_CONDITIONS = 16;

/** The search's shaping options (ShardQueryMessage.options): facets, or a long filter. */
export function isHeavySearch(options: ShardSearchOptions): boolean {
  const facets = options.facets;
  if (Array.isArray(facets) && facets.length > 0) return true;
  const filter = options.filter;
  if (typeof filter === 'string') return filter.length > HEAVY_FILTER_CHARACTERS;
  return Array.isArray(filter) && conditionsOf(filter) > HEAVY_FILTER_CONDITIONS;
}

function conditionsOf(filter: readonly unknown[]): number {
  let count = 0;
  for (const element of filter) count += Array.isArray(element) ? conditionsOf(element) : 1;
  return count;
}
