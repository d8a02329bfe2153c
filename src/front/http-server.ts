// The uWS edge: copies what it needs from the request synchronously (uWS requests die when the
// callback returns), authorizes, streams the body under the size limit, runs the route and answers
// inside cork(). Every failure becomes a Meilisearch error body; nothing here may throw into uWS.
import { STATUS_CODES } from 'node:http';
import uws from './http/uws.js';
import type { HttpResponse, TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import { asSkeinError } from '../errors/index.js';
import { keyCatchUp, type Authorizer } from './keys/authorization.js';
import { ALLOW_ORIGIN_ANY, ALLOW_ORIGIN_HEADER, JSON_AND_ALLOW_ORIGIN, preflightReply } from './http/cors.js';
import { errorReply, FULL_ACCESS, type FrontReply, type FrontRequest, type ResponseStream } from './http/http-types.js';
import { ListBodyWriter } from './http/list-body.js';
import { recordAnswer, type RequestSlot, type RequestTally } from './ops/metrics.js';
import { checkJsonContentType, decodeContentOffThread, parseJsonBody, payloadTooLarge } from './http/request-body.js';
import { compressAsync, EncodingNegotiation, INLINE_COMPRESSION_LIMIT, ResponseCompressors, type ResponseEncoding } from './http/response-compression.js';
import type { Router } from './http/router.js';
import type { FrontContext, RouteSpec } from './http/route-spec.js';
import type { RequestLogFields, ServerLog } from './ops/server-log.js';
import type { UploadGauge } from '../protocol/upload-gauge.js';

export interface HttpEdge {
  router: Router<RouteSpec>;
  context: FrontContext;
  authorize: Authorizer;
  payloadLimit: number;
  /** Per-request counts and times for /metrics (metrics.ts). */
  requests: RequestTally;
  log: ServerLog;
  /** Document uploads under way, for the scheduler (protocol/upload-gauge.ts); absent: not counted. */
  uploads?: UploadGauge;
}

interface ResponseState {
  /** The client went away, or the answer was sent: never touch res again. */
  aborted: boolean;
  /** An answer is on its way (compression may still be running). */
  answered: boolean;
  /** Negotiated from Accept-Encoding; null: identity. */
  encoding: ResponseEncoding | null;
  /** The server's inline compression contexts (createHttpApp's). */
  compressors: ResponseCompressors;
  /** Where the answer is counted (/metrics); null: not counted (answers while closing). */
  slot: RequestSlot | null;
  startedAt: number;
  log: ServerLog;
  /** The request line (server-log.ts), written once, after the answer. */
  line: RequestLogFields;
  logged: boolean;
  /** An open stream's (POST /logs/stream) end when the client goes. */
  onClosed: (() => void) | null;
  /** A documents upload counted in the UploadGauge until answered or aborted (endUpload). */
  upload: { gauge: UploadGauge; slot: number } | null;
}

/** The HTTP front's lifetime: serving, then refusing (close() has begun), then closed. */
export interface HttpFront {
  app: TemplatedApp;
  /** From now on every request is answered an empty 503 and its connection closed. */
  refuseNewRequests(): void;
  /** Closes the listen socket and every connection still open, kept-alive or waiting for an answer (their onAborted runs). */
  closeConnections(): void;
}

/** This uWS build has TemplatedApp.close() (us_socket_context_close: listen sockets and connections), its typings do not. */
type ClosableApp = TemplatedApp & { close(): void };

export function createHttpApp(edge: HttpEdge): HttpFront {
  const app = uws.App() as ClosableApp;
  let refusing = false;
  const encodings = new EncodingNegotiation();
  const compressors = new ResponseCompressors();
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const log = edge.log;
    const state: ResponseState = {
      aborted: false, answered: false, encoding: encodings.negotiate(req.getHeader('accept-encoding')), compressors, log,
      slot: null, startedAt: performance.now(),
      // performance.now() only when request lines are written (startedAt 0: none for this request).
      line: { requestId: log.requestId(), method, route: null, path, startedAt: log.requestLines ? performance.now() : 0 },
      logged: false, onClosed: null, upload: null,
    };
    res.onAborted(() => {
      state.aborted = true;
      endUpload(state);
      logRequestLine(state, null);
      state.onClosed?.();
    });
    if (refusing) {
      // close() has begun: the threads and storage behind the routes are going away.
      state.encoding = null;
      drainThenReply(res, state, { status: 503, body: '' }, true);
      return;
    }
    const rawQuery = req.getQuery() ?? '';
    const headers = {
      contentType: req.getHeader('content-type') || null,
      contentEncoding: req.getHeader('content-encoding') || null,
      authorization: req.getHeader('authorization') || null,
      contentLength: req.getHeader('content-length'),
    };
    if (method === 'OPTIONS') {
      state.slot = edge.requests.slotFor(null, method);
      // CORS preflight (cors.ts): answered for any path, before routing and authorization.
      drainThenReply(res, state, preflightReply(req.getHeader('access-control-request-method') || null,
        req.getHeader('access-control-request-headers') || null));
      return;
    }
    const lookup = edge.router.lookup(method, path);
    state.slot = edge.requests.slotFor(lookup.kind === 'found' ? lookup.match.route : null, method);
    if (lookup.kind !== 'found') {
      // Unknown paths answer an empty 404 and known paths with another method an empty 405, as actix does.
      drainThenReply(res, state, { status: lookup.kind === 'notFound' ? 404 : 405, body: '' });
      return;
    }
    const { route, params } = lookup.match;
    state.line.route = route.path;
    const request: FrontRequest = {
      method, path, rawQuery, query: new URLSearchParams(rawQuery), params, body: EMPTY_BODY, json: undefined,
      contentType: headers.contentType, contentEncoding: headers.contentEncoding, authorization: headers.authorization,
      access: FULL_ACCESS,
    };
    // Cluster mode: a key this node does not know yet is checked again once it caught up with the
    // config log (authorization.ts keyCatchUp); meanwhile its body is not read (the socket paused: what
    // already came, ~128 KiB, is kept), and a refusal closes the connection without reading the rest.
    let catchUp: Promise<boolean> | null = null;
    try {
      admit(edge, route, request, headers.contentLength);
    } catch (cause) {
      catchUp = keyCatchUp(cause, request.authorization, edge.context.keys, edge.context.scheduler.configThrough);
      if (catchUp === null) {
        drainThenReply(res, state, failureReply(state, cause));
        return;
      }
    }
    if (route.body === 'none') {
      drainThenRun(res, state, catchUp === null ? () => route.handle(request, edge.context)
        : () => catchUp.then(() => admit(edge, route, request, headers.contentLength)).then(() => route.handle(request, edge.context)));
      return;
    }
    if (route.body === 'documents' && edge.uploads && params.indexUid !== undefined) {
      state.upload = { gauge: edge.uploads, slot: edge.uploads.begin(params.indexUid) };
    }
    const admitted = catchUp === null ? null : catchUp.then(() => admit(edge, route, request, headers.contentLength));
    readBody(res, state, edge.payloadLimit, admitted, (body) => {
      request.body = body;
      run(res, state, async () => {
        if (admitted !== null) await admitted;
        if (route.body === 'json') {
          request.body = await decodeContentOffThread(body, request.contentEncoding, edge.payloadLimit);
          request.json = parseJsonBody(request.body);
        }
        return route.handle(request, edge.context);
      });
    });
    if (admitted !== null) {
      res.pause();
      admitted.then(() => {
        if (!state.aborted) res.resume();
      }, (cause: unknown) => reply(res, state, failureReply(state, cause), true));
    }
  });
  return {
    app,
    refuseNewRequests() {
      refusing = true;
    },
    closeConnections() {
      app.close();
    },
  };
}

