// The one seam where authentication plugs into the request pipeline: every route declares the key
// action it needs (auth.md §5) and the pipeline calls `authorize` before reading the body, as
// Meilisearch checks keys before parsing payloads. The keys issue replaces `createAuthorizer` with
// a version that knows API keys and tenant tokens; today only the master key itself is recognized.
import { SkeinError } from '../errors/index.js';

/** null: a public route (GET /health). */
export type KeyAction = string | null;

export interface AuthorizationRequest {
  action: KeyAction;
  /** Raw `Authorization` header, null when absent. */
  authorization: string | null;
  /** Index named in the path, when the route has one. */
  indexUid: string | null;
}

export type Authorizer = (request: AuthorizationRequest) => void;

export function createAuthorizer(masterKey: string | null): Authorizer {
  return ({ action, authorization }) => {
    if (action === null) return;
    const token = bearerToken(authorization);
    if (masterKey === null) {
      if (action.startsWith('keys.')) throw missingMasterKey();
      return;
    }
    if (token === null) {
      throw new SkeinError('missing_authorization_header',
        'The Authorization header is missing. It must use the bearer authorization method.');
    }
    if (token !== masterKey) throw new SkeinError('invalid_api_key', 'The provided API key is invalid.');
  };
}

/**
 * The token of a `Bearer` header; null when there is no header. A header with another scheme is
 * rejected even without a master key, like Meilisearch does.
 */
export function bearerToken(authorization: string | null): string | null {
  if (authorization === null) return null;
  const space = authorization.indexOf(' ');
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  if (scheme !== 'Bearer') {
    throw new SkeinError('missing_authorization_header',
      'The Authorization header is missing. It must use the bearer authorization method.');
  }
  // "Bearer" alone has no token part at all; "Bearer " has an empty one, checked like any other.
  if (space < 0) throw new SkeinError('invalid_api_key', 'The provided API key is invalid.');
  return authorization.slice(space + 1);
}

function missingMasterKey(): SkeinError {
  return new SkeinError('missing_master_key',
    'Meilisearch is running without a master key. To access this API endpoint, you must have set a master key at launch.');
}
