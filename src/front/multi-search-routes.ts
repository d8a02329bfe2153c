// POST /multi-search (routes.md §4.3, the non-federated `queries` form): every query is validated,
// authorized for its index and dispatched in the same event-loop turn, so the shard workers receive
// ONE batch carrying all of them; results come back in query order. An error of query i answers the
// whole request, its message prefixed ``Inside `.queries[i]`: `` (index_not_found then is a 400).
import { canSeeIndex, type Access } from '../auth/index.js';
import { asSkeinError, SkeinError } from '../errors/index.js';
import { denyUnknownFields, invalidValueType, isPlainObject, missingField } from './deserr-messages.js';
import type { FrontReply } from './http-types.js';
import { validateIndexUid } from './index-uid.js';
import type { FrontContext, RouteSpec } from './route-spec.js';
import { REQUEST_LIMITS } from './request-limits.js';
import { searchIndex } from './search-routes.js';
import { searchResponseJson, type SearchAnswer } from './search-response.js';
import { parseSearchBody, type SearchParameters } from './search-params.js';

export const multiSearchRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/multi-search', action: 'search', body: 'json',
    handle: (request, context) => multiSearch(request.json, request.access, context),
  },
];

interface ParsedQuery {
  indexUid: string;
  parameters: SearchParameters;
}

async function multiSearch(body: unknown, access: Access, context: FrontContext): Promise<FrontReply> {
  const queries = parseMultiSearchBody(body);
  const parsed: ParsedQuery[] = queries.map((query, position) => withPosition(position, () => parseQuery(query, position, access)));
  // Started without awaiting in between: every dispatch lands in this turn's batches.
  const searches = parsed.map(({ indexUid, parameters }, position) =>
    searchIndex(access, context, indexUid, parameters).catch((cause: unknown) => {
      throw inQuery(position, asSkeinError(cause));
    }));
  const settled = await Promise.allSettled(searches);
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  const results = (settled as PromiseFulfilledResult<SearchAnswer>[]).map((outcome, position) =>
    `{"indexUid":${JSON.stringify(parsed[position]!.indexUid)},${searchResponseJson(outcome.value).slice(1)}`);
  return { status: 200, body: `{"results":[${results.join(',')}]}` };
}

function parseMultiSearchBody(body: unknown): unknown[] {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, ['federation', 'queries']);
  if (body.federation !== undefined && body.federation !== null) {
    throw new SkeinError('invalid_multi_search_federated', 'Federated multi-search is not supported by this server.');
  }
  if (body.queries === undefined) throw missingField('bad_request', 'queries');
  if (!Array.isArray(body.queries)) throw invalidValueType('bad_request', '.queries', 'an array', body.queries);
  if (body.queries.length > REQUEST_LIMITS.multiSearchQueries) {
    throw new SkeinError('bad_request', `Invalid value at \`.queries\`: the list has ${body.queries.length} queries, more than the ${REQUEST_LIMITS.multiSearchQueries} this server accepts.`);
  }
  return body.queries;
}

function parseQuery(query: unknown, position: number, access: Access): ParsedQuery {
  const path = `.queries[${position}]`;
  if (!isPlainObject(query)) throw invalidValueType('bad_request', path, 'an object', query);
  const { indexUid, federationOptions, ...search } = query;
  if (federationOptions !== undefined) {
    throw new SkeinError('invalid_multi_search_federation_options',
      `Using \`federationOptions\` is not allowed in a non-federated search.\n - Hint: remove \`federationOptions\` from query #${position} or add \`federation\` to the request.`);
  }
  if (indexUid === undefined) throw missingField('missing_index_uid', 'indexUid');
  if (typeof indexUid !== 'string') throw invalidValueType('invalid_index_uid', `${path}.indexUid`, 'a string', indexUid);
  validateIndexUid(indexUid);
  if (!canSeeIndex(access, indexUid)) throw new SkeinError('invalid_api_key', 'The provided API key is invalid.');
  return { indexUid, parameters: parseSearchBody(search) };
}

/** Validation errors name the query: deserr paths gain the `.queries[i]` prefix, others the "Inside" one. */
function withPosition<T>(position: number, run: () => T): T {
  try {
    return run();
  } catch (cause) {
    const error = asSkeinError(cause);
    const message = error.message;
    const path = `.queries[${position}]`;
    if (/ at `\./.test(message)) throw new SkeinError(error.code, message.replace(/ at `\.(?=[^`]*`)/, ` at \`${path}.`).replace(`${path}.\``, `${path}\``));
    if (/^Missing field `[^`]*`$/.test(message)) throw new SkeinError(error.code, `${message} inside \`${path}\``);
    if (/^Unknown field `[^`]*`:/.test(message)) throw new SkeinError(error.code, message.replace(/^(Unknown field `[^`]*`):/, `$1 inside \`${path}\`:`));
    throw inQuery(position, error);
  }
}

function inQuery(position: number, error: SkeinError): SkeinError {
  const wrapped = new SkeinError(error.code, `Inside \`.queries[${position}]\`: ${error.message}`);
  // The one status exception of the error table (errors.md): a missing index here is a bad request.
  if (error.code === 'index_not_found') Object.defineProperty(wrapped, 'status', { value: 400 });
  return wrapped;
}