const EMPTY_BODY = Buffer.alloc(0);

/** Authorizes the request (sets its access), then the checks made before its body is read; throws the refusal. */
function admit(edge: HttpEdge, route: RouteSpec, request: FrontRequest, contentLength: string): void {
  request.access = edge.authorize({ action: route.action, authorization: request.authorization, indexUid: request.params.indexUid ?? null });
  if (route.body === 'json') checkJsonContentType(request.contentType);
  if (route.body !== 'none' && Number(contentLength) > edge.payloadLimit) throw payloadTooLarge(edge.payloadLimit);
}

/**
 * Collects the body into one buffer that owns its memory (it may be transferred to a worker).
 * `admitted`: an authorization still pending (keyCatchUp), whose refusal comes before a too large body's.
 */
function readBody(res: HttpResponse, state: ResponseState, limit: number, admitted: Promise<void> | null, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  res.onData((chunk, isLast) => {
    if (tooLarge) return;
    size += chunk.byteLength;
    if (size > limit) {
      tooLarge = true;
      // Stop reading: answer now and close, the rest of the body is never buffered.
      if (admitted === null) reply(res, state, errorReply(payloadTooLarge(limit)), true);
      else {
        admitted.then(() => reply(res, state, errorReply(payloadTooLarge(limit)), true), (cause: unknown) => reply(res, state, failureReply(state, cause), true));
      }
      return;
    }
    // uWS reuses the chunk's memory after this callback returns.
    if (chunk.byteLength > 0) chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    const body = Buffer.from(new ArrayBuffer(size));
    let offset = 0;
    for (const part of chunks) {
      part.copy(body, offset);
      offset += part.length;
    }
    done(body);
  });
}

