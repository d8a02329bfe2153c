// The authorization decision of one request (auth.md §1, §6, §7; errors.md §3), pure: the front's
// authorizer feeds it the header, the route's action and index, and its key cache.
import { SkeinError } from '../errors/index.js';
import { restrictedKeyMayUseWithoutIndex } from './actions.js';
import { allowsEveryIndex, allowsIndex, mostSpecificPattern } from './index-patterns.js';
import type { KeyRecord } from './key-record.js';
import { isExpired } from './key-record.js';
import { checkNotExpired, decodeTenantToken, hasValidSignature, type SearchRules } from './tenant-token.js';

/** A stored key as the front caches it: its derived value and its expanded actions. */
export interface KeyEntry {
  record: KeyRecord;
  value: string;
  actions: ReadonlySet<string>;
}

export interface KeyLookup {
  /** The master key ('master'), the stored key whose value is `token`, or undefined; constant-time comparisons. */
  identify(token: string): 'master' | KeyEntry | undefined;
  /** The key whose value is `token`, compared in constant time. */
  byValue(token: string): KeyEntry | undefined;
  byUid(uid: string): KeyEntry | undefined;
}

/** What an authorized request may see. */
export interface Access {
  /** Index patterns the requester may touch; null = every index. */
  indexes: readonly string[] | null;
  /** Tenant-token rules (pattern -> extra filter); null when not authenticated by a tenant token. */
  searchRules: SearchRules | null;
  /** May a write create a missing index (the key holds indexes.create)? Else such a task fails with index_not_found. */
  allowIndexCreation: boolean;
}

export const FULL_ACCESS: Access = Object.freeze({ indexes: null, searchRules: null, allowIndexCreation: true });

export interface AccessRequest {
  /** null: a public route. */
  action: string | null;
  /** The Bearer token; null when no Authorization header was sent. */
  token: string | null;
  indexUid: string | null;
}

export function decideAccess(request: AccessRequest, masterKey: string | null, keys: KeyLookup, nowMillis: number): Access {
  if (request.action === null) return FULL_ACCESS;
  if (masterKey === null) {
    if (request.action.startsWith('keys.')) throw missingMasterKey();
    return FULL_ACCESS;
  }
  if (request.token === null) {
    throw new SkeinError('missing_authorization_header', 'The Authorization header is missing. It must use the bearer authorization method.');
  }
  const found = keys.identify(request.token);
  if (found === 'master') return FULL_ACCESS;
  if (found === undefined && request.action === 'search') {
    const tenant = tenantAccess(request.token, request.indexUid, keys, nowMillis);
    if (tenant) return tenant;
  }
  const entry = found;
  if (!entry || isExpired(entry.record, nowMillis) || !entry.actions.has(request.action)) throw invalidApiKey();
  const patterns = entry.record.indexes;
  if (request.indexUid !== null && !allowsIndex(patterns, request.indexUid)) throw indexNotAuthorized(request.indexUid, patterns);
  if (request.indexUid === null && !reachesIndexlessRoute(patterns, request.action)) throw invalidApiKey();
  return { indexes: allowsEveryIndex(patterns) ? null : patterns, searchRules: null, allowIndexCreation: entry.actions.has('indexes.create') };
}

/**
 * On a route with no index in its path (/keys, /version, /tasks, /stats, GET /indexes, /multi-search...),
 * a key restricted to some indexes holds the action only when the route filters by the key's indexes
 * itself, and the key names at least one index (Meilisearch's is_key_authorized with no index). Global
 * actions need `indexes: ["*"]`: else a key with `*` on one index read every key value, the admin's too,
 * and created an unrestricted key.
 */
function reachesIndexlessRoute(patterns: readonly string[], action: string): boolean {
  if (allowsEveryIndex(patterns)) return true;
  return patterns.length > 0 && restrictedKeyMayUseWithoutIndex(action);
}

