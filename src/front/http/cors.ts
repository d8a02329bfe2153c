// CORS as Meilisearch configures actix-cors (`Cors::default().send_wildcard().allow_any_header()
// .allow_any_origin().allow_any_method().max_age(86_400)`): every origin is allowed, so
//  - a preflight (any OPTIONS request, whatever its path, before routing and authorization) is
//    answered here: 200 with `Access-Control-Allow-Origin: *`, every method, the requested headers
//    echoed, a 24 h max age; without a valid `Access-Control-Request-Method` it is actix-cors' 400;
//  - every actual answer carries `Access-Control-Allow-Origin: *` (http-server.ts writes it on every
//    path, list bodies and compressed bodies included). Unlike actix-cors, which adds it (and
//    `Vary: Origin`) only when the request has an Origin header, Skein sends it always: the value
//    never depends on the request, so caches need no Vary and the search path reads no header more.
//    A 503's Retry-After is listed in `Access-Control-Expose-Headers` (http-types.ts errorReply) so
//    a page on another origin can read it (actix-cors, with no exposed headers configured, sends none).
// Credentials are not supported (a wildcard origin forbids them), as in Meilisearch.
import type { FrontReply } from './http-types.js';

/** Methods actix-cors' allow_any_method() accepts (its ALL_METHODS_SET); matched case-sensitively, as there. */
const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE'];
const ALLOWED_METHODS_VALUE = ALLOWED_METHODS.join(', ');
const MAX_AGE_SECONDS = '86400';
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/** Written on every answer (as bytes: uWS converts a string on every call). */
export const ALLOW_ORIGIN_HEADER = Buffer.from('Access-Control-Allow-Origin');
export const ALLOW_ORIGIN_ANY = Buffer.from('*');
/**
 * The Content-Type value of JSON answers with the Allow-Origin header line folded in: uWS writes
 * `name: value\r\n` verbatim, so this is two header lines for the price of one native call. Measured
 * on a bare uWS server (wrk, 16 connections, CPU time per response, medians of 5 alternated runs):
 * 3.64 µs without the header, 3.89 µs with a second writeHeader, 3.51 µs folded.
 */
export const JSON_AND_ALLOW_ORIGIN = Buffer.from('application/json\r\nAccess-Control-Allow-Origin: *');

/**
 * The answer to an OPTIONS request. `requestMethod` / `requestHeaders`: the Access-Control-Request-*
 * headers, null when absent. Needs no API key: browsers never send credentials with a preflight.
 */
export function preflightReply(requestMethod: string | null, requestHeaders: string | null): FrontReply {
  if (requestMethod === null) return preflightError('Request header `Access-Control-Request-Method` is required but is missing.');
  if (!ALLOWED_METHODS.includes(requestMethod)) {
    return preflightError(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(requestMethod)
      ? 'Requested method is not allowed.'
      : 'Request header `Access-Control-Request-Method` has an invalid value.');
  }
  const headers: Array<[string, string]> = [
    ['Access-Control-Allow-Methods', ALLOWED_METHODS_VALUE],
    ['Access-Control-Max-Age', MAX_AGE_SECONDS],
    ['Vary', PREFLIGHT_VARY],
  ];
  // allow_any_header(): whatever the browser asks for is allowed, echoed as sent.
  if (requestHeaders !== null) headers.push(['Access-Control-Allow-Headers', requestHeaders]);
  return { status: 200, body: '', headers };
}

/** actix-cors answers a bad preflight with a plain-text 400 (CorsError's message). */
function preflightError(message: string): FrontReply {
  return { status: 400, body: message, contentType: 'text/plain; charset=utf-8' };
}
