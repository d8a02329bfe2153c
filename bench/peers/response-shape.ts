// The Meilisearch-shaped search body every peer answers with, built by concatenating documents that
// were serialized once at load time (as Skein does), so peers pay no per-hit JSON.stringify either.

export interface PeerSearchRequest {
  q: string;
  limit: number;
}

export const defaultLimit = 20;

/** Reads {q, limit} from a POST body; anything unparseable is a null (the server answers 400). */
export function parseSearchRequest(body: string): PeerSearchRequest | null {
  let parsed: unknown;
  try {
    parsed = body.length === 0 ? {} : JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { q, limit } = parsed as { q?: unknown; limit?: unknown };
  if (q !== undefined && q !== null && typeof q !== 'string') return null;
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 0)) return null;
  return { q: typeof q === 'string' ? q : '', limit: (limit as number | undefined) ?? defaultLimit };
}

/** `{"hits":[...],"query":...,"processingTimeMs":...,"limit":...,"offset":0,"estimatedTotalHits":...}` */
export function shapeSearchResponse(query: string, limit: number, hitJson: readonly string[], estimatedTotalHits: number, processingTimeMs: number): string {
  return (
    `{"hits":[${hitJson.join(',')}],"query":${JSON.stringify(query)},"processingTimeMs":${Math.round(processingTimeMs)},` +
    `"limit":${limit},"offset":0,"estimatedTotalHits":${estimatedTotalHits}}`
  );
}