/** null when the token is not a (verifiable) tenant token: it is then tried as an API key. */
function tenantAccess(token: string, indexUid: string | null, keys: KeyLookup, nowMillis: number): Access | null {
  const claims = decodeTenantToken(token);
  if (!claims) return null;
  const parent = keys.byUid(claims.apiKeyUid);
  if (!parent || !hasValidSignature(claims, parent.value)) return null;
  checkNotExpired(claims, nowMillis);
  if (isExpired(parent.record, nowMillis) || !parent.actions.has('search')) throw invalidApiKey();
  if (indexUid === null && !reachesIndexlessRoute(parent.record.indexes, 'search')) throw invalidApiKey();
  if (indexUid !== null) {
    if (mostSpecificPattern(claims.searchRules.keys(), indexUid) === undefined) {
      throw new SkeinError('invalid_api_key',
        `The provided tenant token cannot acces the index \`${indexUid}\`, allowed indexes are ${listing([...claims.searchRules.keys()])}.`);
    }
    if (!allowsIndex(parent.record.indexes, indexUid)) {
      throw new SkeinError('invalid_api_key', `The API key used to generate this tenant token cannot acces the index \`${indexUid}\`.`);
    }
  }
  const patterns = allowsEveryIndex(parent.record.indexes) ? null : parent.record.indexes;
  return { indexes: patterns, searchRules: claims.searchRules, allowIndexCreation: false };
}

/** The tenant-token filter for an index (null: none), from the most specific matching rule. */
export function tenantFilter(access: Access, indexUid: string): unknown {
  if (access.searchRules === null) return null;
  const pattern = mostSpecificPattern(access.searchRules.keys(), indexUid);
  if (pattern === undefined) return null;
  const filter = access.searchRules.get(pattern);
  return filter === undefined ? null : filter;
}

/** Whether the requester may see an index on a global route (GET /indexes, /tasks, /stats). */
export function canSeeIndex(access: Access, indexUid: string): boolean {
  if (access.indexes !== null && !allowsIndex(access.indexes, indexUid)) return false;
  if (access.searchRules !== null && mostSpecificPattern(access.searchRules.keys(), indexUid) === undefined) return false;
  return true;
}

/**
 * For searches naming their index in the body (multi-search queries): the same checks, and messages,
 * as a search route with the index in its path, for API keys and tenant tokens alike.
 */
export function checkSearchAccess(access: Access, indexUid: string): void {
  if (access.searchRules !== null) {
    if (mostSpecificPattern(access.searchRules.keys(), indexUid) === undefined) {
      throw new SkeinError('invalid_api_key',
        `The provided tenant token cannot acces the index \`${indexUid}\`, allowed indexes are ${listing([...access.searchRules.keys()])}.`);
    }
    if (access.indexes !== null && !allowsIndex(access.indexes, indexUid)) {
      throw new SkeinError('invalid_api_key', `The API key used to generate this tenant token cannot acces the index \`${indexUid}\`.`);
    }
    return;
  }
  checkIndexAccess(access, indexUid);
}

/** For routes naming the index in their body (POST /indexes): the same check as for path indexes. */
export function checkIndexAccess(access: Access, indexUid: string): void {
  if (access.indexes !== null && !allowsIndex(access.indexes, indexUid)) throw indexNotAuthorized(indexUid, access.indexes);
}

function indexNotAuthorized(indexUid: string, patterns: readonly string[]): SkeinError {
  return new SkeinError('invalid_api_key', `The API key cannot acces the index \`${indexUid}\`, authorized indexes are ${listing(patterns)}.`);
}

export function invalidApiKey(): SkeinError {
  return new SkeinError('invalid_api_key', 'The provided API key is invalid.');
}

export function missingMasterKey(): SkeinError {
  return new SkeinError('missing_master_key',
    'Meilisearch is running without a master key. To access this API endpoint, you must have set a master key at launch.');
}

/** Rust's Debug of a Vec<String>: ["a", "b"]. */
function listing(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;
}
