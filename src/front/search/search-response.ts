// The search response body, concatenated from the hits' serialized documents (never re-parsed)
// with Meilisearch's key order: hits, query, processingTimeMs, pagination, facetDistribution, facetStats.
import type { FacetExtras } from './facet-merge.js';
import { listBodyText, type JsonItem, type ListBody } from '../http/list-body.js';
import { paginationJson, type SearchWindow } from '../http/pagination.js';

/** What one search answers, before it is written out. */
export interface SearchAnswer {
  /** The hits' JSON, in order. */
  hitDocuments: readonly JsonItem[];
  query: string;
  processingTimeMs: number;
  window: SearchWindow;
  candidates: number;
  facets: FacetExtras | null;
  /** The hits' internal ids, in order (federated search deduplicates by them). */
  hitIds?: number[];
  /** showPerformanceDetails: step -> "1.23ms". */
  performanceDetails?: Record<string, string>;
  /** useNetwork: the remotes that did not answer, by name (Meilisearch's `remoteErrors`; src/network). */
  remoteErrors?: Record<string, unknown>;
}

/** The body as one string (multi-search embeds it; the single search writes searchResponseBody). */
export function searchResponseJson(answer: SearchAnswer): string {
  return listBodyText(searchResponseBody(answer));
}

/** The body as its hits between a head and a tail, written out without concatenating (list-body.ts). */
export function searchResponseBody(answer: SearchAnswer): ListBody {
  const { facets } = answer;
  let tail = `],"query":${JSON.stringify(answer.query)},"processingTimeMs":${answer.processingTimeMs},${paginationJson(answer.window, answer.candidates)}`;
  if (facets?.facetDistributionJson !== undefined) tail += `,"facetDistribution":${facets.facetDistributionJson}`;
  else if (facets?.facetDistribution) tail += `,"facetDistribution":${JSON.stringify(facets.facetDistribution)}`;
  if (facets?.facetStats) tail += `,"facetStats":${JSON.stringify(facets.facetStats)}`;
  if (answer.performanceDetails) tail += `,"performanceDetails":${JSON.stringify(answer.performanceDetails)}`;
  if (answer.remoteErrors) tail += `,"remoteErrors":${JSON.stringify(answer.remoteErrors)}`;
  return { head: HITS_HEAD, items: answer.hitDocuments, tail: `${tail}}` };
}

const HITS_HEAD = '{"hits":[';
