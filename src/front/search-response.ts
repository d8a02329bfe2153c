// The search response body, concatenated from the hits' serialized documents (never re-parsed)
// with Meilisearch's key order: hits, query, processingTimeMs, pagination, facetDistribution, facetStats.
import type { FacetExtras } from './facet-merge.js';
import { paginationJson, type SearchWindow } from './pagination.js';
import { TextBody, utf8Body, type BodySink } from './response-bytes.js';

/** What one search answers, before it is written out. */
export interface SearchAnswer {
  /** The hits' JSON, in order. */
  hitDocuments: readonly string[];
  query: string;
  processingTimeMs: number;
  window: SearchWindow;
  candidates: number;
  facets: FacetExtras | null;
}

export function writeSearchResponse(sink: BodySink, answer: SearchAnswer): void {
  const { hitDocuments, facets } = answer;
  sink.append('{"hits":[');
  for (let i = 0; i < hitDocuments.length; i++) {
    if (i > 0) sink.append(',');
    sink.append(hitDocuments[i]!);
  }
  sink.append(`],"query":${JSON.stringify(answer.query)},"processingTimeMs":${answer.processingTimeMs},${paginationJson(answer.window, answer.candidates)}`);
  if (facets?.facetDistributionJson !== undefined) sink.append(`,"facetDistribution":${facets.facetDistributionJson}`);
  else if (facets?.facetDistribution) sink.append(`,"facetDistribution":${JSON.stringify(facets.facetDistribution)}`);
  if (facets?.facetStats) sink.append(`,"facetStats":${JSON.stringify(facets.facetStats)}`);
  sink.append('}');
}

/** The body as a string (a multi-search result embeds it). */
export function searchResponseJson(answer: SearchAnswer): string {
  const body = new TextBody();
  writeSearchResponse(body, answer);
  return body.text;
}

/** The body as the bytes sent (a single search's response). */
export function searchResponseBytes(answer: SearchAnswer): Buffer {
  return utf8Body((sink) => writeSearchResponse(sink, answer));
}