/** Routes without a body still let uWS deliver (and discard) whatever was sent before answering. */
function drainThenRun(res: HttpResponse, state: ResponseState, handler: () => FrontReply | Promise<FrontReply>): void {
  res.onData((_chunk, isLast) => {
    if (isLast) run(res, state, handler);
  });
}

function drainThenReply(res: HttpResponse, state: ResponseState, answer: FrontReply, closeConnection = false): void {
  res.onData((_chunk, isLast) => {
    if (isLast) reply(res, state, answer, closeConnection);
  });
}

function run(res: HttpResponse, state: ResponseState, handler: () => FrontReply | Promise<FrontReply>): void {
  let outcome: FrontReply | Promise<FrontReply>;
  try {
    outcome = handler();
  } catch (cause) {
    reply(res, state, failureReply(state, cause), false);
    return;
  }
  if (outcome instanceof Promise) {
    outcome.then(
      (answer) => reply(res, state, answer, false),
      (cause: unknown) => reply(res, state, failureReply(state, cause), false),
    );
  } else {
    reply(res, state, outcome, false);
  }
}

/** Every status line Node knows, made once at load (read-only after). */
const STATUS_LINES: ReadonlyMap<number, string> = new Map(Object.entries(STATUS_CODES).map(([code, text]) => [Number(code), `${code} ${text}`]));
/** Header strings as bytes: uWS reads a buffer in place, and converts a string on every call. */
const CONTENT_TYPE = Buffer.from('Content-Type');

function statusLine(status: number): string {
  return STATUS_LINES.get(status) ?? `${status} Unknown`;
}

/** An error answer; an internal one (500) is logged with its stack. */
function failureReply(state: ResponseState, cause: unknown): FrontReply {
  const error = asSkeinError(cause);
  if (error.status === 500) state.log.internalError(state.line, cause);
  return errorReply(error);
}

/** The request's one line (server-log.ts), after its answer was written; status null: the client went away first. */
function logRequestLine(state: ResponseState, status: number | null): void {
  if (state.logged) return;
  state.logged = true;
  state.log.request(state.line, status);
}

/** The request's upload (if counted) is over: answered, or its client went away. */
function endUpload(state: ResponseState): void {
  if (state.upload === null) return;
  state.upload.gauge.end(state.upload.slot);
  state.upload = null;
}

