// The front's own request/reply values: uWS objects never leave http-server.ts, because they are
// only valid inside the synchronous part of the uWS callback.
import { FULL_ACCESS, type Access } from '../auth/access.js';
import type { SkeinError } from '../errors/index.js';

export interface FrontRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Raw query string without '?' (taskCancelation keeps it as originalFilter). */
  rawQuery: string;
  contentType: string | null;
  contentEncoding: string | null;
  authorization: string | null;
  params: Record<string, string>;
  /** Decompressed body; empty when the route takes none. */
  body: Buffer;
  /** Parsed JSON body on routes declared `json`; undefined elsewhere. */
  json: unknown;
  /** What the authenticated requester may see (index restriction, tenant-token rules). */
  access: Access;
}

export { FULL_ACCESS };

export interface FrontReply {
  status: number;
  /** Already serialized JSON, or '' for an empty body. */
  body: string;
  headers?: Array<[string, string]>;
}

/** How a route reads its body. */
export type BodyKind = 'none' | 'json' | 'documents';

export function jsonReply(status: number, value: unknown): FrontReply {
  return { status, body: JSON.stringify(value) };
}

export function errorReply(error: SkeinError): FrontReply {
  const reply: FrontReply = { status: error.status, body: JSON.stringify(error.toBody()) };
  if (error.status === 503) reply.headers = [['Retry-After', '10']];
  return reply;
}
