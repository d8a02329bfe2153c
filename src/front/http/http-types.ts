// The front's own request/reply values: uWS objects never leave http-server.ts, because they are
// only valid inside the synchronous part of the uWS callback.
import { FULL_ACCESS, type Access } from '../../auth/access.js';
import type { SkeinError } from '../../errors/index.js';
import type { ListBody } from './list-body.js';

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
  /** Already serialized JSON, or '' for an empty body (or when listBody is set). */
  body: string;
  /** The body as a list of serialized items, written out without concatenating them (list-body.ts). */
  listBody?: ListBody;
  headers?: Array<[string, string]>;
  /** Content-Type of a non-empty body; application/json when absent. */
  contentType?: string;
  /**
   * A response that stays open (POST /logs/stream): the head is written, then `open` gets the
   * connection to write chunks on until it ends it or the client goes. `body` is ignored; never compressed.
   */
  open?: (out: ResponseStream) => void;
}

/** An open chunked response (http-server.ts makes it over the uWS response). */
export interface ResponseStream {
  /** false: the chunk was taken but waits in the send buffer; write more after onWritable. */
  write(chunk: string): boolean;
  /** Called once when the send buffer drained after a write answered false. */
  onWritable(callback: () => void): void;
  /** Ends the response normally. */
  end(): void;
  /** Closes the connection at once (a reader too slow). */
  close(): void;
  /** The client went away or the connection was closed (not called after end()). */
  onClosed(callback: () => void): void;
}

/** How a route reads its body. */
export type BodyKind = 'none' | 'json' | 'documents';

export function jsonReply(status: number, value: unknown): FrontReply {
  return { status, body: JSON.stringify(value) };
}

export function errorReply(error: SkeinError): FrontReply {
  const reply: FrontReply = { status: error.status, body: JSON.stringify(error.toBody()) };
  // Browser clients on another origin may read Retry-After only when it is exposed (CORS).
  if (error.status === 503) reply.headers = [['Retry-After', '10'], ['Access-Control-Expose-Headers', 'Retry-After']];
  return reply;
}
