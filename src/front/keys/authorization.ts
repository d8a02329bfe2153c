// The one seam where authentication plugs into the request pipeline: every route declares the key
// action it needs (auth.md §5) and the pipeline calls `authorize` before reading the body, as
// Meilisearch checks keys before parsing payloads. The decision itself is src/auth's; this file
// owns the front's key cache (rebuilt from LMDB after each /keys write the scheduler commits).
import { decideAccess, decodeTenantToken, invalidApiKey, KeyRing, type Access, type KeyRecord } from '../../auth/index.js';
import { SkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';

/** null: a public route (GET /health). */
export type KeyAction = string | null;

export interface AuthorizationRequest {
  action: KeyAction;
  /** Raw `Authorization` header, null when absent. */
  authorization: string | null;
  /** Index named in the path, when the route has one. */
  indexUid: string | null;
}

export type Authorizer = (request: AuthorizationRequest) => Access;

/** The stored keys, read once per change; key lookups on the request path are O(1). */
export class KeyCache {
  private ring: KeyRing | null = null;

  constructor(private readonly masterKey: string | null, private readonly load: () => KeyRecord[]) {}

  static fromStorage(masterKey: string | null, storage: Pick<Storage, 'keys'>): KeyCache {
    return new KeyCache(masterKey, () => readKeyRecords(storage));
  }

  get current(): KeyRing {
    this.ring ??= new KeyRing(this.masterKey, this.load());
    return this.ring;
  }

  invalidate(): void {
    this.ring = null;
  }
}

export function readKeyRecords(storage: Pick<Storage, 'keys'>): KeyRecord[] {
  return [...storage.keys.getRange({})].map(({ value }) => value as unknown as KeyRecord);
}

export function createAuthorizer(masterKey: string | null, keys = new KeyCache(masterKey, () => []), now: () => number = Date.now): Authorizer {
  return ({ action, authorization, indexUid }) => {
    if (action === null) return decideAccess({ action, token: null, indexUid }, masterKey, keys.current, now());
    const token = bearerToken(authorization);
    return decideAccess({ action, token, indexUid }, masterKey, keys.current, now());
  };
}

/** How long a request with a key this node does not know waits for the cluster's config log (keyCatchUp). */
export const KEY_CATCH_UP_MS = 500;

/**
 * Cluster mode, read-your-writes across nodes: a request refused because this node does not know its
 * key (nor a tenant token's parent key) may carry a key just created through another node. The
 * promise resolves once this node applied every key change the config log held when asked (or after
 * KEY_CATCH_UP_MS: cluster/config-log.ts appliedAll, which shares one NATS read among the callers);
 * the caller then authorizes again. null: the refusal stands (a known key lacking the action, or not
 * in cluster mode). Known keys never wait: the common path stays synchronous. A key deleted through
 * another node is still accepted here until this node applies the deletion (the log's lag).
 */
export function keyCatchUp(
  cause: unknown, authorization: string | null, keys: KeyCache, config: { appliedAll(timeoutMs?: number): Promise<boolean> } | null,
): Promise<boolean> | null {
  if (config === null || authorization === null || !(cause instanceof SkeinError) || cause.code !== 'invalid_api_key') return null;
  if (!authorization.startsWith('Bearer ')) return null;
  const token = authorization.slice('Bearer '.length);
  const ring = keys.current;
  if (ring.identify(token) !== undefined) return null;
  const claims = decodeTenantToken(token);
  if (claims !== null && ring.byUid(claims.apiKeyUid) !== undefined) return null;
  return config.appliedAll(KEY_CATCH_UP_MS);
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
  if (space < 0) throw invalidApiKey();
  return authorization.slice(space + 1);
}