function reply(res: HttpResponse, state: ResponseState, answer: FrontReply, closeConnection: boolean): void {
  if (state.aborted || state.answered) return;
  state.answered = true;
  endUpload(state);
  if (state.slot !== null) recordAnswer(state.slot, answer.status, (performance.now() - state.startedAt) / 1000);
  if (answer.open) {
    openStream(res, state, answer, answer.open);
    logRequestLine(state, answer.status);
    return;
  }
  const encoding = hasBody(answer) ? state.encoding : null;
  if (encoding === null) {
    state.aborted = true;
    write(res, answer, answer.listBody === undefined ? answer.body : LIST_BODY_WRITER.bytes(answer.listBody), null, closeConnection);
    logRequestLine(state, answer.status);
    return;
  }
  // A list body (a search's) is compressed from its bytes as written for an uncompressed answer (the reused
  // buffer: zlib reads it before returning), not decoded into a string and encoded again.
  const inline = answer.listBody === undefined ? answer.body : LIST_BODY_WRITER.bytes(answer.listBody);
  if (inline.length <= INLINE_COMPRESSION_LIMIT) {
    state.aborted = true;
    write(res, answer, state.compressors.compress(inline, encoding), encoding, closeConnection);
    logRequestLine(state, answer.status);
    return;
  }
  // Off the thread: bytes of its own (the reused buffer is the next answer's).
  const own = typeof inline === 'string' ? inline : Buffer.from(inline);
  compressAsync(own, encoding).then(
    (compressed) => {
      if (state.aborted) return;
      state.aborted = true;
      write(res, answer, compressed, encoding, closeConnection);
      logRequestLine(state, answer.status);
    },
    () => {
      if (state.aborted) return;
      state.aborted = true;
      write(res, answer, own, null, closeConnection);
      logRequestLine(state, answer.status);
    },
  );
}

/** A response that stays open (FrontReply.open): the head, then chunks until the route or the client ends it. */
function openStream(res: HttpResponse, state: ResponseState, answer: FrontReply, open: (out: ResponseStream) => void): void {
  let done = false;
  const gone = () => done || state.aborted;
  res.cork(() => {
    if (answer.status !== 200) res.writeStatus(statusLine(answer.status));
    if (answer.contentType !== undefined) res.writeHeader(CONTENT_TYPE, answer.contentType);
    res.writeHeader(ALLOW_ORIGIN_HEADER, ALLOW_ORIGIN_ANY);
    if (answer.headers) for (const [name, value] of answer.headers) res.writeHeader(name, value);
  });
  open({
    write(chunk) {
      if (gone()) return true;
      let ok = true;
      res.cork(() => { ok = res.write(chunk); });
      return ok;
    },
    onWritable(callback) {
      if (gone()) return;
      res.onWritable(() => {
        if (!gone()) callback();
        return true;
      });
    },
    end() {
      if (gone()) return;
      done = true;
      res.cork(() => res.end());
    },
    close() {
      if (gone()) return;
      done = true;
      res.close();
    },
    onClosed(callback) {
      state.onClosed = callback;
    },
  });
}

/** One buffer for every uncompressed list body: uWS copies it within res.end. */
const LIST_BODY_WRITER = new ListBodyWriter();

function hasBody(answer: FrontReply): boolean {
  return answer.listBody !== undefined || answer.body !== '';
}

function write(res: HttpResponse, answer: FrontReply, body: string | Buffer, encoding: ResponseEncoding | null, closeConnection: boolean): void {
  res.cork(() => {
    // uWS writes "200 OK" itself when no status was written: one native call less per search.
    if (answer.status !== 200) res.writeStatus(statusLine(answer.status));
    // Every answer carries Access-Control-Allow-Origin (cors.ts); on JSON bodies it rides in the
    // Content-Type write, one native call instead of two.
    if (!hasBody(answer)) res.writeHeader(ALLOW_ORIGIN_HEADER, ALLOW_ORIGIN_ANY);
    else if (answer.contentType === undefined) res.writeHeader(CONTENT_TYPE, JSON_AND_ALLOW_ORIGIN);
    else {
      res.writeHeader(CONTENT_TYPE, answer.contentType);
      res.writeHeader(ALLOW_ORIGIN_HEADER, ALLOW_ORIGIN_ANY);
    }
    if (encoding !== null) {
      res.writeHeader('Content-Encoding', encoding);
      res.writeHeader('Vary', 'Accept-Encoding');
    }
    if (answer.headers) for (const [name, value] of answer.headers) res.writeHeader(name, value);
    res.end(body, closeConnection);
  });
}
