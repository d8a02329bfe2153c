// Offset/limit and page/hitsPerPage arithmetic of a search, clamped by the index's maxTotalHits
// (search-semantics.md §6).
import { DEFAULT_SEARCH_LIMIT } from '../search/search-params.js';

export type SearchWindow =
  | { mode: 'offset'; offset: number; limit: number; hitsWanted: number; maxTotalHits: number }
  | { mode: 'page'; page: number; hitsPerPage: number; offset: number; limit: number; hitsWanted: number; maxTotalHits: number };

export interface WindowRequest {
  offset: number;
  limit: number;
  page: number | null;
  hitsPerPage: number | null;
}

export function searchWindow(request: WindowRequest, maxTotalHits: number): SearchWindow {
  if (request.page !== null || request.hitsPerPage !== null) {
    const page = request.page ?? 1;
    const hitsPerPage = request.hitsPerPage ?? DEFAULT_SEARCH_LIMIT;
    // page 0 asks for no hits but still for exhaustive counts.
    const wantedOffset = page === 0 ? 0 : (page - 1) * hitsPerPage;
    const wantedLimit = page === 0 ? 0 : hitsPerPage;
    const { offset, limit } = clamp(wantedOffset, wantedLimit, maxTotalHits);
    return { mode: 'page', page, hitsPerPage, offset, limit, hitsWanted: offset + limit, maxTotalHits };
  }
  const { offset, limit } = clamp(request.offset, request.limit, maxTotalHits);
  return { mode: 'offset', offset, limit, hitsWanted: offset + limit, maxTotalHits };
}

function clamp(offset: number, limit: number, maxTotalHits: number): { offset: number; limit: number } {
  const clampedOffset = Math.min(offset, maxTotalHits);
  return { offset: clampedOffset, limit: Math.min(limit, maxTotalHits - clampedOffset) };
}

/** The pagination members of the response, in Meilisearch's key order, as a JSON fragment. */
export function paginationJson(window: SearchWindow, candidates: number): string {
  const totalHits = Math.min(candidates, window.maxTotalHits);
  if (window.mode === 'offset') {
    return `"limit":${window.limit},"offset":${window.offset},"estimatedTotalHits":${totalHits}`;
  }
  const totalPages = window.hitsPerPage === 0 ? 0 : Math.ceil(totalHits / window.hitsPerPage);
  return `"hitsPerPage":${window.hitsPerPage},"page":${window.page},"totalPages":${totalPages},"totalHits":${totalHits}`;
}
