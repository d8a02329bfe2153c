// The search response body, concatenated from the hits' serialized documents (never re-parsed)
// with Meilisearch's key order: hits, query, processingTimeMs, pagination, facetDistribution, facetStats.
import type { FacetExtras } from './facet-merge.js';
import { paginationJson, type SearchWindow } from './pagination.js';

export function searchResponseJson(
  hitDocuments: readonly string[],
  query: string,
  processingTimeMs: number,
  window: SearchWindow,
  candidates: number,
  facets: FacetExtras | null,
): string {
  let body = '{"hits":[';
  for (let i = 0; i < hitDocuments.length; i++) {
    if (i > 0) body += ',';
    body += hitDocuments[i]!;
  }
  body += `],"query":${JSON.stringify(query)},"processingTimeMs":${processingTimeMs},${paginationJson(window, candidates)}`;
  if (facets?.facetDistributionJson !== undefined) body += `,"facetDistribution":${facets.facetDistributionJson}`;
  else if (facets?.facetDistribution) body += `,"facetDistribution":${JSON.stringify(facets.facetDistribution)}`;
  if (facets?.facetStats) body += `,"facetStats":${JSON.stringify(facets.facetStats)}`;
  return `${body}}`;
}
