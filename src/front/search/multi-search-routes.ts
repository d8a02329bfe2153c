// POST /multi-search (routes.md §4.3; with `federation`: federation/federated-search.ts): every query is validated,
// authorized for its index and dispatched in the same event-loop turn, so the shard workers receive
// ONE batch carrying all of them; results come back in query order. An error of query i answers the
// whole request, its message prefixed ``Inside `.queries[i]`: `` (index_not_found then is a 400).
import { canSeeIndex, type Access } from '../../auth/index.js';
import { asSkeinError, SkeinError } from '../../errors/index.js';
import { denyUnknownFields, invalidValueType, isPlainObject, missingField } from '../http/deserr-messages.js';
import type { FrontReply } from '../http/http-types.js';
import { validateIndexUid } from '../indexes/index-uid.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';
import { REQUEST_LIMITS } from '../http/request-limits.js';
import { checkFederatedQuery, parseFederation, parseFederationOptions, type Federation, type FederationOptions } from './federation/federation-params.js';
import { federatedSearch } from './federation/federated-search.js';
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
  /** The query as sent (federated checks look at which fields it names). */
  raw: Record<string, unknown>;
  federationOptions: FederationOptions | null;
}

async function multiSearch(body: unknown, access: Access, context: FrontContext): Promise<FrontReply> {
  const { queries, federation } = parseMultiSearchBody(body);
  const parsed: ParsedQuery[] = queries.map((query, position) => withPosition(position, () => parseQuery(query, position, federation !== null)));
  // Authorization of every query, then (Meilisearch's order) the per-query checks.
  parsed.forEach(({ indexUid }, position) => {
    if (!canSeeIndex(access, indexUid)) throw inQuery(position, new SkeinError('invalid_api_key', 'The provided API key is invalid.'));
  });
  if (federation !== null) {
    parsed.forEach((query, position) => {
      try {
        checkFederatedQuery(query.raw, query.indexUid, query.federationOptions!, federation, context);
      } catch (cause) {
        throw inQuery(position, asSkeinError(cause));
      }
    });
    const view = context.indexes.resolveTogether(parsed.map(({ indexUid }) => indexUid));
    return federatedSearch(parsed.map(({ indexUid, parameters, federationOptions }, position) =>
      ({ indexUid, parameters, options: federationOptions!, position })), federation, access, context, inQuery, view);
  }
  parsed.forEach((query, position) => {
    if (query.federationOptions !== null) {
      throw inQuery(position, new SkeinError('invalid_multi_search_federation_options',
        'Using `federationOptions` is not allowed in a non-federated search.\n - Hint: remove `federationOptions` from the query or add `federation` to the request.'));
    }
  });
  // One view of the index records for every query (a swap meanwhile must not show one side twice).
  const view = context.indexes.resolveTogether(parsed.map(({ indexUid }) => indexUid));
  // Started without awaiting in between: every dispatch lands in this turn's batches.
  const searches = parsed.map(({ indexUid, parameters }, position) =>
    searchIndex(access, context, indexUid, parameters, undefined, true, view).catch((cause: unknown) => {
      throw inQuery(position, asSkeinError(cause));
    }));
  const settled = await Promise.allSettled(searches);
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  const results = (settled as PromiseFulfilledResult<SearchAnswer>[]).map((outcome, position) =>
    `{"indexUid":${JSON.stringify(parsed[position]!.indexUid)},${searchResponseJson(outcome.value).slice(1)}`);
  return { status: 200, body: `{"results":[${results.join(',')}]}` };
}

function parseMultiSearchBody(body: unknown): { queries: unknown[]; federation: Federation | null } {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
  denyUnknownFields(body, ['federation', 'queries']);
  if (body.queries === undefined) throw missingField('bad_request', 'queries');
  if (!Array.isArray(body.queries)) throw invalidValueType('bad_request', '.queries', 'an array', body.queries);
  if (body.queries.length > REQUEST_LIMITS.multiSearchQueries) {
    throw new SkeinError('bad_request', `Invalid value at \`.queries\`: the list has ${body.queries.length} queries, more than the ${REQUEST_LIMITS.multiSearchQueries} this server accepts.`);
  }
  const federation = body.federation === undefined || body.federation === null ? null : parseFederation(body.federation);
  return { queries: body.queries, federation };
}

function parseQuery(query: unknown, position: number, federated: boolean): ParsedQuery {
  const path = `.queries[${position}]`;
  if (!isPlainObject(query)) throw invalidValueType('bad_request', path, 'an object', query);
  const { indexUid, federationOptions, ...search } = query;
  if (indexUid === undefined) throw missingField('missing_index_uid', 'indexUid');
  if (typeof indexUid !== 'string') throw invalidValueType('invalid_index_uid', `${path}.indexUid`, 'a string', indexUid);
  validateIndexUid(indexUid);
  // Parsed in a federated search; its mere presence is the error otherwise (null is absent).
  let options: FederationOptions | null = null;
  if (federationOptions !== undefined && federationOptions !== null) {
    try {
      options = parseFederationOptions(federationOptions, `${path}.federationOptions`);
    } catch (cause) {
      // Its messages already name the whole path.
      throw Object.defineProperty(asSkeinError(cause), 'positioned', { value: true });
    }
  }
  if (federated) options ??= parseFederationOptions(undefined, path);
  return { indexUid, parameters: parseSearchBody(search), raw: search, federationOptions: options };
}

/** Validation errors name the query: deserr paths gain the `.queries[i]` prefix, others the "Inside" one. */
function withPosition<T>(position: number, run: () => T): T {
  try {
    return run();
  } catch (cause) {
    const error = asSkeinError(cause);
    if ((error as { positioned?: boolean }).positioned === true) throw error;
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
